//! The webhook client against hostile webhooks (issue 15, item 3): every
//! fault ends the call with a clear error, within the configured timeout
//! (never early, and at most 10% late), and never hangs the chain.
//!
//! Each hostile server is a thread on 127.0.0.1 that serves one connection
//! with one misbehaviour and stops by itself.

use std::io::Write;

use crate::support::http1;
use http1::read_request;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use karmada_interpreter::api::ResourceInterpreterWebhookConfiguration;
use karmada_interpreter::interpreter::Request;
use karmada_interpreter::webhook::client::WebhookClient;
use karmada_interpreter::webhook::tls::TlsIdentity;
use karmada_interpreter::webhook::WebhookLayer;
use karmada_interpreter::Interpreter;
use rstest::rstest;
use serde_json::{json, Value};

const KIND: &str = "Workload";
const API_VERSION: &str = "workload.example.io/v1alpha1";

fn identity(names: &[&str]) -> TlsIdentity {
    TlsIdentity::self_signed(names).unwrap()
}

fn configuration(url: &str, ca_pem: &str, timeout_seconds: i32) -> Value {
    use base64::Engine;
    json!({
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterWebhookConfiguration",
        "metadata": {"name": "faults"},
        "webhooks": [{
            "name": "workloads.example.com",
            "clientConfig": {
                "url": url,
                "caBundle": base64::engine::general_purpose::STANDARD.encode(ca_pem),
            },
            "rules": [{
                "operations": ["*"],
                "apiGroups": ["workload.example.io"],
                "apiVersions": ["v1alpha1"],
                "kinds": [KIND],
            }],
            "interpreterContextVersions": ["v1alpha1"],
            "timeoutSeconds": timeout_seconds,
        }]
    })
}

fn layer(addr: SocketAddr, ca_pem: &str, timeout_seconds: i32) -> WebhookLayer {
    let c: ResourceInterpreterWebhookConfiguration = serde_json::from_value(configuration(
        &format!("https://127.0.0.1:{}/interpret", addr.port()),
        ca_pem,
        timeout_seconds,
    ))
    .unwrap();
    WebhookLayer::new(vec![c]).unwrap()
}

fn workload() -> Value {
    json!({"apiVersion": API_VERSION, "kind": KIND,
           "metadata": {"name": "w", "namespace": "d"},
           "spec": {"replicas": 2}, "status": {"readyReplicas": 2}})
}

/// Calls InterpretHealth; returns the error text and how long the call took.
fn call_err(layer: &WebhookLayer) -> (String, Duration) {
    let obj = workload();
    let started = Instant::now();
    let (_, exchange) = layer
        .call(&Request::InterpretHealth { object: &obj })
        .expect("the hook matches");
    let took = started.elapsed();
    match exchange.result {
        Ok(o) => panic!("expected an error, got {o:?}"),
        Err(e) => (e.to_string(), took),
    }
}

/// What a hostile server does with its one connection.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Accepts TCP, never speaks (the TLS handshake never completes).
    Silent,
    /// Completes TLS, reads the request, never answers.
    NoAnswer,
    /// Sends the status line and headers, then one body byte every 200 ms.
    TrickleBody,
    /// Sends a header byte every 200 ms, never finishing the head.
    TrickleHeaders,
    /// An endless chunked body (no length announced).
    EndlessBody,
    /// Announces 1000 body bytes, sends 10, closes.
    TruncatedBody,
    /// Closes right after reading the request.
    CloseAfterRequest,
}

/// Serves one connection with `fault` for at most `life`, then stops.
fn hostile(id: &TlsIdentity, fault: Fault, life: Duration) -> (SocketAddr, JoinHandle<()>) {
    // These hand-written servers speak HTTP/1.1 only: offer only that by ALPN.
    let mut config = id.server_config().unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let thread = std::thread::spawn(move || {
        let Ok((tcp, _)) = listener.accept() else {
            return;
        };
        let until = Instant::now() + life;
        tcp.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        if let Fault::Silent = fault {
            while Instant::now() < until {
                std::thread::sleep(Duration::from_millis(50));
            }
            return;
        }
        let conn = rustls::ServerConnection::new(config).unwrap();
        let mut tls = rustls::StreamOwned::new(conn, tcp);
        let request = read_request(&mut tls);
        let _ = request;
        let mut send = |bytes: &[u8]| tls.write_all(bytes).and_then(|()| tls.flush()).is_ok();
        match fault {
            Fault::Silent => {}
            Fault::NoAnswer => {
                while Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            Fault::TrickleBody => {
                if send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{") {
                    while Instant::now() < until && send(b" ") {
                        std::thread::sleep(Duration::from_millis(200));
                    }
                }
            }
            Fault::TrickleHeaders => {
                let mut ok = send(b"HTTP/1.1 200 OK\r\n");
                while ok && Instant::now() < until {
                    ok = send(b"X");
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
            Fault::EndlessBody => {
                if send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n") {
                    let chunk = format!("{:x}\r\n{}\r\n", 4096, " ".repeat(4096));
                    while Instant::now() < until && send(chunk.as_bytes()) {}
                }
            }
            Fault::TruncatedBody => {
                send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"respons");
            }
            Fault::CloseAfterRequest => {}
        }
    });
    (addr, thread)
}

/// A fault that only a timeout ends: the call fails with the deadline error
/// no earlier than the configured timeout and at most 10% after it.
#[rstest]
#[case::silent_tcp(Fault::Silent)]
#[case::no_answer(Fault::NoAnswer)]
#[case::trickled_body(Fault::TrickleBody)]
#[case::trickled_headers(Fault::TrickleHeaders)]
fn timeouts_are_honoured_within_ten_percent(#[case] fault: Fault) {
    let id = identity(&["127.0.0.1"]);
    let timeout = Duration::from_secs(2);
    let (addr, server) = hostile(&id, fault, timeout + Duration::from_secs(1));
    let (err, took) = call_err(&layer(addr, &id.cert_pem, 2));
    assert!(
        err.contains("context deadline exceeded (timeout 2s)"),
        "{fault:?}: {err}"
    );
    assert!(took >= timeout, "{fault:?}: ended early, after {took:?}");
    assert!(
        took <= timeout.mul_f64(1.1),
        "{fault:?}: took {took:?}, more than 10% over {timeout:?}"
    );
    server.join().unwrap();
}

/// Faults that end before any timeout: a clear error, promptly.
#[rstest]
#[case::endless_body(
    Fault::EndlessBody,
    "the answer is larger than the limit of 65536 bytes"
)]
#[case::truncated_body(Fault::TruncatedBody, "reading the answer")]
#[case::closed_after_request(
    Fault::CloseAfterRequest,
    "failed to call webhook: Post \"https://127.0.0.1:"
)]
fn broken_answers_are_clear_errors(#[case] fault: Fault, #[case] expected: &str) {
    let id = identity(&["127.0.0.1"]);
    let (addr, server) = hostile(&id, fault, Duration::from_secs(20));
    let layer = layer(addr, &id.cert_pem, 20)
        .with_client(WebhookClient::new().max_response_bytes(64 << 10));
    let (err, took) = call_err(&layer);
    assert!(err.contains(expected), "{fault:?}: {err}");
    assert!(took < Duration::from_secs(10), "{fault:?}: took {took:?}");
    server.join().unwrap();
}

/// Serves one connection (or none within 8 s) with a canned HTTP answer
/// and counts the requests that reached it.
fn canned(
    id: &TlsIdentity,
    answer: String,
    hits: Arc<AtomicUsize>,
) -> (SocketAddr, JoinHandle<()>) {
    // These hand-written servers speak HTTP/1.1 only: offer only that by ALPN.
    let mut config = id.server_config().unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let thread = std::thread::spawn(move || {
        let until = Instant::now() + Duration::from_secs(8);
        while Instant::now() < until {
            let Ok((tcp, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            tcp.set_nonblocking(false).unwrap();
            tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let conn = rustls::ServerConnection::new(config.clone()).unwrap();
            let mut tls = rustls::StreamOwned::new(conn, tcp);
            // one connection only: a failed handshake or a poke ends the server
            if read_request(&mut tls).is_empty() {
                return;
            }
            hits.fetch_add(1, Ordering::SeqCst);
            let _ = tls.write_all(answer.as_bytes());
            let _ = tls.flush();
            tls.conn.send_close_notify();
            let _ = tls.flush();
            return;
        }
    });
    (addr, thread)
}

#[rstest]
#[case::moved_permanently(301)]
#[case::found(302)]
#[case::temporary_redirect(307)]
#[case::permanent_redirect(308)]
fn redirects_are_refused(#[case] status: u16) {
    let id = identity(&["127.0.0.1"]);
    // the redirect's target: a correct webhook that must never be called
    let target_hits = Arc::new(AtomicUsize::new(0));
    let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    let (target, target_thread) = canned(&id, answer.to_owned(), target_hits.clone());
    let hits = Arc::new(AtomicUsize::new(0));
    let redirect = format!(
        "HTTP/1.1 {status} Redirect\r\nLocation: https://127.0.0.1:{}/interpret\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        target.port()
    );
    let (addr, thread) = canned(&id, redirect, hits.clone());
    let (err, _) = call_err(&layer(addr, &id.cert_pem, 5));
    assert!(err.contains(&format!("HTTP status {status}")), "{err}");
    thread.join().unwrap();
    // nothing followed the redirect: poke the target so its thread ends
    let _ = TcpStream::connect(target);
    target_thread.join().unwrap();
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    assert_eq!(
        target_hits.load(Ordering::SeqCst),
        0,
        "the redirect was followed"
    );
}

#[test]
fn tls_trusts_only_the_configured_ca() {
    let server_id = identity(&["127.0.0.1"]);
    let other_ca = identity(&["127.0.0.1"]);
    let answer = r#"{"response":{"uid":"x","successful":true,"healthy":true}}"#;
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{answer}",
        answer.len()
    );
    // a CA bundle of another authority, for the same name
    let hits = Arc::new(AtomicUsize::new(0));
    let (addr, thread) = canned(&server_id, http.clone(), hits.clone());
    let (err, _) = call_err(&layer(addr, &other_ca.cert_pem, 5));
    assert!(err.contains("tls: ") && err.contains("caBundle"), "{err}");
    let _ = TcpStream::connect(addr);
    thread.join().unwrap();
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "a request crossed an untrusted TLS session"
    );
    // the right CA, but a certificate for another name
    let misnamed = identity(&["webhook.example.com"]);
    let (addr, thread) = canned(&misnamed, http, hits.clone());
    let (err, _) = call_err(&layer(addr, &misnamed.cert_pem, 5));
    assert!(
        err.contains("tls: ") && err.contains("not valid for"),
        "{err}"
    );
    let _ = TcpStream::connect(addr);
    thread.join().unwrap();
    assert_eq!(hits.load(Ordering::SeqCst), 0);
}

#[rstest]
#[case::uid_mismatch(
    r#"{"response":{"uid":"other","successful":true,"healthy":true}}"#,
    "expected response.uid"
)]
#[case::no_response(
    r#"{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterContext"}"#,
    "webhook response was absent"
)]
#[case::wrong_kind(
    r#"{"apiVersion":"v1","kind":"Pod","response":{}}"#,
    "no kind \"Pod\" is registered"
)]
#[case::not_an_object(r#"[1, 2, 3]"#, "expected a JSON object")]
#[case::truncated_json(r#"{"response":{"uid""#, "json parse error")]
#[case::control_character("{\"response\":\u{0}}", "json parse error")]
#[case::wrong_member_type(
    r#"{"response":{"uid":7,"successful":true}}"#,
    "couldn't decode response"
)]
fn malformed_answers_are_rejected(#[case] body: &str, #[case] expected: &str) {
    let id = identity(&["127.0.0.1"]);
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (addr, thread) = canned(&id, http, Arc::new(AtomicUsize::new(0)));
    let (err, _) = call_err(&layer(addr, &id.cert_pem, 5));
    assert!(err.contains(expected), "{err}");
    thread.join().unwrap();
}

/// The chain itself returns (a typed webhook error naming the hook) when its
/// webhook hangs: no operation blocks past the hook's timeout.
#[test]
fn a_hanging_webhook_cannot_hang_the_chain() {
    let id = identity(&["127.0.0.1"]);
    let (addr, server) = hostile(&id, Fault::Silent, Duration::from_secs(4));
    let c: ResourceInterpreterWebhookConfiguration = serde_json::from_value(configuration(
        &format!("https://127.0.0.1:{}/interpret", addr.port()),
        &id.cert_pem,
        1,
    ))
    .unwrap();
    let chain = Interpreter::builder()
        .webhook_configurations([c])
        .build()
        .unwrap();
    let obj = workload();
    let started = Instant::now();
    let err = chain.interpret_health(&obj).unwrap_err();
    let took = started.elapsed();
    assert!(
        err.source_of::<karmada_interpreter::webhook::WebhookError>()
            .is_some(),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("context deadline exceeded"),
        "{err}"
    );
    assert!(took <= Duration::from_millis(1100), "took {took:?}");
    server.join().unwrap();
}
