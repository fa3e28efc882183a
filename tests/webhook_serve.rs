//! `karmada-interpreter serve` end to end: start the binary on loopback with
//! a self-signed certificate, run the conformance cases against it (library
//! runner and `karmada-interpreter test --webhook-config`), then stop it with
//! SIGTERM and check it shut down gracefully. `--print-config` with a
//! certificate directory is stable across runs.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use karmada_interpreter_golden::{Runner, Verdict, WebhookBackend};

use crate::support::{run_ok, BIN};

fn root() -> PathBuf {
    PathBuf::from(crate::support::ROOT)
}

/// A running `serve`, killed (by its own id) if a test fails before stopping it.
pub(crate) struct Guard(Option<Child>);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn wait_for(file: &Path, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !file.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("serve exited early: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "serve did not write its configuration in 30 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts `serve` (the command's arguments, plus `--write-config config`)
/// and waits until it has written its configuration.
pub(crate) fn start_serve(command: &mut Command, config: &Path) -> Guard {
    let child = command
        .arg("--write-config")
        .arg(config)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut guard = Guard(Some(child));
    wait_for(config, guard.0.as_mut().unwrap());
    guard
}

#[test]
fn serve_passes_the_conformance_cases_and_stops_gracefully() {
    let dir = crate::support::scratch("run");
    let config = dir.join("webhook.json");
    let mut guard = start_serve(
        Command::new(BIN)
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--timeout-seconds",
                "10",
                // Its standard error is read only at the end: no request lines.
                "--log-level",
                "warn",
            ])
            .stderr(Stdio::piped()),
        &config,
    );

    let configs = karmada_interpreter::load::webhook_configurations_from_file(&config).unwrap();
    // Every golden case the built-in set answers: native, bundled third-party
    // and the serve-specific ones, each sent over TLS to the running server.
    let all: Vec<PathBuf> = [
        "conformance/webhook/serve",
        "conformance/native",
        "thirdparty",
    ]
    .iter()
    .map(|d| root().join(d))
    .collect();
    let report = Runner::new(WebhookBackend::new(configs.clone()).unwrap())
        .run(&all)
        .unwrap();
    // AggregateStatus cases with `statusItems: []` run too (they used to be
    // skipped). The wire omits an empty list, so the webhook sees no list:
    // where a script tells `{}` from `nil` (`if statusItems == nil`), its
    // answer over the wire is the no-list answer, not the case's.
    let empty_items: std::collections::HashSet<(PathBuf, String)> =
        karmada_interpreter_golden::discover(&all)
            .unwrap()
            .into_iter()
            .flat_map(|f| karmada_interpreter_golden::load_cases(&f.path))
            .flatten()
            .filter(|c| c.status_items.as_ref().is_some_and(Vec::is_empty))
            .map(|c| (c.file, c.name))
            .collect();
    assert!(!empty_items.is_empty());
    let ran_empty = report
        .cases
        .iter()
        .filter(|c| empty_items.contains(&(c.file.clone(), c.name.clone())))
        .inspect(|c| assert!(!matches!(c.verdict, Verdict::Skipped(_)), "{}", c.render()))
        .count();
    assert!(
        ran_empty >= 15,
        "{ran_empty} cases with `statusItems: []` ran"
    );
    let failures: Vec<String> = report
        .cases
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Failed(_)))
        .filter(|c| !empty_items.contains(&(c.file.clone(), c.name.clone())))
        .map(|c| c.render())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(report.passed() > 1000, "{}", report.summary_line());
    let cases = root().join("conformance/webhook/serve");

    // The same through the CLI, as a webhook author without cargo would.
    let out = run_ok(
        Command::new(BIN)
            .arg("test")
            .arg("--webhook-config")
            .arg(&config)
            .arg(&cases),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.trim().split(" in ").next(),
        Some("5 passed, 0 failed")
    );

    // Graceful stop on SIGTERM (sent to our own child, by id).
    let mut child = guard.0.take().unwrap();
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("serve did not stop within 20 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{status}: {stderr}");
    assert!(stderr.contains("stopped"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn print_config_with_a_cert_dir_is_stable_and_valid() {
    let dir = crate::support::scratch("print");
    let certs = dir.join("certs");
    let print = || {
        let out = run_ok(
            Command::new(BIN)
                .args([
                    "serve",
                    "--listen",
                    "127.0.0.1:9443",
                    "--print-config",
                    "--service",
                    "karmada-interpreter",
                    "--service-namespace",
                    "karmada-system",
                    "--cert-dir",
                ])
                .arg(&certs),
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let first = print();
    assert_eq!(
        first,
        print(),
        "the printed configuration must not change between runs"
    );
    assert!(certs.join("tls.crt").is_file() && certs.join("tls.key").is_file());
    let configs =
        karmada_interpreter::load::webhook_configurations_from_str(&first, "printed").unwrap();
    karmada_interpreter::webhook::validate(&configs[0]).unwrap();
    let service = configs[0].webhooks[0]
        .client_config
        .service
        .as_ref()
        .unwrap();
    assert_eq!(
        (
            service.name.as_str(),
            service.namespace.as_str(),
            service.port
        ),
        ("karmada-interpreter", "karmada-system", Some(443))
    );
    let ca = &configs[0].webhooks[0]
        .client_config
        .ca_bundle
        .as_ref()
        .unwrap()
        .0;
    assert_eq!(ca, &std::fs::read(certs.join("tls.crt")).unwrap());

    // Without a certificate the printed caBundle could not match: refused.
    let out = Command::new(BIN)
        .args(["serve", "--print-config"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--print-config needs --cert/--key or --cert-dir"));
    let _ = std::fs::remove_dir_all(&dir);
}
