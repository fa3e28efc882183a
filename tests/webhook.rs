//! Webhook client and server over real TLS on loopback: the example Workload
//! webhook against its golden cases, client faults (each a clear error,
//! never a hang or a panic) and the server's answers to bad input.
//! Every server here listens on 127.0.0.1 and stops by itself.

use crate::cli_support::workload_example;
#[allow(dead_code)]
use crate::support::http1;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use karmada_interpreter::api::ResourceInterpreterWebhookConfiguration;
use karmada_interpreter::interpreter::Request;
use karmada_interpreter::webhook::client::WebhookClient;
use karmada_interpreter::webhook::sdk::{self, Response};
use karmada_interpreter::webhook::server::{RunningServer, Server};
use karmada_interpreter::webhook::tls::{self, TlsIdentity};
use karmada_interpreter::webhook::WebhookLayer;
use karmada_interpreter_golden::{Runner, WebhookBackend};
use serde_json::{json, Value};

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn identity() -> TlsIdentity {
    TlsIdentity::self_signed(&["localhost", "127.0.0.1"]).unwrap()
}

fn config(
    url: &str,
    ca_pem: &str,
    timeout: Option<i32>,
) -> ResourceInterpreterWebhookConfiguration {
    let mut c = workload_example::configuration(url, ca_pem);
    if let Some(t) = timeout {
        c["webhooks"][0]["timeoutSeconds"] = json!(t);
    }
    serde_json::from_value(c).unwrap()
}

fn workload() -> Value {
    json!({
        "apiVersion": "workload.example.io/v1alpha1", "kind": "Workload",
        "metadata": {"name": "checkout", "namespace": "shop"},
        "spec": {"replicas": 6, "template": {"spec": {"containers": [{"name": "app", "image": "app"}]}}},
        "status": {"readyReplicas": 6}
    })
}

/// Calls the webhook for `request` and returns the error text (the call must fail).
fn call_err(layer: &WebhookLayer, request: &Request<'_>) -> String {
    let (_, exchange) = layer.call(request).expect("a hook matches");
    match exchange.result {
        Ok(o) => panic!("expected an error, got {o:?}"),
        Err(e) => e.to_string(),
    }
}

fn start(handler: impl sdk::Handler + 'static) -> (RunningServer, String) {
    let id = identity();
    let ca = id.cert_pem.clone();
    let server = Server::new(id)
        .route(workload_example::PATH, handler)
        .start(loopback())
        .unwrap();
    (server, ca)
}

fn url_of(server: &RunningServer) -> String {
    format!(
        "https://127.0.0.1:{}{}",
        server.local_addr().port(),
        workload_example::PATH
    )
}

#[test]
fn example_workload_webhook_passes_its_golden_cases() {
    let (server, ca) = start(workload_example::handle);
    let runner =
        Runner::new(WebhookBackend::new(vec![config(&url_of(&server), &ca, None)]).unwrap());
    let dir = PathBuf::from(crate::support::ROOT).join("conformance/webhook/workload");
    let report = runner.run(&[dir]).unwrap();
    let failures: Vec<String> = report
        .cases
        .iter()
        .filter(|c| !matches!(c.verdict, karmada_interpreter_golden::Verdict::Passed))
        .map(|c| c.render())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(report.passed() >= 20, "{}", report.summary_line());
    server.stop();
}

#[test]
fn the_chain_calls_the_webhook() {
    let (server, ca) = start(workload_example::handle);
    let chain = karmada_interpreter::Interpreter::builder()
        .webhook_configurations([config(&url_of(&server), &ca, Some(5))])
        .build()
        .unwrap();
    let obj = workload();
    let answer = chain.revise_replica(&obj, 2).unwrap();
    assert_eq!(answer.value["spec"]["replicas"], 2);
    assert_eq!(answer.served_by.name, "examples/workloads.example.com");
    assert!(chain.interpret_health(&obj).unwrap().value);
    // From inside a tokio runtime too (the client then uses a helper thread).
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let replicas = rt.block_on(async { chain.get_replicas(&obj).unwrap().value.replicas });
    assert_eq!(replicas, 6);
}

#[test]
fn timeout_is_a_clear_error() {
    let slow = |_: &sdk::Request| -> Response {
        std::thread::sleep(Duration::from_millis(2500));
        sdk::succeeded("")
    };
    let (server, ca) = start(slow);
    let layer = WebhookLayer::new(vec![config(&url_of(&server), &ca, Some(1))]).unwrap();
    let obj = workload();
    let started = Instant::now();
    let err = call_err(&layer, &Request::InterpretHealth { object: &obj });
    // The server answers after 2.5 s; ending well before that proves the 1 s
    // timeout fired (with room for a loaded CI machine).
    assert!(
        started.elapsed() < Duration::from_millis(2400),
        "{:?}",
        started.elapsed()
    );
    assert!(
        err.starts_with("failed to call webhook: Post \"https://127.0.0.1:"),
        "{err}"
    );
    assert!(
        err.contains("?timeout=1s\": context deadline exceeded"),
        "{err}"
    );
}

#[test]
fn wrong_ca_is_a_clear_error() {
    let (server, _) = start(workload_example::handle);
    let other = identity();
    let layer = WebhookLayer::new(vec![config(&url_of(&server), &other.cert_pem, None)]).unwrap();
    let obj = workload();
    let err = call_err(&layer, &Request::InterpretHealth { object: &obj });
    assert!(err.starts_with("failed to call webhook: "), "{err}");
    assert!(
        err.contains("tls: the server's certificate is not signed by a certificate in caBundle"),
        "{err}"
    );
}

#[test]
fn missing_or_bad_ca_bundle_is_a_clear_error() {
    let layer = WebhookLayer::new(vec![config("https://127.0.0.1:1/x", "", None)]).unwrap();
    let obj = workload();
    let err = call_err(&layer, &Request::InterpretHealth { object: &obj });
    assert!(
        err.starts_with("could not get REST client: clientConfig.caBundle is empty"),
        "{err}"
    );
    let layer = WebhookLayer::new(vec![config("https://127.0.0.1:1/x", "not pem", None)]).unwrap();
    let err = call_err(&layer, &Request::InterpretHealth { object: &obj });
    assert!(
        err.starts_with("could not get REST client: unable to load root certificates"),
        "{err}"
    );
}

#[test]
fn connection_refused_is_a_clear_error() {
    let port = {
        let l = TcpListener::bind(loopback()).unwrap();
        l.local_addr().unwrap().port()
    };
    let ca = identity().cert_pem;
    let url = format!("https://127.0.0.1:{port}/x");
    let layer = WebhookLayer::new(vec![config(&url, &ca, None)]).unwrap();
    let obj = workload();
    let err = call_err(&layer, &Request::InterpretHealth { object: &obj });
    assert!(
        err.contains(&format!("dial tcp 127.0.0.1:{port}: ")),
        "{err}"
    );
    assert!(err.to_lowercase().contains("refused"), "{err}");
}

/// A TLS server that answers each of up to `count` connections with a fixed
/// HTTP response, then stops (or after 10 s).
fn canned(
    id: &TlsIdentity,
    status: u16,
    body: Vec<u8>,
    count: usize,
) -> (SocketAddr, std::thread::JoinHandle<()>) {
    canned_seq(id, vec![(status, String::new(), body); count])
}

/// Like [`canned`], answering the n-th connection with the n-th
/// (status, extra header lines, body).
fn canned_seq(
    id: &TlsIdentity,
    answers: Vec<(u16, String, Vec<u8>)>,
) -> (SocketAddr, std::thread::JoinHandle<()>) {
    let count = answers.len();
    // This canned server speaks HTTP/1.1 only, so it offers only that.
    let mut config = id.server_config().unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let config = Arc::new(config);
    let listener = TcpListener::bind(loopback()).unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let thread = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut served = 0;
        while served < count && Instant::now() < deadline {
            let Ok((tcp, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            served += 1;
            tcp.set_nonblocking(false).unwrap();
            tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let conn = rustls::ServerConnection::new(config.clone()).unwrap();
            let mut tls = rustls::StreamOwned::new(conn, tcp);
            // Read the head and the declared body.
            http1::read_request(&mut tls);
            let (status, extra, body) = &answers[served - 1];
            let head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = tls.write_all(head.as_bytes());
            let _ = tls.write_all(body);
            let _ = tls.flush();
            tls.conn.send_close_notify();
            let _ = tls.flush();
        }
    });
    (addr, thread)
}

fn canned_error(status: u16, body: &[u8], client: WebhookClient) -> String {
    let id = identity();
    let (addr, thread) = canned(&id, status, body.to_vec(), 1);
    let url = format!("https://127.0.0.1:{}/x", addr.port());
    let layer = WebhookLayer::new(vec![config(&url, &id.cert_pem, Some(5))])
        .unwrap()
        .with_client(client);
    let obj = workload();
    let err = call_err(&layer, &Request::InterpretHealth { object: &obj });
    thread.join().unwrap();
    err
}

#[test]
fn garbage_json_is_a_clear_error() {
    let err = canned_error(200, b"{\"response\": {\"uid\": ", WebhookClient::new());
    assert!(
        err.starts_with("failed to call webhook: couldn't get version/kind; json parse error"),
        "{err}"
    );
    let err = canned_error(200, b"<html>oops</html>", WebhookClient::new());
    assert!(err.starts_with("failed to call webhook: "), "{err}");
}

#[test]
fn uid_mismatch_is_a_clear_error() {
    let err = canned_error(
        200,
        br#"{"response":{"uid":"not-the-uid","successful":true,"healthy":true}}"#,
        WebhookClient::new(),
    );
    assert!(
        err.starts_with("received invalid webhook response: expected response.uid \""),
        "{err}"
    );
    assert!(err.ends_with("got \"not-the-uid\""), "{err}");
}

#[test]
fn http_errors_are_clear_errors() {
    let err = canned_error(500, b"internal trouble", WebhookClient::new());
    assert!(
        err.contains("internal trouble") && err.contains("HTTP status 500"),
        "{err}"
    );
}

#[test]
fn oversized_answers_are_refused() {
    let mut body = br#"{"response":{"uid":"x","successful":true,"rawStatus":{"pad":""#.to_vec();
    body.extend(std::iter::repeat_n(b'a', 64 * 1024));
    body.extend_from_slice(b"\"}}}");
    let err = canned_error(200, &body, WebhookClient::new().max_response_bytes(4096));
    assert!(
        err.contains("the answer is larger than the limit of 4096 bytes"),
        "{err}"
    );
}

#[test]
fn unsuccessful_answers_carry_the_webhook_message() {
    let (server, ca) = start(|_: &sdk::Request| sdk::errored(422, "spec.template is missing"));
    let layer = WebhookLayer::new(vec![config(&url_of(&server), &ca, None)]).unwrap();
    let obj = workload();
    let err = call_err(&layer, &Request::InterpretHealth { object: &obj });
    assert_eq!(
        err,
        "webhook call failed, get status code: 422, msg: spec.template is missing"
    );
    // Through the chain: the typed error names webhook, operation and object.
    let chain = karmada_interpreter::Interpreter::builder()
        .webhook_configurations([config(&url_of(&server), &ca, None)])
        .build()
        .unwrap();
    let e = chain.interpret_health(&obj).unwrap_err().to_string();
    assert_eq!(e, "webhook \"examples/workloads.example.com\": InterpretHealth on Workload shop/checkout: webhook call failed, get status code: 422, msg: spec.template is missing");
}

#[test]
fn patches_that_do_not_apply_are_errors() {
    let bad = |req: &sdk::Request| {
        let obj = req.object.clone().unwrap_or_default();
        let mut wrong = obj.clone();
        wrong["spec"]["replicas"] = json!(1);
        let mut r = sdk::patch_response(
            &json!({"unrelated": {"x": 1}}),
            &json!({"unrelated": {"x": 2}}),
        );
        if r.patch.is_none() {
            r = sdk::patch_response(&obj, &wrong);
        }
        r
    };
    let (server, ca) = start(bad);
    let layer = WebhookLayer::new(vec![config(&url_of(&server), &ca, None)]).unwrap();
    let obj = workload();
    let err = call_err(
        &layer,
        &Request::ReviseReplica {
            object: &obj,
            replicas: 2,
        },
    );
    assert!(
        err.starts_with("patch operation 0 (replace) does not apply"),
        "{err}"
    );
}

#[test]
fn service_references_dial_the_overridden_address_and_verify_the_service_name() {
    let id = TlsIdentity::self_signed(&["workload-interpreter.interpreters.svc"]).unwrap();
    let ca = id.cert_pem.clone();
    let server = Server::new(id)
        .route("/interpret/workload", workload_example::handle)
        .start(loopback())
        .unwrap();
    let mut c = workload_example::configuration("https://unused", &ca);
    c["webhooks"][0]["clientConfig"] = json!({
        "service": {"namespace": "interpreters", "name": "workload-interpreter", "port": 8443, "path": "/interpret/workload/"},
        "caBundle": c["webhooks"][0]["clientConfig"]["caBundle"].clone(),
    });
    let c: ResourceInterpreterWebhookConfiguration = serde_json::from_value(c).unwrap();
    let client = WebhookClient::new().resolve(
        "workload-interpreter.interpreters.svc",
        8443,
        server.local_addr(),
    );
    let layer = WebhookLayer::new(vec![c]).unwrap().with_client(client);
    let obj = workload();
    let (_, ex) = layer
        .call(&Request::InterpretReplica { object: &obj })
        .unwrap();
    assert_eq!(
        ex.result.unwrap(),
        karmada_interpreter::interpreter::Outcome::Replicas(Box::new(
            karmada_interpreter::interpreter::ReplicaResult {
                replicas: 6,
                requirements: None
            }
        ))
    );
}

// ---- server answers to bad input, over real TLS --------------------------

/// Sends raw HTTP bytes over TLS and returns (status, body).
fn raw_call(addr: SocketAddr, ca: &str, request: &[u8]) -> (u16, String) {
    // These bytes are HTTP/1.1, so only that is offered.
    let mut config = tls::client_config(ca.as_bytes()).unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let config = Arc::new(config);
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let conn = rustls::ClientConnection::new(config, name).unwrap();
    let tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    // The server may answer (and close) before reading everything.
    let _ = tls.write_all(request);
    let mut out = Vec::new();
    let _ = tls.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

fn post(path: &str, content_type: Option<&str>, body: &[u8]) -> Vec<u8> {
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(ct) = content_type {
        req.push_str(&format!("Content-Type: {ct}\r\n"));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn envelope_error(body: &str) -> (i64, String) {
    let v: Value = serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(v["response"]["uid"], "", "{body}");
    assert_eq!(v["response"]["successful"], false, "{body}");
    (
        v["response"]["status"]["code"].as_i64().unwrap(),
        v["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

#[test]
fn server_answers_bad_input_with_clear_errors() {
    let (server, ca) = start(workload_example::handle);
    let addr = server.local_addr();
    let path = workload_example::PATH;
    let good = br#"{"request":{"uid":"u-1","operation":"InterpretReplica","object":{"kind":"Workload","spec":{"replicas":2}}}}"#;

    let (status, body) = raw_call(addr, &ca, &post(path, Some("application/json"), good));
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!(
        v,
        json!({"response": {"uid": "u-1", "successful": true, "status": {"code": 200}, "replicas": 2}})
    );

    let get = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let (status, body) = raw_call(addr, &ca, get.as_bytes());
    assert_eq!(status, 405);
    assert_eq!(
        envelope_error(&body),
        (
            405,
            "method GET is not allowed: interpreter webhooks take POST".into()
        )
    );

    let cases: Vec<(Option<&str>, &[u8], i64, &str)> = vec![
        (
            Some("text/plain"),
            good,
            400,
            "contentType=text/plain, expected application/json",
        ),
        (None, good, 400, "contentType=, expected application/json"),
        (Some("application/json"), b"", 400, "request body is empty"),
        (
            Some("application/json"),
            b"invalid-json",
            400,
            "couldn't get version/kind; json parse error",
        ),
        (
            Some("application/json"),
            b"{\"request\":",
            400,
            "couldn't get version/kind; json parse error",
        ),
        (
            Some("application/json"),
            b"{\"apiVersion\":\"config.karmada.io/v1alpha1\"}",
            400,
            "request is missing",
        ),
    ];
    for (ct, payload, code, text) in cases {
        let (status, body) = raw_call(addr, &ca, &post(path, ct, payload));
        assert_eq!(status, 200, "{body}");
        let (c, m) = envelope_error(&body);
        assert_eq!(c, code, "{m}");
        assert!(m.starts_with(text), "{m:?} should start with {text:?}");
    }

    // Oversized: declared by Content-Length, and streamed in chunks.
    let big = vec![b' '; sdk::MAX_REQUEST_BODY_BYTES + 1];
    let (status, body) = raw_call(addr, &ca, &post(path, Some("application/json"), &big));
    assert_eq!(status, 200);
    assert_eq!(
        envelope_error(&body),
        (
            413,
            format!(
                "request body is larger than {} bytes",
                sdk::MAX_REQUEST_BODY_BYTES
            )
        )
    );
    let mut chunked = format!("POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").into_bytes();
    for _ in 0..49 {
        chunked.extend_from_slice(format!("{:x}\r\n", 65536).as_bytes());
        chunked.extend(std::iter::repeat_n(b' ', 65536));
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let (status, body) = raw_call(addr, &ca, &chunked);
    assert_eq!(status, 200);
    assert_eq!(
        envelope_error(&body),
        (
            413,
            format!(
                "request body is larger than {} bytes",
                sdk::MAX_REQUEST_BODY_BYTES
            )
        )
    );

    // Declared far too large: answered without reading the body.
    let head = format!("POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{{");
    let (status, body) = raw_call(addr, &ca, head.as_bytes());
    assert_eq!(status, 200);
    assert_eq!(
        envelope_error(&body),
        (
            413,
            format!(
                "request body is larger than {} bytes",
                sdk::MAX_REQUEST_BODY_BYTES
            )
        )
    );

    let (status, body) = raw_call(addr, &ca, &post("/nowhere", Some("application/json"), good));
    assert_eq!((status, body.as_str()), (404, "404 page not found\n"));
    let ready = b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    assert_eq!(raw_call(addr, &ca, ready), (200, "ok".to_owned()));

    // The Workload handler's own errors.
    let no_object = br#"{"request":{"uid":"u-2","operation":"InterpretReplica"}}"#;
    let (_, body) = raw_call(addr, &ca, &post(path, Some("application/json"), no_object));
    let v: Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!(
        v["response"]["status"],
        json!({"code": 400, "message": "there is no content to decode"})
    );
    assert_eq!(v["response"]["uid"], "u-2");
    server.stop();
}

#[test]
fn shipped_webhook_configuration_is_valid() {
    let file = PathBuf::from(crate::support::ROOT).join("deploy/webhook-configuration.yaml");
    let configs = karmada_interpreter::load::webhook_configurations_from_file(&file).unwrap();
    assert_eq!(configs.len(), 1);
    karmada_interpreter::webhook::validate(&configs[0]).unwrap();
}

#[test]
fn busy_webhooks_are_retried_after_the_announced_delay() {
    let id = identity();
    let answers = vec![
        (503, "Retry-After: 1\r\n".to_owned(), b"busy".to_vec()),
        (
            200,
            String::new(),
            br#"{"response":{"uid":"second-answer","successful":true}}"#.to_vec(),
        ),
    ];
    let (addr, thread) = canned_seq(&id, answers);
    let url = format!("https://127.0.0.1:{}/x", addr.port());
    let layer = WebhookLayer::new(vec![config(&url, &id.cert_pem, Some(5))]).unwrap();
    let obj = workload();
    let started = Instant::now();
    let err = call_err(&layer, &Request::InterpretHealth { object: &obj });
    thread.join().unwrap();
    assert!(started.elapsed() >= Duration::from_secs(1));
    // The second answer was read: its (wrong) uid is what failed the call.
    assert!(err.ends_with("got \"second-answer\""), "{err}");
}

/// The same deviation rules hold for every backend: a case listed in
/// COMPATIBILITY.md that now agrees with its golden output fails, whether
/// the built-in chain answers it or a webhook (here the chain served by the
/// in-process SDK server) does; one that still differs is a known deviation.
#[test]
fn a_listed_deviation_that_passes_fails_under_every_backend() {
    use karmada_interpreter::webhook::sdk::InterpreterHandler;
    use karmada_interpreter_golden::{ChainBackend, Deviation, Deviations, Verdict};

    let dir = std::env::temp_dir().join(format!("ki-deviation-backends-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("health-test.yaml"),
        "name: agrees\noperation: InterpretHealth\nobservedObj: {apiVersion: v1, kind: Pod, metadata: {name: p}, status: {phase: Running, conditions: [{type: Ready, status: 'True'}]}}\noutput: {healthy: true}\n---\nname: differs\noperation: InterpretHealth\nobservedObj: {apiVersion: v1, kind: Pod, metadata: {name: p}, status: {phase: Running, conditions: [{type: Ready, status: 'True'}]}}\noutput: {healthy: false}\n",
    )
    .unwrap();
    let deviations = Deviations(
        ["agrees", "differs"]
            .iter()
            .map(|case| Deviation {
                file: "health-test.yaml".into(),
                case: (*case).into(),
                reason: "on purpose".into(),
            })
            .collect(),
    );

    let id = identity();
    let ca = id.cert_pem.clone();
    let server = Server::new(id)
        .route(
            "/interpret",
            InterpreterHandler::new(karmada_interpreter::Interpreter::default()),
        )
        .start(loopback())
        .unwrap();
    let url = format!("https://127.0.0.1:{}/interpret", server.local_addr().port());
    let webhook: ResourceInterpreterWebhookConfiguration = serde_json::from_value(json!({
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterWebhookConfiguration",
        "metadata": {"name": "chain"},
        "webhooks": [{
            "name": "pods.example.io",
            "clientConfig": {"url": url, "caBundle": base64_of(&ca)},
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "kinds": ["Pod"],
                       "operations": ["InterpretHealth"]}],
            "interpreterContextVersions": ["v1alpha1"]
        }]
    }))
    .unwrap();

    let runners = [
        ("chain", Runner::new(ChainBackend::default())),
        (
            "webhook",
            Runner::new(WebhookBackend::new(vec![webhook]).unwrap()),
        ),
    ];
    for (backend, mut runner) in runners {
        runner.deviations = deviations.clone();
        let report = runner.run(std::slice::from_ref(&dir)).unwrap();
        let verdict = |name: &str| {
            report
                .cases
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("{backend}: no case {name}"))
                .verdict
                .clone()
        };
        match verdict("agrees") {
            Verdict::Failed(lines) => {
                assert!(
                    lines[0].contains("remove the entry"),
                    "{backend}: {lines:?}"
                )
            }
            other => panic!("{backend}: a listed case that agrees must fail, got {other:?}"),
        }
        assert_eq!(
            verdict("differs"),
            Verdict::KnownDeviation("on purpose".into()),
            "{backend}"
        );
    }
    server.stop();
}

fn base64_of(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}
