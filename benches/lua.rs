//! Lua engine benchmarks.
//!
//! * `lua-bench-inputs/*`: Karmada's `lua-*` benchmark cases (data outside
//!   the repository, in `$KARMADA_BENCH_INPUTS` or a `shared/bench-inputs`
//!   folder beside the checkout; skipped when absent) through the built-in
//!   chain, served by the bundled third-party customizations; the figures to
//!   compare with are in `docs/lua-engine.md` ("Speed").
//!
//! Every group measures process CPU time per call (`common::CpuTime`).
//! * `lua-entry-points/*`: one call of each entry point on the engine's own
//!   conformance customizations (`conformance/lua/engine`).
//! * `lua-conversion/*`: host → Lua → host conversion of a Deployment.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use karmada_interpreter::api::AggregatedStatusItem;
use karmada_interpreter::declarative::LuaLayer;
use karmada_interpreter::interpreter::{Layer, LayerKind, Request};
use karmada_interpreter::Interpreter;
use karmada_interpreter_golden::parse_cases;
use serde_json::{json, Value};

mod common;
use common::{bench_inputs_dir, CpuTime};

fn bench_inputs(c: &mut Criterion<CpuTime>) {
    let Some(dir) = bench_inputs_dir() else {
        eprintln!("lua-bench-inputs: no bench-inputs folder found, skipped");
        return;
    };
    let chain = Interpreter::default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let mut group = c.benchmark_group("lua-bench-inputs");
    for file in files {
        let name = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        if !name.starts_with("lua-") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for case in parse_cases(&text, &file).into_iter().flatten() {
            let Ok(request) = case.request() else {
                continue;
            };
            match chain.interpret(&request) {
                Ok(answer) if answer.served_by.layer == LayerKind::Thirdparty => {}
                Ok(answer) => {
                    eprintln!(
                        "{name}: served by {}, not by a bundled customization: skipped",
                        answer.served_by
                    );
                    continue;
                }
                Err(e) => {
                    eprintln!("{name}: {e}: skipped");
                    continue;
                }
            }
            group.bench_function(&name, |b| {
                b.iter(|| black_box(chain.interpret(&request).unwrap()))
            });
        }
    }
    group.finish();
}

fn engine_layer() -> LuaLayer {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/lua/engine/customizations.yaml");
    let items = karmada_interpreter::load::customizations_from_file(&path).unwrap();
    LuaLayer::customizations(items).unwrap()
}

fn workload() -> Value {
    json!({
        "apiVersion": "lua.example.io/v1", "kind": "Workload",
        "metadata": {"name": "w", "namespace": "ns", "labels": {"app": "web"}},
        "spec": {
            "replicas": 3,
            "owner": "robot",
            "roles": [{"name": "leader", "replicas": 1, "template": {"spec": {"containers": [
                {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}]}}}],
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                "serviceAccountName": "robot",
                "nodeSelector": {"zone": "a"},
                "containers": [{"name": "c", "image": "nginx:1.25",
                    "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}}],
                    "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"cpu": "1"}}}],
                "volumes": [{"name": "v", "secret": {"secretName": "s"}}]}}
        },
        "status": {"replicas": 3, "readyReplicas": 3, "ratio": 0.5,
                   "conditions": [{"type": "Available", "status": "True"}]}
    })
}

fn entry_points(c: &mut Criterion<CpuTime>) {
    let layer = engine_layer();
    let obj = workload();
    let items: Vec<AggregatedStatusItem> = (1..=3)
        .map(|i| AggregatedStatusItem {
            cluster_name: format!("member{i}"),
            status: Some(json!({"replicas": i, "readyReplicas": i})),
            applied: true,
            ..Default::default()
        })
        .collect();
    let requests: Vec<(&str, Request<'_>)> = vec![
        ("GetReplicas", Request::InterpretReplica { object: &obj }),
        (
            "GetComponents",
            Request::InterpretComponent { object: &obj },
        ),
        (
            "ReviseReplica",
            Request::ReviseReplica {
                object: &obj,
                replicas: 5,
            },
        ),
        (
            "Retain",
            Request::Retain {
                desired: &obj,
                observed: &obj,
            },
        ),
        (
            "AggregateStatus",
            Request::AggregateStatus {
                object: &obj,
                items: Some(&items),
            },
        ),
        ("ReflectStatus", Request::InterpretStatus { object: &obj }),
        ("InterpretHealth", Request::InterpretHealth { object: &obj }),
        (
            "GetDependencies",
            Request::InterpretDependency { object: &obj },
        ),
    ];
    let mut group = c.benchmark_group("lua-entry-points");
    for (name, request) in &requests {
        layer.interpret(request).unwrap();
        group.bench_function(*name, |b| {
            b.iter(|| black_box(layer.interpret(request).unwrap()))
        });
    }
    group.finish();
}

fn conversion(c: &mut Criterion<CpuTime>) {
    // A script that returns its argument: the cost is the two conversions.
    let yaml = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: identity}
spec:
  target: {apiVersion: lua.example.io/v1, kind: Workload}
  customizations:
    retention:
      luaScript: "function Retain(d, o) return d end"
    healthInterpretation:
      luaScript: "function InterpretHealth(o) return true end"
"#;
    let items = karmada_interpreter::load::customizations_from_str(yaml, "bench").unwrap();
    let layer = LuaLayer::customizations(items).unwrap();
    let obj = workload();
    let mut group = c.benchmark_group("lua-conversion");
    group.bench_function("InterpretHealth-noop (to Lua only)", |b| {
        b.iter(|| {
            black_box(
                layer
                    .interpret(&Request::InterpretHealth { object: &obj })
                    .unwrap(),
            )
        })
    });
    group.bench_function(
        "Retain-identity (to Lua twice, back once, reconcile)",
        |b| {
            b.iter(|| {
                black_box(
                    layer
                        .interpret(&Request::Retain {
                            desired: &obj,
                            observed: &obj,
                        })
                        .unwrap(),
                )
            })
        },
    );
    group.finish();
}

criterion_group! {
    name = benches;
    // Process CPU time: Karmada's figures are CPU time, and other work on a
    // shared machine does not inflate it.
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench_inputs, entry_points, conversion
}
criterion_main!(benches);
