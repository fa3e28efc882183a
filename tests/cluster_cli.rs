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

/// `serve --kubeconfig` with `extra` flags, once it has written its
/// webhook configuration; and a chain that calls it as Karmada would.
fn serve(kubeconfig: &Path, dir: &Path, extra: &[&str]) -> (Guard, Interpreter) {
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
    let configs = load::webhook_configurations_from_file(&config).unwrap();
    let chain = Interpreter::builder()
        .webhook_configurations(configs)
        .thirdparty(false)
        .native(false)
        .build()
        .unwrap();
    (child, chain)
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
    let (_child, chain) = serve(&kubeconfig, &dir, &[]);
    // Call the served webhook as Karmada would.
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
        let (_child, chain) = serve(&kubeconfig, &dir, extra);
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
