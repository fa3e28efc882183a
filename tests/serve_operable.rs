//! `karmada-interpreter serve` as operators run it, through the binary: a
//! script that runs into its deadline does not hold up fast requests on the
//! same connection (short requests are answered on the I/O thread within a
//! budget), one log line per request (text and JSON), Prometheus metrics
//! (requests, errors, latency, script timeouts, in-flight), the probes the
//! manifests in `deploy/` use, and a private key only its owner can read.

use crate::cli_support::serve_process;
use crate::support;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::TokioIo;
use karmada_interpreter::webhook::tls;
use rstest::rstest;
use serde_json::{json, Value};

const BIN: &str = crate::support::BIN;

fn root() -> PathBuf {
    PathBuf::from(crate::support::ROOT)
}

/// A Workload whose replicas are read at once and whose health check never
/// ends (it runs into the 1 s deadline).
const CUSTOMIZATION: &str = r#"apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: workload-ops
spec:
  target:
    apiVersion: workload.example.io/v1alpha1
    kind: Workload
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.replicas, nil
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          local n = 0
          while true do n = n + 1 end
          return true
        end
"#;

fn customization_file(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ki-operable-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("workload.yaml");
    std::fs::write(&file, CUSTOMIZATION).unwrap();
    file
}

fn envelope(uid: &str, operation: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterContext",
        "request": {
            "uid": uid,
            "kind": {"group": "workload.example.io", "version": "v1alpha1", "kind": "Workload"},
            "name": "w", "namespace": "shop",
            "operation": operation,
            "object": {
                "apiVersion": "workload.example.io/v1alpha1", "kind": "Workload",
                "metadata": {"name": "w", "namespace": "shop"},
                "spec": {"replicas": 4}
            }
        }
    }))
    .unwrap()
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// One HTTP/2 connection to `addr`, trusting `ca`.
pub(crate) async fn connect(addr: SocketAddr, ca: &str) -> SendRequest<Full<Bytes>> {
    let config = tls::client_config(ca.as_bytes()).unwrap();
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let stream = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .unwrap();
    let (send, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        TokioIo::new(stream),
    )
    .await
    .unwrap();
    tokio::spawn(conn);
    send
}

/// Sends one request on `send`: a POST of `body` (JSON), or a GET without.
pub(crate) async fn call(
    mut send: SendRequest<Full<Bytes>>,
    port: u16,
    path: &str,
    body: Option<Vec<u8>>,
) -> (u16, String) {
    let builder = hyper::Request::builder().uri(format!("https://127.0.0.1:{port}{path}"));
    let req = match body {
        Some(b) => builder
            .method("POST")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(b))),
        None => builder.method("GET").body(Full::new(Bytes::new())),
    }
    .unwrap();
    let res = send.send_request(req).await.unwrap();
    let status = res.status().as_u16();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// While an InterpretHealth runs into its deadline, InterpretReplica
/// requests on the same HTTP/2 connection are answered one after the other;
/// returns the slowest of them, and the health answer.
fn fast_requests_beside_a_slow_script(serve: &serve_process::ServeProcess) -> (Duration, Value) {
    let (addr, ca) = (serve.addr, serve.ca.clone());
    runtime().block_on(async move {
        let send = connect(addr, &ca).await;
        // Warm up: the first call compiles the script in a fresh state.
        let (status, _) = call(
            send.clone(),
            addr.port(),
            "/interpret",
            Some(envelope("warm", "InterpretReplica")),
        )
        .await;
        assert_eq!(status, 200);
        let slow = tokio::spawn(call(
            send.clone(),
            addr.port(),
            "/interpret",
            Some(envelope("slow", "InterpretHealth")),
        ));
        tokio::time::sleep(Duration::from_millis(150)).await;
        let mut slowest = Duration::ZERO;
        for i in 0..5 {
            let t = Instant::now();
            let (status, body) = call(
                send.clone(),
                addr.port(),
                "/interpret",
                Some(envelope(&format!("fast-{i}"), "InterpretReplica")),
            )
            .await;
            slowest = slowest.max(t.elapsed());
            assert_eq!(status, 200);
            let v: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["response"]["replicas"], 4, "{v}");
        }
        let (_, slow_body) = slow.await.unwrap();
        (slowest, serde_json::from_str(&slow_body).unwrap())
    })
}

fn assert_timed_out(health: &Value) {
    assert_eq!(health["response"]["uid"], "slow");
    assert_eq!(health["response"]["successful"], false, "{health}");
    let message = health["response"]["status"]["message"].as_str().unwrap();
    assert!(message.contains("context deadline exceeded"), "{message}");
}

/// `serve` with one I/O thread (nothing else could answer while it is
/// busy) and `extra` arguments, after [`fast_requests_beside_a_slow_script`]:
/// the slowest fast request.
fn beside_a_slow_script_on_one_io_thread(
    tag: &str,
    extra: &[&str],
) -> (serve_process::ServeProcess, Duration) {
    let file = customization_file(tag);
    let file = file.to_str().unwrap();
    let mut args = vec!["--io-threads", "1", "-f", file];
    args.extend_from_slice(extra);
    let serve = serve_process::start_logged(BIN, tag, &args);
    let (slowest, health) = fast_requests_beside_a_slow_script(&serve);
    assert_timed_out(&health);
    (serve, slowest)
}

#[test]
fn a_script_at_its_deadline_does_not_delay_fast_requests_on_its_connection() {
    let (serve, slowest) = beside_a_slow_script_on_one_io_thread("deadline", &[]);
    assert!(
        slowest < Duration::from_millis(400),
        "a fast request took {slowest:?} while a script ran into its 1 s deadline"
    );
    // The slow request went to the blocking pool once its budget ran out.
    let log = log_with(&serve, "uid=\"slow\"");
    let line = log
        .lines()
        .find(|l| l.contains("uid=\"slow\""))
        .unwrap_or_else(|| panic!("no log line for the slow request:\n{log}"));
    assert!(
        line.contains("thread=\"pool\"") && line.contains("script_timeout=true"),
        "{line}"
    );
    let fast = log.lines().find(|l| l.contains("uid=\"fast-0\"")).unwrap();
    assert!(fast.contains("thread=\"io\""), "{fast}");
}

/// The control: with a budget longer than the deadline the same script
/// holds the only I/O thread, and the fast requests wait for it. (This is
/// what the budget prevents; it shows the test above can fail.)
#[test]
fn without_a_budget_the_slow_script_holds_up_its_connection() {
    let (_serve, slowest) =
        beside_a_slow_script_on_one_io_thread("nobudget", &["--inline-budget-us", "5000000"]);
    assert!(
        slowest >= Duration::from_millis(500),
        "a fast request took only {slowest:?}"
    );
}

/// The log of `serve` once it holds `text` (lines are flushed every 100 ms;
/// at most 5 s).
fn log_with(serve: &serve_process::ServeProcess, text: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let log = serve.log();
        if log.contains(text) || Instant::now() > deadline {
            return log;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Lines of `log` written for the request with `uid`.
fn lines_for<'a>(log: &'a str, uid: &str) -> Vec<&'a str> {
    log.lines().filter(|l| l.contains(uid)).collect()
}

#[rstest]
#[case::text("text")]
#[case::json("json")]
fn one_log_line_per_request_with_its_facts(#[case] format: &str) {
    let file = customization_file(&format!("log-{format}"));
    let serve = serve_process::start_logged(
        BIN,
        &format!("log-{format}"),
        &["--log-format", format, "-f", file.to_str().unwrap()],
    );
    let (addr, ca) = (serve.addr, serve.ca.clone());
    let deployment = json!({
        "apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterContext",
        "request": {"uid": "native-1", "operation": "InterpretReplica",
            "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "object": {"apiVersion": "apps/v1", "kind": "Deployment",
                       "metadata": {"name": "web"}, "spec": {"replicas": 2}}}
    });
    runtime().block_on(async move {
        let send = connect(addr, &ca).await;
        let port = addr.port();
        let bodies = [
            envelope("lua-1", "InterpretReplica"),
            serde_json::to_vec(&deployment).unwrap(),
            envelope("bad-1", "Prune"),
        ];
        for body in bodies {
            call(send.clone(), port, "/interpret", Some(body)).await;
        }
    });
    let log = log_with(&serve, "bad-1");
    // (uid, operation, kind, layer, customization, code)
    let expected = [
        (
            "lua-1",
            "InterpretReplica",
            "workload.example.io/v1alpha1/Workload",
            "declarative",
            "workload-ops",
            200,
        ),
        (
            "native-1",
            "InterpretReplica",
            "apps/v1/Deployment",
            "native",
            "apps/v1/Deployment",
            200,
        ),
        (
            "bad-1",
            "Prune",
            "workload.example.io/v1alpha1/Workload",
            "",
            "",
            400,
        ),
    ];
    for (uid, operation, kind, layer, customization, code) in expected {
        let lines = lines_for(&log, uid);
        assert_eq!(lines.len(), 1, "one line for {uid}:\n{log}");
        let line = lines[0];
        if format == "json" {
            let v: Value = serde_json::from_str(line).unwrap();
            let f = &v["fields"];
            assert_eq!(v["level"], "INFO", "{line}");
            assert_eq!(
                (
                    &f["operation"],
                    &f["kind"],
                    &f["layer"],
                    &f["status"],
                    &f["code"]
                ),
                (
                    &json!(operation),
                    &json!(kind),
                    &json!(layer),
                    &json!(200),
                    &json!(code)
                ),
                "{line}"
            );
            if layer == "declarative" {
                assert_eq!(f["customization"], customization, "{line}");
            }
            assert!(f["duration_ms"].as_f64().unwrap() > 0.0, "{line}");
        } else {
            for part in [
                format!("operation=\"{operation}\""),
                format!("kind={kind}"),
                format!("layer=\"{layer}\""),
                format!("status=200 code={code}"),
                "duration_ms=".to_owned(),
            ] {
                assert!(line.contains(&part), "{part} in {line}");
            }
            if layer == "declarative" {
                assert!(
                    line.contains(&format!("customization=\"{customization}\"")),
                    "{line}"
                );
            }
        }
    }
}

/// `name{labels} value` lines of a Prometheus exposition, by name prefix
/// and a label fragment.
fn metric(text: &str, name: &str, label: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with(name) && l.contains(label))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[test]
fn metrics_count_requests_errors_latency_and_timeouts() {
    let file = customization_file("metrics");
    let serve = serve_process::start(BIN, "metrics", &["-f", file.to_str().unwrap()]);
    let (addr, ca) = (serve.addr, serve.ca.clone());
    let text = runtime().block_on(async move {
        let send = connect(addr, &ca).await;
        let port = addr.port();
        for i in 0..3 {
            let (s, _) = call(
                send.clone(),
                port,
                "/interpret",
                Some(envelope(&format!("r-{i}"), "InterpretReplica")),
            )
            .await;
            assert_eq!(s, 200);
        }
        call(
            send.clone(),
            port,
            "/interpret",
            Some(envelope("slow", "InterpretHealth")),
        )
        .await;
        let (status, text) = call(send.clone(), port, "/metrics", None).await;
        assert_eq!(status, 200);
        text
    });
    let replica = "operation=\"InterpretReplica\",kind=\"workload.example.io/v1alpha1/Workload\",layer=\"declarative\",customization=\"workload-ops\"";
    let health = "operation=\"InterpretHealth\",kind=\"workload.example.io/v1alpha1/Workload\",layer=\"declarative\",customization=\"workload-ops\"";
    let health_500 = format!("{health},code=\"500\"");
    // (metric, labels, value): only the slow script left the I/O thread.
    let expected = [
        ("webhook_requests_total{", replica, 3.0),
        ("webhook_requests_total{", health, 1.0),
        ("webhook_request_errors_total{", health_500.as_str(), 1.0),
        ("webhook_request_errors_total{", replica, 0.0),
        ("script_timeouts_total{", health, 1.0),
        ("webhook_request_duration_seconds_count{", replica, 3.0),
        ("webhook_requests_in_flight", "", 0.0),
        ("webhook_requests_on_blocking_pool_total", "", 1.0),
    ];
    for (name, labels, value) in expected {
        let name = format!("karmada_interpreter_{name}");
        assert_eq!(
            metric(&text, &name, labels),
            value,
            "{name}{labels}:\n{text}"
        );
    }
    // The health check ran into the 1 s deadline.
    let name = "karmada_interpreter_webhook_request_duration_seconds_sum{";
    assert!(metric(&text, name, health) >= 1.0, "{text}");
}

/// The probe paths and ports of `deploy/deployment.yaml`.
fn deploy_probes() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("deploy/deployment.yaml")).unwrap();
    let deployment = text.split("\n---\n").next().unwrap();
    let doc: Value = serde_saphyr::from_str(deployment).unwrap();
    let container = &doc["spec"]["template"]["spec"]["containers"][0];
    ["readinessProbe", "livenessProbe"]
        .iter()
        .map(|p| {
            let get = &container[*p]["httpGet"];
            assert_eq!(get["scheme"], "HTTPS", "{p}");
            (p.to_string(), get["path"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn the_deploy_probes_and_the_metrics_page_answer() {
    let probes = deploy_probes();
    assert_eq!(
        probes.iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>(),
        ["/readyz", "/livez"]
    );
    let serve = serve_process::start(BIN, "probes", &[]);
    let (addr, ca) = (serve.addr, serve.ca.clone());
    runtime().block_on(async move {
        let send = connect(addr, &ca).await;
        for (probe, path) in probes {
            let (status, body) = call(send.clone(), addr.port(), &path, None).await;
            assert_eq!((status, body.as_str()), (200, "ok"), "{probe} {path}");
        }
        let (status, _) = call(send.clone(), addr.port(), "/nothing", None).await;
        assert_eq!(status, 404);
        let (status, text) = call(send.clone(), addr.port(), "/metrics", None).await;
        assert_eq!(status, 200);
        assert!(text.ends_with("# EOF\n"), "{text}");
        assert!(text.contains("# TYPE karmada_interpreter_webhook_requests_in_flight gauge"));
    });
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[test]
fn the_private_key_under_cert_dir_is_readable_by_its_owner_only() {
    let dir = std::env::temp_dir().join(format!("ki-operable-certs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    support::cli_ok(&[
        "serve",
        "--print-config",
        "--cert-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(mode(&dir.join("tls.key")), 0o600);
    assert_eq!(mode(&dir.join("tls.crt")) & 0o600, 0o600);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A script failure is logged at its place in the `-f` file (the answer on
/// the wire keeps Karmada's text).
#[test]
fn a_script_failure_is_logged_at_its_place_in_the_file() {
    let dir = crate::support::scratch("operable-located");
    let file = dir.join("broken.yaml");
    std::fs::write(
        &file,
        CUSTOMIZATION.replace(
            "          return obj.spec.replicas, nil",
            "          return obj.spec.missing.replicas, nil",
        ),
    )
    .unwrap();
    let serve = serve_process::start_logged(
        BIN,
        "located",
        &["--log-format", "json", "-f", file.to_str().unwrap()],
    );
    let (addr, ca) = (serve.addr, serve.ca.clone());
    let (_, body) = runtime().block_on(async move {
        let send = connect(addr, &ca).await;
        call(
            send,
            addr.port(),
            "/interpret",
            Some(envelope("broken-1", "InterpretReplica")),
        )
        .await
    });
    let answer: Value = serde_json::from_str(&body).unwrap();
    let message = answer["response"]["status"]["message"]
        .as_str()
        .unwrap_or("");
    assert!(
        message
            .contains("<string>:2: attempt to index a non-table object(nil) with key 'replicas'"),
        "the wire keeps Karmada's text: {answer}"
    );
    let log = log_with(&serve, "broken-1");
    let lines = lines_for(&log, "broken-1");
    assert_eq!(lines.len(), 1, "{log}");
    let v: Value = serde_json::from_str(lines[0]).unwrap();
    let error = v["fields"]["error"].as_str().unwrap_or("");
    // The script's line 2 is line 13 of the file, its code at column 11.
    assert!(
        error.starts_with(&format!("{}:13:11: ", file.display())),
        "{error}"
    );
    assert!(error.contains("attempt to index"), "{error}");
}

/// An InterpretHealth request for `object` (group, version and kind read
/// from its apiVersion and kind).
fn health_envelope(uid: &str, object: &Value) -> Vec<u8> {
    let api_version = object["apiVersion"].as_str().unwrap();
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    serde_json::to_vec(&json!({
        "apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterContext",
        "request": {"uid": uid, "operation": "InterpretHealth",
            "kind": {"group": group, "version": version, "kind": object["kind"]},
            "name": "w", "namespace": "shop", "object": object}
    }))
    .unwrap()
}

/// An object of `group/v1` `kind` whose Ready condition says `ready`.
fn ready_object(group: &str, kind: &str, ready: &str) -> Value {
    json!({"apiVersion": format!("{group}/v1"), "kind": kind,
           "metadata": {"name": "w", "namespace": "shop", "generation": 2},
           "status": {"observedGeneration": 2, "conditions": [
               {"type": "Ready", "status": ready, "reason": "Broken", "message": "the pump is broken"}]}})
}

/// Why each health layer this project authors said unhealthy travels to
/// the request's log line (the layer's status word and the reason in words)
/// and to the metrics, labelled by layer and status word only; a healthy
/// verdict and a layer of Karmada's (a bundled script) carry no reason.
#[test]
fn an_unhealthy_verdict_logs_its_reason_and_counts_by_layer_and_status() {
    let dir = std::env::temp_dir().join(format!("ki-operable-reasons-{}", std::process::id()));
    let check = dir.join("checks/argo.example.io/Pump");
    std::fs::create_dir_all(&check).unwrap();
    std::fs::write(
        check.join("health.lua"),
        "hs = {}\nhs.status = \"Degraded\"\nhs.message = \"pump: \" .. obj.status.conditions[1].message\nreturn hs\n",
    )
    .unwrap();
    let exprs = dir.join("exprs.yaml");
    std::fs::write(
        &exprs,
        "- apiVersion: cel.example.io/v1\n  kind: Pump\n  current: status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')\n  failed: status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')\n",
    )
    .unwrap();
    let serve = serve_process::start_logged(
        BIN,
        "reasons",
        &[
            "--log-format",
            "json",
            "--health-exprs",
            exprs.to_str().unwrap(),
            "--health-checks",
            dir.join("checks").to_str().unwrap(),
            "--health-fallback",
        ],
    );
    let (addr, ca) = (serve.addr, serve.ca.clone());
    let cronjob_failed = json!({"apiVersion": "apps.kruise.io/v1alpha1", "kind": "BroadcastJob",
        "metadata": {"name": "w", "namespace": "shop"},
        "status": {"desired": 1, "failed": 1, "active": 0, "succeeded": 0}});
    let requests = [
        ("cel-1", ready_object("cel.example.io", "Pump", "False")),
        ("cel-2", ready_object("cel.example.io", "Pump", "False")),
        ("cel-ok", ready_object("cel.example.io", "Pump", "True")),
        ("argo-1", ready_object("argo.example.io", "Pump", "False")),
        (
            "kstatus-1",
            ready_object("kstatus.example.io", "Pump", "False"),
        ),
        ("bundled-1", cronjob_failed),
    ];
    let text = runtime().block_on(async move {
        let send = connect(addr, &ca).await;
        let port = addr.port();
        for (uid, object) in &requests {
            let (s, body) = call(
                send.clone(),
                port,
                "/interpret",
                Some(health_envelope(uid, object)),
            )
            .await;
            assert_eq!(s, 200);
            let healthy =
                serde_json::from_str::<Value>(&body).unwrap()["response"]["healthy"].clone();
            assert_eq!(healthy, json!(*uid == "cel-ok"), "{uid}: {body}");
        }
        call(send.clone(), port, "/metrics", None).await.1
    });
    let log = log_with(&serve, "bundled-1");
    // (uid, layer, health, reason)
    let expected = [
        ("cel-1", "cel", "Failed", "healthCheckExprs[0] cel.example.io/v1 Pump: failed: status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')"),
        ("cel-ok", "cel", "", ""),
        ("argo-1", "argocd", "Degraded", "pump: the pump is broken"),
        ("kstatus-1", "fallback", "InProgress", "condition Ready is False (reason Broken): the pump is broken"),
        ("bundled-1", "thirdparty", "", ""),
    ];
    for (uid, layer, health, reason) in expected {
        let lines = lines_for(&log, &format!("\"{uid}\""));
        assert_eq!(lines.len(), 1, "one line for {uid}:\n{log}");
        let v: Value = serde_json::from_str(lines[0]).unwrap();
        let f = &v["fields"];
        assert_eq!(
            (&f["layer"], &f["health"], &f["reason"]),
            (&json!(layer), &json!(health), &json!(reason)),
            "{}",
            lines[0]
        );
    }
    let name = "karmada_interpreter_unhealthy_verdicts_total{";
    for (labels, value) in [
        (
            "kind=\"cel.example.io/v1/Pump\",layer=\"cel\",status=\"Failed\"",
            2.0,
        ),
        (
            "kind=\"argo.example.io/v1/Pump\",layer=\"argocd\",status=\"Degraded\"",
            1.0,
        ),
        (
            "kind=\"kstatus.example.io/v1/Pump\",layer=\"fallback\",status=\"InProgress\"",
            1.0,
        ),
        ("layer=\"thirdparty\"", 0.0),
    ] {
        assert_eq!(
            metric(&text, name, labels),
            value,
            "{name}{labels}:\n{text}"
        );
    }
    // One label set per (kind, layer, status): the reasons' text is no label.
    assert_eq!(
        text.lines().filter(|l| l.starts_with(name)).count(),
        3,
        "{text}"
    );
}
