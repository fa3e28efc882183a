//! Benchmarks of the native built-ins this crate serves for InterpretReplica,
//! ReviseReplica, Retain, InterpretHealth and InterpretDependency.
//!
//! Inputs: Karmada's `native-*` benchmark cases (data that is not part of the
//! repository; measured only when present), found through
//! `KARMADA_BENCH_INPUTS` or in a `shared/bench-inputs` folder beside the
//! checkout, plus realistic
//! objects from the project's own golden cases. Cases are loaded when the
//! benchmark starts. Each input is measured three ways:
//! - `op`: the native handler on an already decoded object (Karmada's "op");
//! - `chain`: the same request through the whole interpreter chain;
//! - `decode+op`: decoding every input from compact JSON bytes, then the
//!   chain call (Karmada's "decode all + op").
//!
//! ReviseReplica and Retain are also measured on an object handed over
//! (`owned`) and lent mutably (`in place`); plain `op` lends the object, so
//! its answer is an edited deep copy.

use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::interpreter::{InPlaceRequest, Interpreter, OwnedRequest, Request};
use karmada_interpreter_golden::{load_cases, GoldenCase};
use serde_json::Value;

mod common;
use common::{bench_inputs_dir, CpuTime};

/// The operations under test.
const OPS: [Op; 5] = [
    Op::InterpretReplica,
    Op::ReviseReplica,
    Op::Retain,
    Op::InterpretHealth,
    Op::InterpretDependency,
];

/// (label, case) pairs to measure.
fn inputs() -> Vec<(String, GoldenCase)> {
    let mut out = Vec::new();
    if let Some(dir) = bench_inputs_dir() {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for file in files {
            let name = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("")
                .to_owned();
            if !name.starts_with("native-") {
                continue;
            }
            for case in load_cases(&file).into_iter().flatten() {
                if OPS.contains(&case.operation) {
                    out.push((name.clone(), case));
                }
            }
        }
    } else {
        eprintln!("bench-inputs not found (set KARMADA_BENCH_INPUTS); measuring golden cases only");
    }
    // Realistic objects from the project's golden cases.
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/native");
    let picks = [
        (
            "apps/v1/StatefulSet/interpretreplica-test.yaml",
            "statefulset spec example with init container and overhead",
        ),
        (
            "batch/v1/Job/interpretdependency-test.yaml",
            "job every dependency source",
        ),
        (
            "core/v1/ServiceAccount/retain-test.yaml",
            "serviceaccount observed empty desired",
        ),
        (
            "core/v1/Service/interprethealth-test.yaml",
            "service load balancer with ip",
        ),
        (
            "apps/v1/Deployment/revisereplica-test.yaml",
            "deployment revise replicas up",
        ),
        (
            "networking.k8s.io/v1/Ingress/interpretdependency-test.yaml",
            "ingress tls secrets in order",
        ),
    ];
    for (file, name) in picks {
        let path = golden.join(file);
        if let Some(case) = load_cases(&path)
            .into_iter()
            .flatten()
            .find(|c| c.name == name)
        {
            out.push((format!("golden: {name}"), case));
        }
    }
    out
}

fn request(case: &GoldenCase) -> Request<'_> {
    case.request()
        .unwrap_or_else(|e| panic!("bench case {:?}: {e}", case.name))
}

fn bench(c: &mut Criterion<CpuTime>) {
    let chain = Interpreter::builder()
        .build()
        .expect("the default chain builds");
    let native = karmada_interpreter::native::layer();
    for (label, case) in inputs() {
        let mut group = c.benchmark_group(format!("{} {label}", case.operation));
        let req = request(&case);
        // Every input must be answered: a failing benchmark measures nothing useful.
        if let Err(e) = chain.interpret(&req) {
            panic!("{label}: {e}");
        }
        group.bench_function(BenchmarkId::new("op", ""), |b| {
            b.iter(|| native.interpret(std::hint::black_box(&req)))
        });
        group.bench_function(BenchmarkId::new("chain", ""), |b| {
            b.iter(|| chain.interpret(std::hint::black_box(&req)))
        });
        // Editing operations on an object the caller hands over (the copy
        // made for each iteration is not measured): the in-place edit alone.
        if req.to_owned_edit().is_some() {
            group.bench_function(BenchmarkId::new("op owned", ""), |b| {
                b.iter_batched(
                    || req.to_owned_edit(),
                    |r| r.map(|r| native.interpret_owned(r)),
                    BatchSize::SmallInput,
                )
            });
            group.bench_function(BenchmarkId::new("chain owned", ""), |b| {
                b.iter_batched(
                    || req.to_owned_edit(),
                    |r| r.map(|r| chain.interpret_owned(r)),
                    BatchSize::SmallInput,
                )
            });
            // The object lent mutably (`revise_replica(&mut object, n)`):
            // edited in place, Karmada's own semantics; the copy each
            // iteration starts from is not measured.
            group.bench_function(BenchmarkId::new("op in place", ""), |b| {
                b.iter_batched_ref(
                    || req.object().clone(),
                    |object| in_place(req, object).map(|r| native.interpret_in_place(r)),
                    BatchSize::SmallInput,
                )
            });
            group.bench_function(BenchmarkId::new("chain in place", ""), |b| {
                b.iter_batched_ref(
                    || req.object().clone(),
                    |object| in_place(req, object).map(|r| chain.interpret_in_place(r)),
                    BatchSize::SmallInput,
                )
            });
        }
        let primary = serde_json::to_vec(req.object()).expect("encodes");
        let observed = match req {
            Request::Retain { observed, .. } => {
                Some(serde_json::to_vec(observed).expect("encodes"))
            }
            _ => None,
        };
        let replicas = case.input_replicas;
        let op = case.operation;
        group.bench_function(BenchmarkId::new("decode+op", ""), |b| {
            b.iter(|| {
                let object: Value =
                    serde_json::from_slice(std::hint::black_box(&primary)).expect("decodes");
                let other: Option<Value> = observed
                    .as_ref()
                    .map(|o| serde_json::from_slice(o).expect("decodes"));
                // The decoded object is the caller's: editing operations hand it over.
                let request = match op {
                    Op::InterpretReplica => Request::InterpretReplica { object: &object },
                    Op::ReviseReplica => {
                        return chain
                            .interpret_owned(OwnedRequest::ReviseReplica { object, replicas })
                            .map(|_| ())
                    }
                    Op::Retain => {
                        let observed = other.unwrap_or(Value::Null);
                        return chain
                            .interpret_owned(OwnedRequest::Retain {
                                desired: object,
                                observed: &observed,
                            })
                            .map(|_| ());
                    }
                    Op::InterpretHealth => Request::InterpretHealth { object: &object },
                    _ => Request::InterpretDependency { object: &object },
                };
                chain.interpret(&request).map(|_| ())
            })
        });
        group.finish();
    }
}

/// `request` (ReviseReplica or Retain) on `object` lent mutably.
fn in_place<'a>(request: Request<'a>, object: &'a mut Value) -> Option<InPlaceRequest<'a>> {
    match request {
        Request::ReviseReplica { replicas, .. } => {
            Some(InPlaceRequest::ReviseReplica { object, replicas })
        }
        Request::Retain { observed, .. } => Some(InPlaceRequest::Retain {
            desired: object,
            observed,
        }),
        _ => None,
    }
}

/// Floors for comparison: what cloning and typed-decoding the Deployment
/// input cost on their own (every owned result needs the clone; every typed
/// operation needs the decode).
fn floors(c: &mut Criterion<CpuTime>) {
    let Some(case) = inputs()
        .into_iter()
        .find(|(label, _)| label == "native-deployment-GetReplicas")
    else {
        return;
    };
    let object = request(&case.1).object().clone();
    let mut group = c.benchmark_group("floor native-deployment-GetReplicas");
    group.bench_function("clone", |b| {
        b.iter(|| std::hint::black_box(&object).clone())
    });
    group.bench_function("typed decode (k8s-openapi)", |b| {
        b.iter(|| {
            <k8s_openapi::api::apps::v1::Deployment as serde::Deserialize>::deserialize(
                std::hint::black_box(&object),
            )
            .map(|_| ())
        })
    });
    group.bench_function("parse 4 quantities", |b| {
        b.iter(|| {
            ["250m", "256Mi", "500m", "512Mi"]
                .iter()
                .map(|q| {
                    karmada_interpreter::k8s::quantity::Quantity::parse(std::hint::black_box(q))
                        .map(|q| q.milli_value_ceil())
                })
                .collect::<Vec<_>>()
        })
    });
    let bytes = serde_json::to_vec(&object).expect("encodes");
    group.bench_function("json bytes to Value", |b| {
        b.iter(|| serde_json::from_slice::<Value>(std::hint::black_box(&bytes)).map(|_| ()))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench, floors
}
criterion_main!(benches);
