//! `test --webhook-config FILE --suite protocol|robustness`: the suites
//! that need no cases. The project's own `serve` passes them; a webhook
//! broken in one way each (an in-process SDK server with a closure handler
//! around the workload example) fails the check made for that bug, with a
//! message naming the Karmada behaviour at stake. Every server here listens
//! on 127.0.0.1 and stops by itself.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use karmada_interpreter::webhook::sdk::{self, Request, Response};
use karmada_interpreter::webhook::server::{RunningServer, Server};
use karmada_interpreter::webhook::tls::TlsIdentity;
use serde_json::{json, Value};

use crate::cli_support::{serve_process, workload_example};
use crate::support::{bin, scratch, text};

const BIN: &str = env!("CARGO_BIN_EXE_karmada-interpreter");

/// The operations the test configuration declares for Workload (the others
/// are "unserved").
const SERVED: [&str; 5] = [
    "InterpretReplica",
    "ReviseReplica",
    "Retain",
    "AggregateStatus",
    "InterpretHealth",
];

/// Starts `handler` (with `max_body` as the server's body limit) behind a
/// configuration declaring [`SERVED`] with a 2 s timeout; gives the server
/// (kept alive by the caller) and the configuration file.
fn start(
    dir: &Path,
    handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    max_body: Option<usize>,
) -> (RunningServer, PathBuf) {
    let id = TlsIdentity::self_signed(&["localhost", "127.0.0.1"]).unwrap();
    let ca = id.cert_pem.clone();
    let mut server = Server::new(id).route(workload_example::PATH, handler);
    if let Some(limit) = max_body {
        server = server.max_body_bytes(limit);
    }
    let server = server.start("127.0.0.1:0".parse().unwrap()).unwrap();
    let file = config_file(dir, server.local_addr().port(), &ca);
    (server, file)
}

/// The configuration of a webhook on 127.0.0.1:`port` trusting `ca`:
/// [`SERVED`] for Workload, a 2 s timeout.
fn config_file(dir: &Path, port: u16, ca: &str) -> PathBuf {
    let url = format!("https://127.0.0.1:{port}{}", workload_example::PATH);
    let mut config = workload_example::configuration(&url, ca);
    config["webhooks"][0]["rules"][0]["operations"] = json!(SERVED);
    config["webhooks"][0]["timeoutSeconds"] = json!(2);
    let file = dir.join("webhook.json");
    std::fs::write(&file, serde_json::to_string(&config).unwrap()).unwrap();
    file
}

/// What a hand-written webhook does with a request.
#[derive(Clone, Copy)]
enum Raw {
    /// The workload example's answer.
    Answer,
    /// The workload example's answer with `Connection: close`, the
    /// connection closed after it (a server without keep-alive).
    AnswerAndClose,
    /// `HTTP 500` with an empty body.
    EmptyServerError,
    /// Closes the connection without answering (a Go handler's panic:
    /// net/http recovers and drops the connection).
    Drop,
}

/// Stops a hand-written webhook when dropped.
struct RawServer(Arc<std::sync::atomic::AtomicBool>);

impl Drop for RawServer {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// A webhook written by hand over TLS and HTTP/1.1, so that it can answer
/// what the SDK server never does; `decide` picks what each request (its
/// JSON, or null) gets.
fn start_raw(dir: &Path, decide: fn(&Value) -> Raw) -> (RawServer, PathBuf) {
    use std::io::Write;
    let id = TlsIdentity::self_signed(&["localhost", "127.0.0.1"]).unwrap();
    let mut tls = id.server_config().unwrap();
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    let tls = Arc::new(tls);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        while !stopped.load(Ordering::SeqCst) {
            let Ok((tcp, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            let tls = tls.clone();
            std::thread::spawn(move || {
                tcp.set_nonblocking(false).unwrap();
                tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let conn = rustls::ServerConnection::new(tls).unwrap();
                let mut stream = rustls::StreamOwned::new(conn, tcp);
                // Keep-alive, as Go's server: requests one after the other
                // until the client closes or idles for 5 s.
                loop {
                    let raw = crate::support::http1::read_request(&mut stream);
                    let Some(at) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
                        return;
                    };
                    let body = &raw[at + 4..];
                    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
                    let decided = decide(&request);
                    let (status, answer) = match decided {
                        Raw::Drop => return,
                        Raw::EmptyServerError => (500, Vec::new()),
                        Raw::Answer | Raw::AnswerAndClose => {
                            let a = sdk::handle_http(
                                &workload_example::handle,
                                "POST",
                                Some("application/json"),
                                sdk::Body::Bytes(body),
                            );
                            (a.status, a.body)
                        }
                    };
                    let close = matches!(decided, Raw::AnswerAndClose);
                    let head = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}\r\n",
                        answer.len(),
                        if close { "Connection: close\r\n" } else { "" }
                    );
                    let written = stream
                        .write_all(head.as_bytes())
                        .and_then(|()| stream.write_all(&answer))
                        .and_then(|()| stream.flush());
                    if written.is_err() || close {
                        stream.conn.send_close_notify();
                        let _ = stream.flush();
                        return;
                    }
                }
            });
        }
    });
    (RawServer(stop), config_file(dir, port, &id.cert_pem))
}

/// Runs the suite with `-o json`: the exit code and the checks.
fn suite(config: &Path, suite: &str, extra: &[&str]) -> (Option<i32>, Vec<Value>) {
    let out = bin()
        .args(["test", "--webhook-config"])
        .arg(config)
        .args(["--suite", suite, "-o", "json"])
        .args(extra)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&out.stdout), text(&out.stderr)));
    (
        out.status.code(),
        report["cases"].as_array().cloned().unwrap_or_default(),
    )
}

/// The check whose name starts with `name`.
fn check<'a>(checks: &'a [Value], name: &str) -> &'a Value {
    checks
        .iter()
        .find(|c| c["name"].as_str().is_some_and(|n| n.starts_with(name)))
        .unwrap_or_else(|| panic!("no check {name:?} in {checks:#?}"))
}

/// Asserts the check failed with a line containing each of `words`, and
/// that it names the Karmada behaviour at stake.
fn assert_failed(checks: &[Value], name: &str, words: &[&str]) {
    let c = check(checks, name);
    assert_eq!(c["verdict"], "failed", "{c:#}");
    let lines = c["differences"].to_string();
    for w in words {
        assert!(lines.contains(w), "{name}: no {w:?} in {c:#}");
    }
    assert!(lines.contains("Karmada behaviour at stake"), "{c:#}");
}

/// Runs `suite_name` against `handler` (behind [`start`]) and asserts the
/// run fails, with the check `name` failed as [`assert_failed`] says.
fn fails(
    tag: &str,
    handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    max_body: Option<usize>,
    suite_name: &str,
    name: &str,
    words: &[&str],
) {
    let dir = scratch(tag);
    let (_server, config) = start(&dir, handler, max_body);
    let (code, checks) = suite(&config, suite_name, &[]);
    assert_eq!(code, Some(1), "{name}: {:#?}", failed_names(&checks));
    assert_failed(&checks, name, words);
}

fn failed_names(checks: &[Value]) -> Vec<String> {
    checks
        .iter()
        .filter(|c| c["verdict"] == "failed")
        .map(|c| format!("{} {}", c["name"], c["differences"]))
        .collect()
}

#[test]
fn serve_passes_the_protocol_and_robustness_suites() {
    let serve = serve_process::start(BIN, "robustness", &[]);
    let config = serve.dir().join("webhook.json");
    for name in ["protocol", "robustness"] {
        let (code, checks) = suite(&config, name, &["--strict"]);
        assert!(checks.len() > 20, "{name}: {} checks", checks.len());
        assert_eq!(code, Some(0), "{name}: {:#?}", failed_names(&checks));
    }
    // JUnit: one testcase per check, grouped per suite and webhook.
    let out = bin()
        .args(["test", "--webhook-config"])
        .arg(&config)
        .args(["--suite", "robustness", "-o", "junit"])
        .output()
        .unwrap();
    let xml = text(&out.stdout);
    assert!(
        xml.contains("<testsuite name=\"robustness: karmada-interpreter/"),
        "{xml}"
    );
    for name in [
        "largest-object",
        "malformed-body",
        "concurrent x16",
        "slow-reader",
        "refuse-unknown-version",
    ] {
        assert!(
            xml.contains(&format!("<testcase name=\"{name}")),
            "{name}: {xml}"
        );
    }
}

#[test]
fn the_workload_example_passes_every_suite() {
    let dir = scratch("robustness-example");
    let (_server, config) = start(&dir, workload_example::handle, None);
    let (code, checks) = suite(&config, "all", &[]);
    // `all` with no PATH also runs the bundled cases, which the example's
    // rules match none of: skipped.
    assert_eq!(code, Some(0), "{:#?}", failed_names(&checks));
    check(&checks, "unserved-operation InterpretDependency");
    check(&checks, "unserved-kind");
}

#[test]
fn a_webhook_hanging_on_an_unserved_operation_fails_it() {
    fails(
        "robustness-hang",
        |req: &Request| {
            if !SERVED.contains(&req.operation_name.as_str()) {
                std::thread::sleep(Duration::from_secs(3));
            }
            workload_example::handle(req)
        },
        None,
        "robustness",
        "unserved-operation InterpretStatus",
        &[
            "no answer within timeoutSeconds (2s)",
            "waits up to timeoutSeconds",
        ],
    );
}

#[test]
fn a_webhook_reading_desired_replicas_outside_revise_replica_is_a_doubt_or_with_strict_a_failure() {
    let dir = scratch("robustness-replicas");
    let (_server, config) = start(
        &dir,
        |req: &Request| {
            if req.operation_name == "AggregateStatus" {
                let object = req.object.clone().unwrap_or_default();
                let mut wanted = object.clone();
                // The third-party bug: ready when readyReplicas reaches desiredReplicas.
                wanted["status"] = json!({"ready": req.desired_replicas.unwrap_or(0) <= 3});
                return sdk::patch_response(&object, &wanted);
            }
            workload_example::handle(req)
        },
        None,
    );
    let (code, checks) = suite(&config, "protocol", &[]);
    assert_eq!(code, Some(0), "{:#?}", failed_names(&checks));
    let c = check(&checks, "replicas-ignored AggregateStatus");
    assert!(
        c["findings"]
            .to_string()
            .contains("depends on `replicas` outside ReviseReplica"),
        "{c:#}"
    );
    let (code, checks) = suite(&config, "protocol", &["--strict"]);
    assert_eq!(code, Some(1));
    assert_failed(
        &checks,
        "replicas-ignored AggregateStatus",
        &[
            "semantic doubt (--strict)",
            "sends 0 with every other operation",
        ],
    );
}

#[test]
fn a_webhook_crashing_without_replicas_fails_replicas_absent() {
    fails(
        "robustness-no-replicas",
        |req: &Request| {
            // Go: `*req.DesiredReplicas`.
            let _replicas = req.desired_replicas.expect("desiredReplicas is always set");
            workload_example::handle(req)
        },
        None,
        "protocol",
        "replicas-absent InterpretReplica",
        &["without `replicas`", "Go *int32"],
    );
}

#[test]
fn a_webhook_answering_an_unknown_operation_with_an_empty_error_fails() {
    fails(
        "robustness-no-message",
        |req: &Request| {
            if req.operation_name == "InterpretFuture" {
                return sdk::errored(500, "");
            }
            workload_example::handle(req)
        },
        None,
        "robustness",
        "unknown-operation",
        &[
            "without status.message",
            "newer Karmada versions add operations",
        ],
    );
}

/// Karmada's Go SDK reads 1 MiB of a request.
#[test]
fn a_webhook_cutting_large_bodies_fails_largest_object() {
    fails(
        "robustness-large",
        workload_example::handle,
        Some(1 << 20),
        "robustness",
        "largest-object Retain",
        &["response.uid must echo", "etcd's 1.5 MiB"],
    );
}

#[test]
fn a_webhook_answering_differently_under_concurrency_fails() {
    let calls = Arc::new(AtomicUsize::new(0));
    fails(
        "robustness-concurrent",
        move |req: &Request| {
            let mut r = workload_example::handle(req);
            if req.operation_name == "InterpretReplica" {
                r.replicas = Some((calls.fetch_add(1, Ordering::SeqCst) % 3) as i32);
            }
            r
        },
        None,
        "robustness",
        "concurrent x16 InterpretReplica",
        &["got a different answer than request 1", "flap"],
    );
}

#[test]
fn suite_usage_errors() {
    let dir = scratch("robustness-usage");
    let (_server, config) = start(&dir, workload_example::handle, None);
    let out = bin()
        .args(["test", "--suite", "robustness"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--webhook-config"));
    let out = bin()
        .args(["test", "--webhook-config"])
        .arg(&config)
        .args(["--suite", "protocol", "some/cases"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("need no cases"));
}

/// The third-party bug `--cross-check` is for: InterpretReplica answered
/// from the envelope's `replicas` (desiredReplicas, 0 on every request but
/// ReviseReplica) instead of the object's `spec.replicas`.
fn replicas_from_the_envelope(req: &Request) -> Response {
    if req.operation_name == "InterpretReplica" {
        let mut r = sdk::succeeded("");
        r.replicas = Some(req.desired_replicas.unwrap_or(0));
        return r;
    }
    workload_example::handle(req)
}

/// A customization file answering InterpretReplica for Workload as Karmada
/// means it: `spec.replicas`, 1 when absent.
fn reference_customization(dir: &Path) -> PathBuf {
    let file = dir.join("reference.yaml");
    let text = crate::support::customization::Customization::new(
        "workload-reference",
        "workload.example.io/v1alpha1",
        "Workload",
    )
    .rule(
        "replicaResource",
        "function GetReplicas(obj)\n  local r = obj.spec and obj.spec.replicas\n  if r == nil then r = 1 end\n  return r, nil\nend\n",
    )
    .yaml();
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn cross_check_lists_where_a_webhook_answers_otherwise_than_the_reference() {
    let dir = scratch("cross-check");
    let (_server, config) = start(&dir, replicas_from_the_envelope, None);
    let reference = reference_customization(&dir);
    let reference_arg = reference.to_str().unwrap();

    // The protocol suite: the Karmada-shaped request's answer is compared,
    // no case needed; a doubt, a failure with --strict.
    let (code, checks) = suite(&config, "protocol", &["--cross-check", reference_arg]);
    assert_eq!(code, Some(0), "{:#?}", failed_names(&checks));
    let c = check(&checks, "karmada-shaped InterpretReplica");
    let findings = c["findings"].to_string();
    assert!(
        findings.contains(&format!(
            "cross-check: InterpretReplica `replica`: {reference_arg} answers 3, the webhook 0"
        )),
        "{c:#}"
    );
    // The minimal object too: no spec.replicas, 1 by the reference.
    let c = check(&checks, "minimal-object InterpretReplica");
    assert!(
        c["findings"].to_string().contains(&format!(
            "cross-check: InterpretReplica `replica`: {reference_arg} answers 1, the webhook 0"
        )),
        "{c:#}"
    );
    // Operations the reference does not serve are not compared.
    assert!(check(&checks, "karmada-shaped InterpretHealth")
        .get("findings")
        .is_none());
    let (code, checks) = suite(
        &config,
        "protocol",
        &["--cross-check", reference_arg, "--strict"],
    );
    assert_eq!(code, Some(1));
    assert_failed(
        &checks,
        "karmada-shaped InterpretReplica",
        &["semantic doubt (--strict): cross-check: InterpretReplica `replica`"],
    );

    // Golden cases: each case's answer is compared too, per case and
    // operation (the cases themselves state only part of the output here).
    let cases = dir.join("cases.yaml");
    std::fs::write(
        &cases,
        "name: six\noperation: InterpretReplica\ndesiredObj: {apiVersion: workload.example.io/v1alpha1, kind: Workload, metadata: {name: w, namespace: d}, spec: {replicas: 6}}\noutputContains: {requires: null}\n",
    )
    .unwrap();
    let out = bin()
        .args(["test", "--webhook-config"])
        .arg(&config)
        .arg(&cases)
        .args(["--cross-check", reference_arg])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(&format!(
            "finding: cross-check: InterpretReplica `replica`: {reference_arg} answers 6, the webhook 0"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 passed, 0 failed") && stdout.contains("1 findings"),
        "{stdout}"
    );
    let out = bin()
        .args(["test", "--webhook-config"])
        .arg(&config)
        .arg(&cases)
        .args(["--cross-check", reference_arg, "--strict"])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("cross-check (--strict): InterpretReplica `replica`"),
        "{stdout}"
    );

    // The example webhook agrees with the reference: nothing to report.
    let (_good, good_config) = start(&scratch("cross-check-good"), workload_example::handle, None);
    let (code, checks) = suite(
        &good_config,
        "protocol",
        &["--cross-check", reference_arg, "--strict"],
    );
    assert_eq!(code, Some(0), "{:#?}", failed_names(&checks));
}

#[test]
fn cross_check_usage_errors() {
    let out = bin()
        .args(["test", "--cross-check", "builtin"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--webhook-config"));
    let dir = scratch("cross-check-usage");
    let (_server, config) = start(&dir, workload_example::handle, None);
    let out = bin()
        .args(["test", "--webhook-config"])
        .arg(&config)
        .args(["--suite", "protocol", "--cross-check"])
        .arg(dir.join("missing.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("missing.yaml"),
        "{}",
        text(&out.stderr)
    );
}

/// A webhook that answers what it does not serve with HTTP 500 and an
/// empty body: Karmada logs an empty reason and cannot tell a refusal from
/// a crash.
#[test]
fn a_webhook_answering_500_with_an_empty_body_fails() {
    let dir = scratch("robustness-500-empty");
    let (_server, config) = start_raw(&dir, |request| {
        match request["request"]["operation"].as_str() {
            Some(op) if SERVED.contains(&op) => Raw::Answer,
            _ => Raw::EmptyServerError,
        }
    });
    let (code, checks) = suite(&config, "robustness", &[]);
    assert_eq!(code, Some(1), "{:#?}", failed_names(&checks));
    assert_failed(
        &checks,
        "unknown-operation",
        &[
            "HTTP 500 without a message",
            "newer Karmada versions add operations",
        ],
    );
    assert_failed(
        &checks,
        "unserved-operation InterpretStatus",
        &["HTTP 500 without a message", "waits up to timeoutSeconds"],
    );
    // What it serves it answers: those checks pass.
    let c = check(&checks, "concurrent x16");
    assert_eq!(c["verdict"], "passed", "{c:#}");
}

/// A webhook that drops the connection on a request without `replicas`
/// (a Go handler dereferencing the `*int32`: net/http recovers from the
/// panic and closes the connection).
#[test]
fn a_webhook_dropping_the_connection_fails() {
    let dir = scratch("robustness-drop");
    let (_server, config) = start_raw(&dir, |request| {
        if request["request"].get("replicas").is_none() {
            Raw::Drop
        } else {
            Raw::Answer
        }
    });
    let (code, checks) = suite(&config, "protocol", &[]);
    assert_eq!(code, Some(1), "{:#?}", failed_names(&checks));
    assert_failed(
        &checks,
        "replicas-absent InterpretReplica",
        &["the connection failed", "Go *int32"],
    );
    assert_eq!(
        check(&checks, "karmada-shaped InterpretReplica")["verdict"],
        "passed"
    );
}

/// A webhook that closes every connection after its answer (`Connection:
/// close`, no keep-alive) is no fault: every check passes. (The client
/// reused such a connection while it was closing, and the next call failed
/// with "connection: channel closed".)
#[test]
fn a_webhook_without_keep_alive_passes() {
    let dir = scratch("robustness-no-keep-alive");
    let (_server, config) = start_raw(&dir, |_| Raw::AnswerAndClose);
    for name in ["protocol", "robustness"] {
        let (code, checks) = suite(&config, name, &[]);
        assert_eq!(code, Some(0), "{name}: {:#?}", failed_names(&checks));
    }
}
