//! `check`, `list` and `serve` with `--kubeconfig`, through the binary,
//! against the in-process API server (plain http on loopback).

use crate::cli_support::mock_apiserver;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

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

/// Customization `good` (Widget: 2 replicas) and `broken` (Gadget: `script`).
fn good_and_broken(server: &MockApiServer, script: &str) {
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("good", "Widget", "function GetReplicas(o) return 2 end"),
    );
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("broken", "Gadget", script),
    );
}

#[test]
fn list_kubeconfig_shows_the_cluster_customizations_first() {
    let (_rt, server) = mock();
    let dir = crate::support::scratch("list");
    let kubeconfig = server.kubeconfig(&dir);
    good_and_broken(&server, "function GetReplicas(o) return");
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

/// `serve --kubeconfig` with `extra` arguments, started (its webhook
/// configuration written).
fn serve(dir: &Path, kubeconfig: &Path, extra: &[&str]) -> (Guard, std::path::PathBuf) {
    let config = dir.join("webhook.json");
    let mut child = Guard(
        Command::new(BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--write-config"])
            .arg(&config)
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .args(extra)
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
    (child, config)
}

#[test]
fn serve_report_writes_the_status_annotation_and_events() {
    let (_rt, server) = mock();
    let dir = crate::support::scratch("report");
    let kubeconfig = server.kubeconfig(&dir);
    good_and_broken(&server, "function GetReplicas(o)\n  return 2 +\nend");
    let _child = serve(&dir, &kubeconfig, &["--report", "all"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let annotated = |name: &str| {
        server.object(CUSTOMIZATIONS, name).and_then(|o| {
            o["metadata"]["annotations"]["karmada-interpreter.io/status"]
                .as_str()
                .map(str::to_owned)
        })
    };
    loop {
        let rejected = server
            .events()
            .into_iter()
            .find(|e| e["reason"] == "Rejected");
        if let (Some(event), Some(good), Some(broken)) =
            (rejected, annotated("good"), annotated("broken"))
        {
            assert_eq!(event["regarding"]["name"], "broken");
            assert!(
                event["note"].as_str().unwrap().contains("script line 3"),
                "{event}"
            );
            assert!(good.contains(r#""status":"True""#), "{good}");
            assert!(broken.contains(r#""reason":"Rejected""#), "{broken}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no status written: {:?}",
            server.requests()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A chain that calls the webhook `serve` wrote the configuration of (at
/// `config`) as Karmada would: that webhook alone.
fn calling(config: &Path) -> Interpreter {
    Interpreter::builder()
        .webhook_configurations(load::webhook_configurations_from_file(config).unwrap())
        .thirdparty(false)
        .native(false)
        .build()
        .unwrap()
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
    let (_child, config) = serve(&dir, &kubeconfig, &[]);
    // Call the served webhook as Karmada would.
    let chain = calling(&config);
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

/// The customizations `serve --kubeconfig` follows run under the command
/// line's profile, as `-f` files do: with `--profile karmada-next` their
/// scripts have `kube.parseFlinkMemory` (PR #7537), without it they do not.
#[cfg(feature = "karmada-next")]
#[test]
fn serve_kubeconfig_follows_the_cluster_customizations_under_the_profile() {
    let (_rt, server) = mock();
    let script = "function GetReplicas(o) local kube = require('kube') \
                  if kube.parseFlinkMemory == nil then return 1 end \
                  return kube.parseFlinkMemory('3b') end";
    server.apply(CUSTOMIZATIONS, widget_customization("w", "Widget", script));
    for (extra, expected) in [
        (&["--profile", "karmada-next"][..], 3),
        (&["--profile", "karmada"][..], 1),
    ] {
        let dir = crate::support::scratch("serve-profile");
        let kubeconfig = server.kubeconfig(&dir);
        let (_child, config) = serve(&dir, &kubeconfig, extra);
        let chain = calling(&config);
        let replicas = chain
            .get_replicas(&widget("Widget"))
            .map(|a| a.value.replicas);
        assert_eq!(replicas.unwrap(), expected, "{extra:?}");
    }
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

/// The whole rollout against the in-process API server: `serve --admission
/// --report all` follows the cluster and reviews what is created in it. A
/// broken customization and a second one for a served rule are refused
/// before they reach the cluster; the same second one as a shadow is let
/// in, and its status and comparisons follow; every review is counted.
#[test]
fn admission_status_and_shadow_end_to_end() {
    let (rt, server) = mock();
    let dir = crate::support::scratch("rollout");
    let kubeconfig = server.kubeconfig(&dir);
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("live", "Widget", "function GetReplicas(o) return 2 end"),
    );
    let kubeconfig = kubeconfig.display().to_string();
    let serve = crate::cli_support::serve_process::start(
        BIN,
        "rollout",
        &[
            "--admission",
            "--report",
            "all",
            "--kubeconfig",
            &kubeconfig,
        ],
    );
    let create = |object: Value| {
        rt.block_on(server.create_admitted(CUSTOMIZATIONS, object, serve.addr, &serve.ca))
    };

    // Broken: refused at its line, never stored.
    let broken = widget_customization(
        "broken",
        "Gadget",
        "function GetReplicas(o)\n  return 2 +\nend",
    );
    let response = create(broken);
    assert_eq!(response["allowed"], false, "{response}");
    let message = response["status"]["message"].as_str().unwrap();
    assert!(message.contains("script line 3"), "{message}");
    assert!(server.object(CUSTOMIZATIONS, "broken").is_none());

    // A second InterpretReplica for Widget: refused (Karmada would run one).
    let next = widget_customization(
        "live-next",
        "Widget",
        "function GetReplicas(o) return 3 end",
    );
    let response = create(next.clone());
    assert_eq!(response["allowed"], false, "{response}");
    assert!(
        response["status"]["message"]
            .as_str()
            .unwrap()
            .contains("ResourceInterpreterCustomization(live)"),
        "{response}"
    );

    // The same as a shadow: let in; it does not answer, its status says so.
    let mut shadow = next;
    shadow["metadata"]["annotations"] =
        serde_json::json!({"karmada-interpreter.io/shadow": "true"});
    assert_eq!(create(shadow)["allowed"], true);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        let status = server.object(CUSTOMIZATIONS, "live-next").and_then(|o| {
            o["metadata"]["annotations"]["karmada-interpreter.io/status"]
                .as_str()
                .map(str::to_owned)
        });
        if let Some(status) = status {
            break status;
        }
        assert!(Instant::now() < deadline, "no status on the shadow");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.contains("does not answer; runs InterpretReplica beside live"),
        "{status}"
    );

    // Karmada calls the webhook: the live answer, the shadow compared.
    let chain = calling(&serve.dir().join("webhook.json"));
    let answer = chain.get_replicas(&widget("Widget")).unwrap();
    assert_eq!(answer.value.replicas, 2);
    let get = |path: &'static str| {
        rt.block_on(async {
            let send = crate::serve_operable::connect(serve.addr, &serve.ca).await;
            crate::serve_operable::call(send, serve.addr.port(), path, None).await
        })
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let page: Value = loop {
        let (code, text) = get("/debug/shadow");
        assert_eq!(code, 200, "{text}");
        let page: Value = serde_json::from_str(&text).unwrap();
        if page["examples"].as_array().is_some_and(|e| !e.is_empty()) {
            break page;
        }
        assert!(Instant::now() < deadline, "no comparison: {page}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let example = &page["examples"][0];
    assert_eq!(example["customization"], "live-next");
    assert_eq!(example["result"], "answer_differs");
    assert_eq!(
        page["counts"][0],
        serde_json::json!({"customization": "live-next", "operation": "InterpretReplica",
                           "result": "answer_differs", "count": 1})
    );

    // Every review counted, and the comparison.
    let (code, metrics) = get("/metrics");
    assert!(
        metrics.contains("karmada_interpreter_shadow_comparisons_total{customization=\"live-next\",operation=\"InterpretReplica\",result=\"answer_differs\"} 1"),
        "{metrics}"
    );
    assert_eq!(code, 200);
    for (result, n) in [("denied", 2), ("allowed", 1)] {
        let line = format!("karmada_interpreter_admission_reviews_total{{kind=\"ResourceInterpreterCustomization\",result=\"{result}\"}} {n}");
        assert!(metrics.lines().any(|l| l == line), "{line} in\n{metrics}");
    }
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
