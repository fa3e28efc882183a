//! A bounded HTTP load bench: `serve` (the built-in chain, a Deployment
//! InterpretReplica) and the SDK example webhook (`examples/workload_webhook.rs`,
//! a Workload InterpretReplica), over TLS on loopback, HTTP/1.1 and HTTP/2,
//! with C concurrent connections (one request in flight on each, as `wrk`
//! and `h2load -m 1` do) for a fixed duration, capped at a request count.
//! Prints requests per second, p50 and p99 latency and the error count.
//!
//! ```text
//! cargo bench --bench http_load                  # 64 connections, 5 s per run
//! LOAD_CONNECTIONS=64 LOAD_SECONDS=13 LOAD_MAX_REQUESTS=2000000 cargo bench --bench http_load
//! LOAD_ONLY=serve-h2 cargo bench --bench http_load   # one of serve-h1, serve-h2, sdk-h1, sdk-h2
//! LOAD_HOLD=1 ...   # keep the servers up after the runs (for wrk/h2load), printing their URLs
//! ```
//!
//! The load generator shares the machine with the server: on a small machine
//! the figures are the pair's, as with `wrk`/`h2load` on the same host.

#[allow(dead_code)]
#[path = "../examples/workload_webhook.rs"]
mod workload_example;

#[allow(dead_code)]
#[path = "../tests/cli_support/serve_process.rs"]
mod serve_process;

mod http_client;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_client::Conn;
use hyper::body::Bytes;
use karmada_interpreter::webhook::server::{RunningServer, Server};
use karmada_interpreter::webhook::tls::TlsIdentity;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_karmada-interpreter");

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn envelope(object: &Value) -> Vec<u8> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    serde_json::to_vec(&json!({
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterContext",
        "request": {
            "uid": "0b7c5a4e-6f1c-4f57-9d39-0c8a3f1f6a2b",
            "kind": {"group": group, "version": version, "kind": object["kind"]},
            "name": object["metadata"]["name"],
            "namespace": object["metadata"]["namespace"],
            "operation": "InterpretReplica",
            "object": object,
        }
    }))
    .unwrap_or_default()
}

fn workload() -> Value {
    json!({
        "apiVersion": "workload.example.io/v1alpha1", "kind": "Workload",
        "metadata": {"name": "checkout", "namespace": "shop"},
        "spec": {"replicas": 6, "template": {"spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]}}},
        "status": {"readyReplicas": 6}
    })
}

fn deployment() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25",
                    "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}}}]}
            }
        }
    })
}

fn start_sdk() -> (RunningServer, String) {
    let id = TlsIdentity::self_signed(&["localhost", "127.0.0.1"]).expect("certificate");
    let ca = id.cert_pem.clone();
    let server = Server::new(id)
        .route(workload_example::PATH, workload_example::handle)
        .start("127.0.0.1:0".parse().expect("addr"))
        .expect("start");
    (server, ca)
}

struct Run {
    requests: usize,
    errors: usize,
    elapsed: Duration,
    latencies_us: Vec<u32>,
}

/// One connection's loop: requests back to back until `stop` or the cap.
async fn worker(
    conn: Conn,
    uri: hyper::Uri,
    body: Bytes,
    stop: Instant,
    budget: Arc<std::sync::atomic::AtomicUsize>,
) -> (Conn, Vec<u32>, usize) {
    let mut conn = conn;
    let mut latencies = Vec::with_capacity(1 << 16);
    let mut errors = 0;
    while Instant::now() < stop && budget.fetch_sub(1, std::sync::atomic::Ordering::Relaxed) > 0 {
        let started = Instant::now();
        let ok = conn.post(&uri, &body).await;
        if ok {
            latencies.push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
        } else {
            errors += 1;
            if errors > 100 {
                break;
            }
        }
    }
    (conn, latencies, errors)
}

fn load(addr: SocketAddr, ca: &str, path: &str, body: Vec<u8>, h2: bool) -> Run {
    let connections: usize = env_or("LOAD_CONNECTIONS", 64);
    let seconds: f64 = env_or("LOAD_SECONDS", 5.0);
    let max_requests: usize = env_or("LOAD_MAX_REQUESTS", 2_000_000);
    let threads: usize = env_or("LOAD_THREADS", 1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .expect("runtime");
    let connector = http_client::connector(ca, h2);
    let uri = http_client::uri(addr, path, h2);
    let body = Bytes::from(body);
    rt.block_on(async move {
        let mut conns = Vec::new();
        for _ in 0..connections {
            conns.push(
                http_client::connect(addr, &connector, h2)
                    .await
                    .expect("connect"),
            );
        }
        // Warm-up: one second, not counted.
        let warm = Arc::new(std::sync::atomic::AtomicUsize::new(usize::MAX));
        let stop = Instant::now() + Duration::from_secs(1);
        let tasks: Vec<_> = conns
            .into_iter()
            .map(|c| tokio::spawn(worker(c, uri.clone(), body.clone(), stop, warm.clone())))
            .collect();
        let mut conns = Vec::new();
        for t in tasks {
            conns.push(t.await.expect("warm-up").0);
        }
        let budget = Arc::new(std::sync::atomic::AtomicUsize::new(max_requests));
        let started = Instant::now();
        let stop = started + Duration::from_secs_f64(seconds);
        let tasks: Vec<_> = conns
            .into_iter()
            .map(|c| tokio::spawn(worker(c, uri.clone(), body.clone(), stop, budget.clone())))
            .collect();
        let mut latencies_us = Vec::new();
        let mut errors = 0;
        for t in tasks {
            let (_, l, e) = t.await.expect("worker");
            latencies_us.extend(l);
            errors += e;
        }
        let elapsed = started.elapsed();
        latencies_us.sort_unstable();
        Run {
            requests: latencies_us.len(),
            errors,
            elapsed,
            latencies_us,
        }
    })
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i.min(sorted.len() - 1)]) / 1000.0
}

fn report(name: &str, run: &Run) {
    let rate = run.requests as f64 / run.elapsed.as_secs_f64();
    println!(
        "{name:<10} {:>9.0} req/s  p50 {:>6.2} ms  p99 {:>6.2} ms  ({} requests in {:.1} s, {} errors)",
        rate,
        percentile(&run.latencies_us, 0.50),
        percentile(&run.latencies_us, 0.99),
        run.requests,
        run.elapsed.as_secs_f64(),
        run.errors
    );
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let only: Option<String> = std::env::var("LOAD_ONLY").ok();
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    println!(
        "load: {} connections, {} s per run (after 1 s warm-up), TLS on loopback",
        env_or("LOAD_CONNECTIONS", 64usize),
        env_or("LOAD_SECONDS", 5.0f64)
    );
    let serve = serve_process::start(BIN, "load", &[]);
    let (sdk, sdk_ca) = start_sdk();
    let serve_body = envelope(&deployment());
    let sdk_body = envelope(&workload());
    for (name, h2) in [("serve-h1", false), ("serve-h2", true)] {
        if wanted(name) {
            report(
                name,
                &load(serve.addr, &serve.ca, "/interpret", serve_body.clone(), h2),
            );
        }
    }
    for (name, h2) in [("sdk-h1", false), ("sdk-h2", true)] {
        if wanted(name) {
            let run = load(
                sdk.local_addr(),
                &sdk_ca,
                workload_example::PATH,
                sdk_body.clone(),
                h2,
            );
            report(name, &run);
        }
    }
    if std::env::var_os("LOAD_HOLD").is_some() {
        let dir = std::env::temp_dir();
        let write = |file: &str, bytes: &[u8]| {
            let _ = std::fs::write(dir.join(file), bytes);
        };
        write("ki-load-serve-ca.pem", serve.ca.as_bytes());
        write("ki-load-serve-body.json", &serve_body);
        write("ki-load-sdk-ca.pem", sdk_ca.as_bytes());
        write("ki-load-sdk-body.json", &sdk_body);
        println!(
            "holding: serve https://{}/interpret  sdk https://{}{}  (bodies and CAs in {}); Ctrl-C ends",
            serve.addr,
            sdk.local_addr(),
            workload_example::PATH,
            dir.display()
        );
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}
