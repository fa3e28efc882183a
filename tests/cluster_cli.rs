//! `check`, `list` and `serve` with `--kubeconfig`, through the binary,
//! against the in-process API server (plain http on loopback).

use crate::cli_support::mock_apiserver;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use karmada_interpreter::{load, Interpreter};
use mock_apiserver::{widget, widget_customization, MockApiServer, CUSTOMIZATIONS};

use crate::support::{assert_ok, BIN};

/// A runtime serving the mock API server for the whole test.
fn mock() -> (tokio::runtime::Runtime, MockApiServer) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(MockApiServer::start());
    (runtime, server)
}

fn run(args: &[&str], kubeconfig: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn check_kubeconfig_checks_every_customization_in_the_cluster() {
    let (_rt, server) = mock();
    let dir = crate::support::scratch("check");
    let kubeconfig = server.kubeconfig(&dir);
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("good", "Widget", "function GetReplicas(o) return 2 end"),
    );
    let out = run(&["check"], &kubeconfig);
    let stdout = text(&out.stdout);
    assert_ok(&out, "check --kubeconfig");
    assert!(stdout.contains("SOURCE: good"), "{stdout}");
    assert!(stdout.contains("TARGET: example.io/v1 Widget"), "{stdout}");
    assert!(stdout.contains("InterpretReplica:") && stdout.contains("PASS"));

    server.apply(
        CUSTOMIZATIONS,
        widget_customization("broken", "Gadget", "function GetReplicas(o) return"),
    );
    let out = run(&["check"], &kubeconfig);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("SOURCE: broken"), "{stdout}");
    assert!(stdout.contains("ERROR:"), "{stdout}");
    assert!(text(&out.stderr).contains("2 document(s) checked, 1 passed, 1 with problems"));
}

#[test]
fn list_kubeconfig_shows_the_cluster_customizations_first() {
    let (_rt, server) = mock();
    let dir = crate::support::scratch("list");
    let kubeconfig = server.kubeconfig(&dir);
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("good", "Widget", "function GetReplicas(o) return 2 end"),
    );
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("broken", "Gadget", "function GetReplicas(o) return"),
    );
    let out = run(&["list"], &kubeconfig);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert_ok(&out, "list --kubeconfig");
    let row = stdout
        .lines()
        .find(|l| l.contains("Widget"))
        .unwrap_or_else(|| panic!("{stdout}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "example.io/v1",
            "Widget",
            "InterpretReplica",
            "declarative",
            "good"
        ]
    );
    assert!(!stdout.contains("Gadget"), "the rejected one is not served");
    assert!(stderr.contains("\"broken\" is rejected"), "{stderr}");
}

/// Kills the child (by its own id) if a test fails before stopping it.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_kubeconfig_serves_the_cluster_customizations_live() {
    let (_rt, server) = mock();
    let dir = crate::support::scratch("serve");
    let kubeconfig = server.kubeconfig(&dir);
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("w", "Widget", "function GetReplicas(o) return 2 end"),
    );
    let config = dir.join("webhook.json");
    let mut child = Guard(
        Command::new(BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--write-config"])
            .arg(&config)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while !config.exists() {
        if let Ok(Some(status)) = child.0.try_wait() {
            panic!("serve exited early: {status}");
        }
        assert!(Instant::now() < deadline, "serve did not start in 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Call the served webhook as Karmada would.
    let configs = load::webhook_configurations_from_file(&config).unwrap();
    let chain = Interpreter::builder()
        .webhook_configurations(configs)
        .thirdparty(false)
        .native(false)
        .build()
        .unwrap();
    let replicas = || {
        chain
            .get_replicas(&widget("Widget"))
            .map(|a| a.value.replicas)
    };
    assert_eq!(replicas().unwrap(), 2);

    let eventually = |expected: Option<i32>| {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let got = replicas().ok();
            if got == expected {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "expected {expected:?}, got {got:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    // Modified in the cluster: the next call sees it, no restart.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("w", "Widget", "function GetReplicas(o) return 3 end"),
    );
    eventually(Some(3));
    // Deleted: the kind is no longer served.
    server.delete(CUSTOMIZATIONS, "w");
    eventually(None);
}

#[test]
fn cluster_failures_are_named_errors() {
    let dir = crate::support::scratch("fail");
    let missing = dir.join("missing.yaml");
    let out = run(&["check"], &missing);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("kubeconfig") && stderr.contains("missing.yaml"),
        "{stderr}"
    );

    // A server that is not there: the first list never completes.
    let (rt, server) = mock();
    let kubeconfig = server.kubeconfig(&dir);
    drop(rt); // stops the server
    let out = run(&["list", "--sync-timeout", "1"], &kubeconfig);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("did not complete in 1s"), "{stderr}");
}

#[test]
fn test_kubeconfig_runs_cases_against_the_cluster_customizations() {
    let (_rt, server) = mock();
    let dir = crate::support::scratch("test");
    let kubeconfig = server.kubeconfig(&dir);
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    std::fs::write(
        cases.join("widget-test.yaml"),
        "name: widget replicas\noperation: InterpretReplica\ndesiredObj:\n  apiVersion: example.io/v1\n  kind: Widget\n  metadata: {name: w, namespace: default}\noutput:\n  replica: 2\n",
    )
    .unwrap();
    let cases = cases.to_str().unwrap();
    // Without a cluster nothing serves Widget.
    let out = Command::new(BIN).args(["test", cases]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));

    server.apply(
        CUSTOMIZATIONS,
        widget_customization("w", "Widget", "function GetReplicas(o) return 2 end"),
    );
    let out = run(&["test", cases], &kubeconfig);
    assert_ok(&out, "test --kubeconfig");

    server.apply(
        CUSTOMIZATIONS,
        widget_customization("w", "Widget", "function GetReplicas(o) return 3 end"),
    );
    let out = run(&["test", cases], &kubeconfig);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}

/// A Deployment in `namespace` with a secret in its environment and an
/// annotation, as the API server holds it (managedFields included).
fn deployment(namespace: &str, name: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name},
                     "annotations": {"example.io/token": "s3cret-token"},
                     "managedFields": [{"manager": "kubectl", "operation": "Apply"}]},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "app", "image": "registry.example.io/app:1",
                                                        "env": [{"name": "PASSWORD", "value": "hunter2"}]}]}}},
        "status": {"replicas": 3, "readyReplicas": 3, "updatedReplicas": 3, "availableReplicas": 3,
                   "observedGeneration": 1}
    })
}

fn files_text(dir: &Path) -> String {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn capture_writes_reviewable_cases_with_redaction_and_binding_status_items() {
    let (_rt, server) = mock();
    let dir = crate::support::scratch("capture");
    let kubeconfig = server.kubeconfig(&dir);
    server.put("deployments", deployment("shop", "web"));
    server.put("deployments", deployment("other", "api"));
    server.put(
        "resourcebindings",
        serde_json::json!({
            "apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding",
            "metadata": {"name": "web-deployment", "namespace": "shop"},
            "spec": {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "namespace": "shop"}},
            "status": {"aggregatedStatus": [
                {"clusterName": "member1", "applied": true, "health": "Healthy",
                 "status": {"replicas": 2, "readyReplicas": 2, "updatedReplicas": 2, "availableReplicas": 2,
                            "observedGeneration": 1}},
                {"clusterName": "member2", "applied": true, "health": "Unhealthy",
                 "status": {"replicas": 1, "readyReplicas": 0, "updatedReplicas": 1, "availableReplicas": 0,
                            "observedGeneration": 1}}]}
        }),
    );
    let cases = dir.join("cases");
    let out = run(
        &[
            "capture",
            "--api-version",
            "apps/v1",
            "--kind",
            "Deployment",
            "-n",
            "shop",
            "--bindings",
            "--redact",
            "spec.template.spec.containers[*].env",
            "--redact",
            "$.metadata.annotations['example.io/token']",
            "--out",
            cases.to_str().unwrap(),
        ],
        &kubeconfig,
    );
    assert_ok(&out, "capture");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("from 1 Deployment(s)"), "{stderr}");
    for op in [
        "interpretreplica",
        "aggregatestatus",
        "interprethealth",
        "interpretstatus",
    ] {
        assert!(
            cases.join(format!("{op}-captured.yaml")).is_file(),
            "{op}: {stderr}"
        );
    }
    let all = files_text(&cases);
    // Only the object asked for, redacted, without managedFields.
    assert!(
        all.contains("captured shop/web") && !all.contains("other/api"),
        "{all}"
    );
    for secret in ["hunter2", "s3cret-token", "managedFields"] {
        assert!(!all.contains(secret), "{secret} in:\n{all}");
    }
    assert!(all.contains("REDACTED"), "{all}");
    assert!(
        all.contains("spec.template.spec.containers[0].env")
            && all.contains("metadata.annotations['example.io/token']"),
        "the redacted places are listed: {all}"
    );
    // Marked for review, with the header saying what the files are.
    assert!(
        all.starts_with("# Captured by `karmada-interpreter capture` from kubeconfig "),
        "{all}"
    );
    assert!(
        all.contains("captured:\n") && all.contains("interpreter: builtin"),
        "{all}"
    );
    // AggregateStatus holds the binding's per-cluster items.
    let aggregate = std::fs::read_to_string(cases.join("aggregatestatus-captured.yaml")).unwrap();
    assert!(
        aggregate.contains("clusterName: member1")
            && aggregate.contains("clusterName: member2")
            && aggregate.contains("binding: ResourceBinding shop/web-deployment"),
        "{aggregate}"
    );
    // What the editor's schema says of them is what `test` says: valid.
    let schema = karmada_interpreter_golden::schema::case();
    let validator = crate::schema_cli::validator(&schema);
    for file in std::fs::read_dir(&cases).unwrap() {
        let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
        for doc in crate::schema_cli::documents(&text) {
            let complaints = crate::schema_cli::complaints(&validator, &doc);
            assert!(complaints.is_empty(), "{complaints:?}");
        }
    }
    let replica = std::fs::read_to_string(cases.join("interpretreplica-captured.yaml")).unwrap();
    assert!(replica.contains("replica: 3"), "{replica}");

    // The cases pass as written, each with a finding asking for review.
    let t = Command::new(BIN).arg("test").arg(&cases).output().unwrap();
    let report = text(&t.stdout);
    assert_ok(&t, "test of the captured cases");
    assert!(
        report.contains("finding: captured from a cluster, not yet reviewed"),
        "{report}"
    );
    assert!(report.contains(" 0 failed"), "{report}");

    // A second capture does not overwrite them.
    let again = run(
        &[
            "capture",
            "--api-version",
            "apps/v1",
            "--kind",
            "Deployment",
            "--name",
            "web",
            "--out",
            cases.to_str().unwrap(),
        ],
        &kubeconfig,
    );
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
    assert!(text(&again.stderr).contains("does not overwrite"));
}

#[test]
fn capture_redacts_secret_data_always_and_answers_with_the_customizations_given() {
    let (_rt, server) = mock();
    let dir = crate::support::scratch("capture-secret");
    let kubeconfig = server.kubeconfig(&dir);
    server.put(
        "secrets",
        serde_json::json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db", "namespace": "shop"}, "type": "Opaque",
            "data": {"password": "aHVudGVyMg=="}, "stringData": {"user": "admin"}}),
    );
    let custom = dir.join("secret-health.yaml");
    std::fs::write(
        &custom,
        crate::support::customization::Customization::new("secret-health", "v1", "Secret")
            .rule(
                "healthInterpretation",
                "function InterpretHealth(observedObj)\n  return observedObj.data ~= nil and observedObj.data.password ~= nil\nend\n",
            )
            .yaml(),
    )
    .unwrap();
    let cases = dir.join("cases");
    let out = run(
        &[
            "capture",
            "--api-version",
            "v1",
            "--kind",
            "Secret",
            "--customizations",
            custom.to_str().unwrap(),
            "--out",
            cases.to_str().unwrap(),
        ],
        &kubeconfig,
    );
    assert_ok(&out, "capture of a Secret");
    let health = std::fs::read_to_string(cases.join("interprethealth-captured.yaml")).unwrap();
    assert!(
        !health.contains("aHVudGVyMg==") && !health.contains("admin"),
        "{health}"
    );
    // Base64 of REDACTED: the data stays valid base64.
    assert!(health.contains("password: UkVEQUNURUQ="), "{health}");
    assert!(health.contains("healthy: true"), "{health}");
    assert!(
        health.contains(&format!("interpreter: builtin + {}", custom.display())),
        "{health}"
    );
    assert!(
        health.contains("- data.password") && health.contains("- stringData.user"),
        "{health}"
    );

    // Operations whose inputs one object does not give are refused.
    let out = run(
        &[
            "capture",
            "--api-version",
            "v1",
            "--kind",
            "Secret",
            "--operation",
            "Retain",
            "--out",
            cases.to_str().unwrap(),
        ],
        &kubeconfig,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Retain needs the member cluster's copy too"));
    // Nothing of the kind: an error, not empty files.
    let out = run(
        &[
            "capture",
            "--api-version",
            "v1",
            "--kind",
            "ConfigMap",
            "--out",
            dir.join("none").to_str().unwrap(),
        ],
        &kubeconfig,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("no v1 ConfigMap found"),
        "{}",
        text(&out.stderr)
    );
}
