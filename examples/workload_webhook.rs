//! An interpreter webhook in Rust for the `workload.example.io/v1alpha1`
//! `Workload` kind: the Rust counterpart of Karmada's example webhook
//! (see `docs/webhook.md`).
//!
//! ```text
//! cargo run --features webhook --example workload_webhook -- --bind-address 127.0.0.1 --secure-port 8445 \
//!     --self-signed --write-config /tmp/workload-webhook.yaml
//! karmada-interpreter test --webhook-config /tmp/workload-webhook.yaml conformance/webhook/workload
//! ```
//!
//! Flags: `--bind-address` (default `0.0.0.0`), `--secure-port` (default
//! 8445; 0 picks a free port), `--cert-dir` (default
//! `/tmp/k8s-webhook-server/serving-certs`, holding `tls.crt` and
//! `tls.key`), `--self-signed` (ignore `--cert-dir`, use a fresh self-signed
//! certificate for localhost/127.0.0.1), `--write-config FILE` (once
//! listening, write a ResourceInterpreterWebhookConfiguration for this
//! server, caBundle included). Subcommand `version`. Paths:
//! `/interpreter-workload` and `/readyz`. SIGINT/SIGTERM stop it gracefully.
//!
//! Semantics (one difference from the Go example: the object is edited as
//! JSON rather than round-tripped through a typed struct, so members the
//! Workload type does not know survive, and inputs that crash the Go example
//! get an error answer instead):
//!
//! | Operation | Answer |
//! |---|---|
//! | InterpretReplica | `replicas` = `spec.replicas`, or 1 when absent |
//! | InterpretComponent | one component `main` with that many replicas |
//! | ReviseReplica | patch setting `spec.replicas` to the request's `replicas` |
//! | Retain | patch copying the observed `spec.paused` (false/absent clears it) |
//! | AggregateStatus | patch setting `status.readyReplicas` to the members' sum (0 removes it) |
//! | InterpretHealth | `status.readyReplicas` (0 when absent) == `spec.replicas` |
//! | InterpretStatus | `{"readyReplicas": N}`, or `{}` when N is 0 or absent |
//! | InterpretDependency | the ConfigMap named by the first container's first `envFrom.configMapRef` |

use std::path::PathBuf;

use karmada_interpreter::api::{Component, DependentObjectReference};
use karmada_interpreter::webhook::sdk::{self, Request, Response};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The path the webhook is served at.
pub const PATH: &str = "/interpreter-workload";

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Workload {
    #[serde(default)]
    metadata: Meta,
    #[serde(default)]
    spec: Spec,
    #[serde(default)]
    status: Status,
}

#[derive(Deserialize, Default)]
struct Meta {
    #[serde(default)]
    namespace: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Spec {
    #[serde(default)]
    replicas: Option<i32>,
    #[serde(default)]
    paused: Option<bool>,
    #[serde(default)]
    template: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Status {
    #[serde(default)]
    ready_replicas: Option<i32>,
}

/// The handler: dispatches on the operation (see the table above).
pub fn handle(req: &Request) -> Response {
    let workload: Workload = match req.decode_object() {
        Ok(w) => w,
        Err(e) => return sdk::errored(400, e),
    };
    let Some(object) = req.object.as_ref() else {
        return sdk::errored(400, "there is no content to decode");
    };
    match req.operation_name.as_str() {
        "InterpretReplica" => {
            let mut r = sdk::succeeded("");
            r.replicas = Some(workload.spec.replicas.unwrap_or(1));
            r
        }
        "InterpretComponent" => {
            let mut r = sdk::succeeded("");
            r.components = Some(vec![Component {
                name: "main".into(),
                replicas: workload.spec.replicas.unwrap_or(1),
                replica_requirements: None,
            }]);
            r
        }
        "ReviseReplica" => {
            let mut wanted = object.clone();
            let Some(spec) = spec_mut(&mut wanted) else {
                return sdk::errored(400, "the object is not a JSON object");
            };
            match req.desired_replicas {
                Some(n) => {
                    spec.insert("replicas".into(), json!(n));
                }
                None => {
                    spec.remove("replicas");
                }
            }
            sdk::patch_response(object, &wanted)
        }
        "Retain" => {
            let Some(observed) = req.observed_object.as_ref() else {
                return sdk::errored(
                    400,
                    "nil observedObject in exploreReview with operation type: Retain",
                );
            };
            let observed: Workload = match sdk::decode_raw(Some(observed)) {
                Ok(w) => w,
                Err(e) => return sdk::errored(400, e),
            };
            let mut wanted = object.clone();
            let Some(spec) = spec_mut(&mut wanted) else {
                return sdk::errored(400, "the object is not a JSON object");
            };
            if observed.spec.paused == Some(true) {
                spec.insert("paused".into(), Value::Bool(true));
            } else {
                spec.remove("paused");
            }
            sdk::patch_response(object, &wanted)
        }
        "AggregateStatus" => {
            let mut ready: i32 = 0;
            for item in &req.aggregated_status {
                let Some(status) = item.status.as_ref().filter(|s| !s.is_null()) else {
                    continue;
                };
                match ready_replicas_of(status) {
                    Ok(n) => ready = ready.wrapping_add(n),
                    Err(e) => return sdk::errored(500, e),
                }
            }
            let mut wanted = object.clone();
            let Some(root) = wanted.as_object_mut() else {
                return sdk::errored(400, "the object is not a JSON object");
            };
            let status = root
                .entry("status")
                .or_insert_with(|| Value::Object(Map::new()));
            if !status.is_object() {
                *status = Value::Object(Map::new());
            }
            if let Some(status) = status.as_object_mut() {
                if ready == 0 {
                    status.remove("readyReplicas");
                } else {
                    status.insert("readyReplicas".into(), json!(ready));
                }
            }
            sdk::patch_response(object, &wanted)
        }
        "InterpretHealth" => {
            let Some(desired) = workload.spec.replicas else {
                return sdk::errored(400, "spec.replicas is missing: cannot judge health");
            };
            let mut r = sdk::succeeded("");
            r.healthy = Some(workload.status.ready_replicas.unwrap_or(0) == desired);
            r
        }
        "InterpretStatus" => {
            let mut r = sdk::succeeded("");
            r.raw_status = Some(match workload.status.ready_replicas {
                Some(n) if n != 0 => json!({ "readyReplicas": n }),
                _ => json!({}),
            });
            r
        }
        "InterpretDependency" => {
            let name = workload
                .spec
                .template
                .as_ref()
                .and_then(|t| t.pointer("/spec/containers/0/envFrom/0/configMapRef"))
                .filter(|r| r.is_object())
                .map(|r| {
                    r.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                });
            let Some(name) = name else {
                return sdk::errored(
                    400,
                    "spec.template.spec.containers[0].envFrom[0].configMapRef is missing",
                );
            };
            let namespace = workload.metadata.namespace.unwrap_or_default();
            let mut r = sdk::succeeded("");
            r.dependencies = Some(vec![DependentObjectReference::named(
                "v1",
                "ConfigMap",
                &namespace,
                &name,
            )]);
            r
        }
        other => sdk::errored(400, format!("wrong request operation type: {other}")),
    }
}

/// `spec` of a JSON object, created (or replaced when not an object) as
/// needed; `None` when the object itself is not a JSON object.
fn spec_mut(object: &mut Value) -> Option<&mut Map<String, Value>> {
    let spec = object
        .as_object_mut()?
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    if !spec.is_object() {
        *spec = Value::Object(Map::new());
    }
    spec.as_object_mut()
}

/// `readyReplicas` of a member status, member names matched
/// case-insensitively as Go's JSON decoder does.
fn ready_replicas_of(status: &Value) -> Result<i32, String> {
    let Value::Object(m) = status else {
        return Err(format!(
            "json: cannot unmarshal {status} into Go value of type v1alpha1.WorkloadStatus"
        ));
    };
    let found = m.iter().find(|(k, _)| *k == "readyReplicas").or_else(|| {
        m.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("readyReplicas"))
    });
    match found.map(|(_, v)| v) {
        None | Some(Value::Null) => Ok(0),
        Some(v) => v
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| {
                format!("json: cannot unmarshal {v} into Go struct field WorkloadStatus.readyReplicas of type int32")
            }),
    }
}

/// A configuration registering this webhook at `url` with `ca_pem` as its
/// CA bundle (the operations of the shipped Go example plus InterpretComponent).
pub fn configuration(url: &str, ca_pem: &str) -> Value {
    json!({
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterWebhookConfiguration",
        "metadata": {"name": "examples"},
        "webhooks": [{
            "name": "workloads.example.com",
            "rules": [{
                "operations": ["InterpretReplica", "InterpretComponent", "ReviseReplica", "Retain",
                               "AggregateStatus", "InterpretHealth", "InterpretStatus", "InterpretDependency"],
                "apiGroups": ["workload.example.io"],
                "apiVersions": ["v1alpha1"],
                "kinds": ["Workload"],
            }],
            "clientConfig": {
                "url": url,
                // ByteString serializes as base64, as caBundle is on the wire.
                "caBundle": k8s_openapi::ByteString(ca_pem.as_bytes().to_vec()),
            },
            "interpreterContextVersions": ["v1alpha1"],
            "timeoutSeconds": 3,
        }],
    })
}

struct Flags {
    bind_address: String,
    secure_port: u16,
    cert_dir: PathBuf,
    self_signed: bool,
    write_config: Option<PathBuf>,
}

fn parse_flags(args: &[String]) -> Result<Flags, String> {
    let mut flags = Flags {
        bind_address: "0.0.0.0".into(),
        secure_port: 8445,
        cert_dir: "/tmp/k8s-webhook-server/serving-certs".into(),
        self_signed: false,
        write_config: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_owned())),
            None => (arg.as_str(), None),
        };
        if name == "--self-signed" {
            flags.self_signed = true;
            continue;
        }
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("flag {name} needs a value"))
        };
        match name {
            "--bind-address" => flags.bind_address = value()?,
            "--secure-port" => {
                let v = value()?;
                flags.secure_port = v
                    .parse()
                    .map_err(|_| format!("--secure-port {v:?} must be between 0 and 65535"))?;
            }
            "--cert-dir" => flags.cert_dir = value()?.into(),
            "--write-config" => flags.write_config = Some(value()?.into()),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    flags
        .bind_address
        .parse::<std::net::IpAddr>()
        .map_err(|_| {
            format!(
                "--bind-address {:?} is not an IP address",
                flags.bind_address
            )
        })?;
    Ok(flags)
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("version") {
        println!(
            "karmada-interpreter-webhook-example {}",
            env!("CARGO_PKG_VERSION")
        );
        return std::process::ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    use karmada_interpreter::webhook::{server::Server, tls::TlsIdentity};
    let flags = parse_flags(args).map_err(|e| format!("configuration is not valid: {e}"))?;
    let identity = if flags.self_signed {
        TlsIdentity::self_signed(&["localhost", "127.0.0.1", "::1"]).map_err(|e| e.to_string())?
    } else {
        TlsIdentity::from_files(
            &flags.cert_dir.join("tls.crt"),
            &flags.cert_dir.join("tls.key"),
        )
        .map_err(|e| e.to_string())?
    };
    let addr = std::net::SocketAddr::new(
        flags.bind_address.parse().map_err(|e| format!("{e}"))?,
        flags.secure_port,
    );
    let ca = identity.cert_pem.clone();
    let running = Server::new(identity)
        .route(PATH, handle)
        .start(addr)
        .map_err(|e| e.to_string())?;
    let local = running.local_addr();
    eprintln!("serving the Workload interpreter webhook on https://{local}{PATH}");
    if let Some(path) = &flags.write_config {
        let host = if local.ip().is_unspecified() {
            "127.0.0.1".to_owned()
        } else {
            local.ip().to_string()
        };
        let url = format!("https://{host}:{}{PATH}", local.port());
        let text =
            serde_json::to_string_pretty(&configuration(&url, &ca)).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .map_err(|e| e.to_string())?;
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        Ok::<(), String>(())
    })?;
    eprintln!("shutting down");
    running.stop();
    Ok(())
}
