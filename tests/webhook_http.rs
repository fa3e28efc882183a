//! The transport of webhooks over real TLS on loopback: HTTP/2 and HTTP/1.1
//! through the SDK server and `serve`, the client's connection reuse, the
//! caBundle rule for self-signed CA certificates, and the server's limits
//! against hostile clients (slow, large, numerous, failing requests).
//! Every wait is bounded (seconds); every server stops by itself.

#[allow(dead_code)]
use crate::cli_support::workload_example;

use crate::cli_support::serve_process;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use karmada_interpreter::api::ResourceInterpreterWebhookConfiguration;
use karmada_interpreter::interpreter::Request;
use karmada_interpreter::webhook::sdk::{self, Response};
use karmada_interpreter::webhook::server::{Limits, RunningServer, Server};
use karmada_interpreter::webhook::tls::{self, TlsIdentity};
use karmada_interpreter::webhook::WebhookLayer;
use rstest::rstest;
use serde_json::{json, Value};

use crate::support::run_ok;
use crate::support::BIN;

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn identity() -> TlsIdentity {
    TlsIdentity::self_signed(&["localhost", "127.0.0.1"]).unwrap()
}

fn workload() -> Value {
    json!({
        "apiVersion": "workload.example.io/v1alpha1", "kind": "Workload",
        "metadata": {"name": "checkout", "namespace": "shop"},
        "spec": {"replicas": 6, "template": {"spec": {"containers": [{"name": "app", "image": "app"}]}}},
        "status": {"readyReplicas": 6}
    })
}

/// An InterpretReplica envelope for `object`.
fn envelope(uid: &str, object: &Value) -> Vec<u8> {
    let kind = object["kind"].as_str().unwrap();
    let api_version = object["apiVersion"].as_str().unwrap();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    serde_json::to_vec(&json!({
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterContext",
        "request": {
            "uid": uid,
            "kind": {"group": group, "version": version, "kind": kind},
            "name": object["metadata"]["name"],
            "namespace": object["metadata"]["namespace"],
            "operation": "InterpretReplica",
            "object": object,
        }
    }))
    .unwrap()
}

fn url_of(server: &RunningServer) -> String {
    format!(
        "https://127.0.0.1:{}{}",
        server.local_addr().port(),
        workload_example::PATH
    )
}

fn config(url: &str, ca_pem: &str) -> ResourceInterpreterWebhookConfiguration {
    let mut c = workload_example::configuration(url, ca_pem);
    c["webhooks"][0]["timeoutSeconds"] = json!(10);
    serde_json::from_value(c).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// POSTs `body` to `path` offering only `alpn`; returns the HTTP version
/// used, the status and the answer body.
async fn post(
    addr: SocketAddr,
    ca: &str,
    alpn: &[u8],
    path: &str,
    body: Vec<u8>,
) -> (hyper::Version, u16, Vec<u8>) {
    let mut config = tls::client_config(ca.as_bytes()).unwrap();
    config.alpn_protocols = vec![alpn.to_vec()];
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let stream = TokioIo::new(connector.connect(name, tcp).await.unwrap());
    let req = hyper::Request::post(format!("https://127.0.0.1:{}{path}", addr.port()))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let res = if alpn == b"h2" {
        let (mut send, conn) =
            hyper::client::conn::http2::handshake(hyper_util::rt::TokioExecutor::new(), stream)
                .await
                .unwrap();
        tokio::spawn(conn);
        send.send_request(req).await.unwrap()
    } else {
        let (mut send, conn) = hyper::client::conn::http1::handshake(stream).await.unwrap();
        tokio::spawn(conn);
        let mut req = req;
        *req.uri_mut() = path.parse().unwrap();
        req.headers_mut()
            .insert("host", "127.0.0.1".parse().unwrap());
        send.send_request(req).await.unwrap()
    };
    let version = res.version();
    let status = res.status().as_u16();
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    (version, status, body)
}

fn replicas_of(answer: &[u8]) -> i64 {
    let v: Value = serde_json::from_slice(answer).unwrap();
    assert_eq!(v["response"]["successful"], true, "{v}");
    v["response"]["replicas"].as_i64().unwrap()
}

const PROTOCOLS: [(&[u8], hyper::Version); 2] = [
    (b"h2", hyper::Version::HTTP_2),
    (b"http/1.1", hyper::Version::HTTP_11),
];

#[test]
fn sdk_server_answers_over_http2_and_http1() {
    let (server, ca) = start_with(Limits::default(), workload_example::handle);
    let rt = runtime();
    for (alpn, version) in PROTOCOLS {
        let (v, status, body) = rt.block_on(post(
            server.local_addr(),
            &ca,
            alpn,
            workload_example::PATH,
            envelope("u-1", &workload()),
        ));
        assert_eq!((v, status), (version, 200));
        assert_eq!(replicas_of(&body), 6);
    }
}

fn deployment() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "app", "image": "app"}]}}}
    })
}

#[test]
fn serve_answers_over_http2_and_http1_and_curl_gets_answers() {
    let serve = serve_process::start(BIN, "protocols", &[]);
    let (addr, ca) = (serve.addr, serve.ca.clone());
    let rt = runtime();
    for (alpn, version) in PROTOCOLS {
        let (v, status, body) = rt.block_on(post(
            addr,
            &ca,
            alpn,
            "/interpret",
            envelope("u-2", &deployment()),
        ));
        assert_eq!((v, status), (version, 200));
        assert_eq!(replicas_of(&body), 3);
    }
    curl_both_protocols(addr, &ca, "/interpret", &envelope("u-3", &deployment()), 3);
}

/// Clients that send a request and go away before the answer (closing, or
/// resetting the connection) cost `serve` nothing but those connections:
/// writing to a closed socket must not end the process (SIGPIPE).
#[test]
fn serve_outlives_clients_that_leave_before_the_answer() {
    use std::os::fd::AsRawFd;
    let mut serve = serve_process::start(BIN, "leavers", &[]);
    let (addr, ca) = (serve.addr, serve.ca.clone());
    let body = envelope("u-leave", &deployment());
    let mut request = format!(
        "POST /interpret HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    // Some leave at once; some leave once the answer has arrived, unread
    // (closing a socket with unread data resets the connection), while the
    // server may still write; some reset at once (SO_LINGER with a zero
    // timeout).
    for i in 0..30 {
        if let Some(status) = serve.exited() {
            panic!("serve ended ({status}) after {i} clients left early");
        }
        let mut stream = raw_tls(addr, &ca);
        if stream
            .write_all(&request)
            .and_then(|()| stream.flush())
            .is_err()
        {
            break; // the server is gone: reported below
        }
        match i % 3 {
            0 => {}
            1 => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let linger = libc::linger {
                    l_onoff: 1,
                    l_linger: 0,
                };
                #[allow(unsafe_code)] // setsockopt (libc)
                // SAFETY: a valid socket and a valid `linger` of the size given.
                unsafe {
                    libc::setsockopt(
                        stream.sock.as_raw_fd(),
                        libc::SOL_SOCKET,
                        libc::SO_LINGER,
                        (&raw const linger).cast(),
                        std::mem::size_of::<libc::linger>() as libc::socklen_t,
                    );
                }
            }
        }
        drop(stream);
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(serve.exited(), None, "serve ended");
    let (_, status, body) = runtime().block_on(post(
        addr,
        &ca,
        b"http/1.1",
        "/interpret",
        envelope("u-after", &deployment()),
    ));
    assert_eq!(status, 200);
    assert_eq!(replicas_of(&body), 3);
}

/// `curl --http2` and `curl --http1.1` get answers, when curl is installed.
fn curl_both_protocols(addr: SocketAddr, ca: &str, path: &str, body: &[u8], replicas: i64) {
    if Command::new("curl").arg("--version").output().is_err() {
        crate::support::skipped("curl is not installed: no curl check");
        return;
    }
    let dir = crate::support::scratch("curl");
    let (ca_file, body_file) = (dir.join("ca.pem"), dir.join("body.json"));
    std::fs::write(&ca_file, ca).unwrap();
    std::fs::write(&body_file, body).unwrap();
    for (flag, expected) in [("--http2", "2"), ("--http1.1", "1.1")] {
        let out = run_ok(
            Command::new("curl")
                .args(["-sS", "--max-time", "10", flag, "--cacert"])
                .arg(&ca_file)
                .args(["-H", "Content-Type: application/json", "--data-binary"])
                .arg(format!("@{}", body_file.display()))
                .args(["-w", "\n%{http_version}"])
                .arg(format!("https://127.0.0.1:{}{path}", addr.port())),
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let (answer, version) = text.rsplit_once('\n').unwrap();
        assert_eq!(version, expected, "curl {flag}");
        assert_eq!(replicas_of(answer.as_bytes()), replicas, "curl {flag}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sdk_server_answers_curl_over_both_protocols() {
    let (server, ca) = start_with(Limits::default(), workload_example::handle);
    curl_both_protocols(
        server.local_addr(),
        &ca,
        workload_example::PATH,
        &envelope("u-4", &workload()),
        6,
    );
}

/// 100 calls through the chain's webhook client open one connection, over
/// HTTP/2 (multiplexed) and over HTTP/1.1 (keep-alive); calls from several
/// threads at once share a handful, and no answer goes to the wrong call.
#[rstest]
#[case::http2(true)]
#[case::http1(false)]
fn the_client_reuses_its_connection(#[case] http2: bool) {
    let id = identity();
    let ca = id.cert_pem.clone();
    let server = Server::new(id)
        .http2(http2)
        .route(workload_example::PATH, workload_example::handle)
        .start(loopback())
        .unwrap();
    let layer = WebhookLayer::new(vec![config(&url_of(&server), &ca)]).unwrap();
    let mut obj = workload();
    for i in 0..100 {
        obj["spec"]["replicas"] = json!(i);
        let (_, ex) = layer
            .call(&Request::InterpretReplica { object: &obj })
            .unwrap();
        let outcome = ex.result.unwrap();
        let outcome = format!("{outcome:?}");
        assert!(outcome.contains(&format!("replicas: {i}")), "{outcome}");
    }
    assert_eq!(server.accepted_connections(), 1, "100 sequential calls");
    let layer = Arc::new(layer);
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let layer = layer.clone();
            std::thread::spawn(move || {
                let mut obj = workload();
                for i in 0..25 {
                    let n = t * 1000 + i;
                    obj["spec"]["replicas"] = json!(n);
                    let (_, ex) = layer
                        .call(&Request::InterpretReplica { object: &obj })
                        .unwrap();
                    let outcome = format!("{:?}", ex.result.unwrap());
                    assert!(outcome.contains(&format!("replicas: {n}")), "{outcome}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let total = server.accepted_connections();
    assert!(
        total <= 1 + 4,
        "4 threads x 25 calls opened {total} connections in all"
    );
}

/// A self-signed certificate marked as a CA (what `openssl req -x509` makes),
/// listed in caBundle, is trusted as Karmada trusts it; still checked for
/// its name and dates, with the failure in words.
#[rstest]
#[case::trusted(&["127.0.0.1"], false, None)]
#[case::wrong_name(&["example.com"], false, Some("tls: the server's certificate is not valid for \"127.0.0.1\" (it names example.com)"))]
#[case::expired(&["127.0.0.1"], true, Some("tls: the server's certificate has expired"))]
fn a_self_signed_ca_certificate_in_ca_bundle_is_trusted(
    #[case] names: &[&str],
    #[case] expired: bool,
    #[case] error: Option<&str>,
) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    let key = KeyPair::generate().unwrap();
    let mut params =
        CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    if expired {
        params.not_before = rcgen::date_time_ymd(2020, 1, 1);
        params.not_after = rcgen::date_time_ymd(2021, 1, 1);
    }
    let cert = params.self_signed(&key).unwrap();
    let id = TlsIdentity {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    };
    let server = Server::new(id.clone())
        .route(workload_example::PATH, workload_example::handle)
        .start(loopback())
        .unwrap();
    let layer = WebhookLayer::new(vec![config(&url_of(&server), &id.cert_pem)]).unwrap();
    let obj = workload();
    let (_, ex) = layer
        .call(&Request::InterpretReplica { object: &obj })
        .unwrap();
    match (error, ex.result) {
        (None, Ok(_)) => {}
        (Some(text), Err(e)) => assert!(e.to_string().contains(text), "{e}"),
        (want, got) => panic!("expected {want:?}, got {got:?}"),
    }
}

// ---- `serve`'s server under hostile clients -------------------------------

/// Limits small enough for tests to reach in well under a second.
fn tight() -> Limits {
    Limits {
        handshake_timeout: Duration::from_millis(300),
        header_read_timeout: Duration::from_millis(300),
        body_read_timeout: Duration::from_millis(300),
        ..Limits::default()
    }
}

fn start_with(limits: Limits, handler: impl sdk::Handler + 'static) -> (RunningServer, String) {
    let id = identity();
    let ca = id.cert_pem.clone();
    let server = Server::new(id)
        .limits(limits)
        .route(workload_example::PATH, handler)
        .start(loopback())
        .unwrap();
    (server, ca)
}

/// A blocking TLS connection offering HTTP/1.1 only.
fn raw_tls(addr: SocketAddr, ca: &str) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    let mut config = tls::client_config(ca.as_bytes()).unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    rustls::StreamOwned::new(conn, tcp)
}

/// Reads until the server closes; returns what it sent and how long it took.
fn read_until_closed(stream: &mut impl Read) -> (String, Duration) {
    let start = Instant::now();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    (String::from_utf8_lossy(&out).into_owned(), start.elapsed())
}

#[test]
fn slow_clients_are_cut_off_while_others_are_served() {
    let (server, ca) = start_with(tight(), workload_example::handle);
    let addr = server.local_addr();
    // Slowloris: half a request head, then nothing.
    let mut slow_head = raw_tls(addr, &ca);
    slow_head
        .write_all(b"POST /interpreter-workload HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    // A TCP connection that never starts the TLS handshake.
    let mut silent = TcpStream::connect(addr).unwrap();
    silent
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    // A body that never arrives in full.
    let mut slow_body = raw_tls(addr, &ca);
    slow_body
        .write_all(
            b"POST /interpreter-workload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"req",
        )
        .unwrap();
    // Meanwhile a well-behaved client is answered.
    let rt = runtime();
    for (alpn, _) in PROTOCOLS {
        let (_, status, body) = rt.block_on(post(
            addr,
            &ca,
            alpn,
            workload_example::PATH,
            envelope("u-5", &workload()),
        ));
        assert_eq!(status, 200);
        assert_eq!(replicas_of(&body), 6);
    }
    let (text, took) = read_until_closed(&mut slow_head);
    assert!(took < Duration::from_secs(3), "slow head held {took:?}");
    assert!(!text.contains("\"successful\":true"), "{text}");
    let (_, took) = read_until_closed(&mut silent);
    assert!(took < Duration::from_secs(3), "silent client held {took:?}");
    let (text, took) = read_until_closed(&mut slow_body);
    assert!(took < Duration::from_secs(3), "slow body held {took:?}");
    assert!(
        text.contains("timed out reading the request body"),
        "the slow body gets an answer saying why: {text}"
    );
}

#[rstest]
#[case::http2(b"h2")]
#[case::http1(b"http/1.1")]
fn bodies_follow_the_configured_limit(#[case] alpn: &[u8]) {
    // Default: the API server's 3 MiB, so a ~2.5 MiB object fits.
    let (server, ca) = start_with(Limits::default(), workload_example::handle);
    let mut big = workload();
    big["metadata"]["annotations"] = json!({"blob": "x".repeat(5 << 19)});
    let rt = runtime();
    let (_, status, body) = rt.block_on(post(
        server.local_addr(),
        &ca,
        alpn,
        workload_example::PATH,
        envelope("u-6", &big),
    ));
    assert_eq!(status, 200);
    assert_eq!(replicas_of(&body), 6);
    // A configured lower limit refuses it with code 413, and the next
    // request is served.
    let (server, ca) = start_with(
        Limits {
            max_body_bytes: 64 << 10,
            ..Limits::default()
        },
        workload_example::handle,
    );
    let addr = server.local_addr();
    let (_, status, body) = rt.block_on(post(
        addr,
        &ca,
        alpn,
        workload_example::PATH,
        envelope("u-7", &big),
    ));
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (status, &v["response"]["status"]["code"]),
        (200, &json!(413)),
        "{v}"
    );
    let (_, _, body) = rt.block_on(post(
        addr,
        &ca,
        alpn,
        workload_example::PATH,
        envelope("u-8", &workload()),
    ));
    assert_eq!(replicas_of(&body), 6);
}

/// An HTTP/2 connection for several concurrent requests.
async fn h2_connection(
    addr: SocketAddr,
    ca: &str,
) -> hyper::client::conn::http2::SendRequest<Full<Bytes>> {
    let config = tls::client_config(ca.as_bytes()).unwrap();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let stream = TokioIo::new(connector.connect(name, tcp).await.unwrap());
    let (send, conn) =
        hyper::client::conn::http2::handshake(hyper_util::rt::TokioExecutor::new(), stream)
            .await
            .unwrap();
    tokio::spawn(conn);
    send
}

async fn h2_post(
    mut send: hyper::client::conn::http2::SendRequest<Full<Bytes>>,
    port: u16,
    body: Vec<u8>,
) -> Value {
    let req = hyper::Request::post(format!(
        "https://127.0.0.1:{port}{}",
        workload_example::PATH
    ))
    .header("content-type", "application/json")
    .body(Full::new(Bytes::from(body)))
    .unwrap();
    let res = send.send_request(req).await.unwrap();
    assert_eq!(res.status(), 200);
    let body = res.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&body).unwrap()
}

/// One InterpretReplica per uid, all at once on one HTTP/2 connection; the
/// answers in the order of the uids.
fn h2_burst(addr: SocketAddr, ca: &str, uids: impl Iterator<Item = String>) -> Vec<Value> {
    runtime().block_on(async {
        let send = h2_connection(addr, ca).await;
        let calls: Vec<_> = uids
            .map(|uid| {
                tokio::spawn(h2_post(
                    send.clone(),
                    addr.port(),
                    envelope(&uid, &workload()),
                ))
            })
            .collect();
        let mut answers = Vec::new();
        for c in calls {
            answers.push(c.await.unwrap());
        }
        answers
    })
}

#[test]
fn requests_beyond_the_concurrency_limit_wait_their_turn() {
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (r, p) = (running.clone(), peak.clone());
    let handler = move |req: &sdk::Request| -> Response {
        let now = r.fetch_add(1, Ordering::SeqCst) + 1;
        p.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(100));
        r.fetch_sub(1, Ordering::SeqCst);
        workload_example::handle(req)
    };
    let (server, ca) = start_with(
        Limits {
            max_concurrent_requests: 2,
            ..Limits::default()
        },
        handler,
    );
    let addr = server.local_addr();
    let answers = h2_burst(addr, &ca, (0..6).map(|i| format!("u-{i}")));
    for (i, a) in answers.iter().enumerate() {
        assert_eq!(a["response"]["uid"], format!("u-{i}"));
        assert_eq!(a["response"]["replicas"], 6, "{a}");
    }
    assert_eq!(peak.load(Ordering::SeqCst), 2, "at most 2 handled at once");
}

#[test]
fn connections_beyond_the_limit_wait_in_the_backlog() {
    let (server, ca) = start_with(
        Limits {
            max_connections: 1,
            ..Limits::default()
        },
        workload_example::handle,
    );
    let addr = server.local_addr();
    let rt = runtime();
    rt.block_on(async {
        let first = h2_connection(addr, &ca).await;
        let waiting = tokio::time::timeout(
            Duration::from_millis(500),
            post(
                addr,
                &ca,
                b"h2",
                workload_example::PATH,
                envelope("u-9", &workload()),
            ),
        )
        .await;
        assert!(waiting.is_err(), "a second connection is not served yet");
        let answer = h2_post(first, addr.port(), envelope("u-10", &workload())).await;
        assert_eq!(answer["response"]["replicas"], 6);
        // The first connection closes: the next client is served.
        let (_, status, body) = tokio::time::timeout(
            Duration::from_secs(5),
            post(
                addr,
                &ca,
                b"h2",
                workload_example::PATH,
                envelope("u-11", &workload()),
            ),
        )
        .await
        .expect("served once the first connection closed");
        assert_eq!(status, 200);
        assert_eq!(replicas_of(&body), 6);
    });
}

#[test]
fn a_failing_request_does_not_affect_the_others() {
    let handler = |req: &sdk::Request| -> Response {
        if req.uid.ends_with("-panic") {
            panic!("this request makes the handler fail");
        }
        workload_example::handle(req)
    };
    let (server, ca) = start_with(Limits::default(), handler);
    let addr = server.local_addr();
    let uids = (0..20).map(|i| {
        if i % 3 == 0 {
            format!("u-{i}-panic")
        } else {
            format!("u-{i}")
        }
    });
    let answers = h2_burst(addr, &ca, uids);
    for (i, a) in answers.iter().enumerate() {
        if i % 3 == 0 {
            assert_eq!(a["response"]["status"]["code"], 500, "{a}");
        } else {
            assert_eq!(a["response"]["replicas"], 6, "{a}");
        }
    }
}

#[rstest]
#[case::http2(b"h2")]
#[case::http1(b"http/1.1")]
fn shutdown_finishes_in_flight_requests(#[case] alpn: &'static [u8]) {
    let handler = |req: &sdk::Request| -> Response {
        std::thread::sleep(Duration::from_millis(600));
        workload_example::handle(req)
    };
    let (server, ca) = start_with(Limits::default(), handler);
    let addr = server.local_addr();
    let call = std::thread::spawn(move || {
        runtime().block_on(post(
            addr,
            &ca,
            alpn,
            workload_example::PATH,
            envelope("u-12", &workload()),
        ))
    });
    std::thread::sleep(Duration::from_millis(200));
    let stopped = Instant::now();
    server.stop();
    let (_, status, body) = call.join().unwrap();
    assert_eq!(status, 200);
    assert_eq!(replicas_of(&body), 6);
    assert!(stopped.elapsed() < Duration::from_secs(5));
    assert!(TcpStream::connect(addr).is_err(), "no longer listening");
}

/// A bounded load on loopback (fixed request count, both protocols, 16
/// clients at once): every request is answered correctly, none fails, and
/// the latencies are stated (`--nocapture` prints p50/p99). Throughput is
/// measured by `benches/http_load.rs`, not here.
#[rstest]
#[case::http2(b"h2")]
#[case::http1(b"http/1.1")]
fn a_bounded_load_is_served_without_errors(#[case] alpn: &'static [u8]) {
    const CLIENTS: usize = 16;
    const PER_CLIENT: usize = 10;
    let (server, ca) = start_with(Limits::default(), workload_example::handle);
    let addr = server.local_addr();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (latencies, errors) = rt.block_on(async move {
        // CLIENTS clients at once, each sending its requests one after another.
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let ca = ca.clone();
                tokio::spawn(async move {
                    let mut latencies = Vec::new();
                    for i in 0..PER_CLIENT {
                        let n = (c * 100 + i) as i64;
                        let mut obj = workload();
                        obj["spec"]["replicas"] = json!(n);
                        let started = Instant::now();
                        let (_, status, body) = tokio::time::timeout(
                            Duration::from_secs(20),
                            post(addr, &ca, alpn, workload_example::PATH, envelope("u", &obj)),
                        )
                        .await
                        .expect("answered within 20 s");
                        assert_eq!(status, 200);
                        assert_eq!(replicas_of(&body), n);
                        latencies.push(started.elapsed());
                    }
                    latencies
                })
            })
            .collect();
        let mut latencies = Vec::new();
        let mut errors = 0;
        for client in clients {
            match client.await {
                Ok(mut l) => latencies.append(&mut l),
                // A failed request or a wrong answer ends its client.
                Err(_) => errors += 1,
            }
        }
        (latencies, errors)
    });
    assert_eq!(
        errors, 0,
        "clients whose request failed or got a wrong answer"
    );
    assert_eq!(latencies.len(), CLIENTS * PER_CLIENT);
    let mut sorted = latencies;
    sorted.sort();
    let p = |q: f64| sorted[((sorted.len() - 1) as f64 * q) as usize];
    eprintln!(
        "{} requests over {}, 0 errors: p50 {:?}, p99 {:?}",
        sorted.len(),
        String::from_utf8_lossy(alpn),
        p(0.50),
        p(0.99)
    );
}
