//! Native AggregateStatus, InterpretStatus (ReflectStatus) and Pod Retain on
//! Karmada's benchmark inputs (the `native-*-AggregateStatus` and
//! `native-*-ReflectStatus` cases; data outside the repository, measured
//! only when present) and a realistic Pod Retain case.
//!
//! Each input is measured as `op` (the call on decoded values) and
//! `decode all + op` (parsing every input from JSON bytes first), the two
//! figures Karmada measures per case. Like Karmada's reference
//! figures, the measurement is process CPU time per call (not wall time), so
//! that other work on a shared machine does not inflate the numbers. The inputs are found through
//! `KARMADA_BENCH_INPUTS` / `KARMADA_REFERENCE_CASES`, or as `shared/...` in
//! an ancestor of the crate directory.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use karmada_interpreter::api::{AggregatedStatusItem, InterpreterOperation};
use karmada_interpreter::interpreter::{Layer, Request};
use karmada_interpreter_golden::{load_cases, GoldenCase};
use serde_json::Value;

mod common;
use common::{bench_inputs_dir, shared_dir, CpuTime};

fn first_case(path: &Path) -> Option<GoldenCase> {
    load_cases(path).into_iter().flatten().next()
}

/// (label, case) for every input found.
fn inputs() -> Vec<(String, GoldenCase)> {
    let mut out = Vec::new();
    if let Some(dir) = bench_inputs_dir() {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                name.starts_with("native-")
                    && (name.ends_with("-AggregateStatus.yaml")
                        || name.ends_with("-ReflectStatus.yaml"))
            })
            .collect();
        files.sort();
        for file in files {
            if let Some(case) = first_case(&file) {
                let label = file.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
                out.push((label.to_owned(), case));
            }
        }
    } else {
        eprintln!("shared/bench-inputs not found: set KARMADA_BENCH_INPUTS");
    }
    let pod_retain = shared_dir("KARMADA_REFERENCE_CASES", "reference-cases")
        .map(|d| d.join("native/core/v1/Pod/retain-test.yaml"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("conformance/native/core/v1/Pod/retain-test.yaml")
        });
    if let Some(case) = first_case(&pod_retain) {
        out.push(("native-pod-Retain".to_owned(), case));
    }
    out
}

/// The case's inputs as compact JSON bytes (what a caller starting from bytes has).
struct Bytes {
    object: Vec<u8>,
    observed: Vec<u8>,
    items: Option<Vec<u8>>,
}

fn bytes_of(case: &GoldenCase) -> Bytes {
    let enc = |v: &Option<Value>| {
        v.as_ref()
            .map(|v| serde_json::to_vec(v).unwrap_or_default())
            .unwrap_or_default()
    };
    Bytes {
        object: enc(if case.operation == InterpreterOperation::InterpretStatus {
            &case.observed
        } else {
            &case.desired
        }),
        observed: enc(&case.observed),
        items: case
            .status_items
            .as_ref()
            .map(|i| serde_json::to_vec(i).unwrap_or_default()),
    }
}

fn call(
    layer: &dyn Layer,
    op: InterpreterOperation,
    object: &Value,
    observed: &Value,
    items: Option<&[AggregatedStatusItem]>,
) {
    let request = match op {
        InterpreterOperation::AggregateStatus => Request::AggregateStatus { object, items },
        InterpreterOperation::InterpretStatus => Request::InterpretStatus { object },
        _ => Request::Retain {
            desired: object,
            observed,
        },
    };
    let outcome = layer.interpret(&request);
    assert!(outcome.is_ok(), "benchmark input failed: {outcome:?}");
    black_box(outcome.ok());
}

fn bench(c: &mut Criterion<CpuTime>) {
    let layer = karmada_interpreter::native::layer();
    for (label, case) in inputs() {
        let op = case.operation;
        let object = if op == InterpreterOperation::InterpretStatus {
            case.observed.clone()
        } else {
            case.desired.clone()
        }
        .unwrap_or(Value::Null);
        let observed = case.observed.clone().unwrap_or(Value::Null);
        let items = case.status_items.clone();
        c.bench_function(&format!("{label}/op"), |b| {
            b.iter(|| {
                call(
                    layer.as_ref(),
                    op,
                    black_box(&object),
                    black_box(&observed),
                    items.as_deref(),
                )
            })
        });
        let raw = bytes_of(&case);
        c.bench_function(&format!("{label}/decode all + op"), |b| {
            b.iter(|| {
                let object: Value =
                    serde_json::from_slice(black_box(&raw.object)).unwrap_or(Value::Null);
                let observed: Value = if op == InterpreterOperation::Retain {
                    serde_json::from_slice(black_box(&raw.observed)).unwrap_or(Value::Null)
                } else {
                    Value::Null
                };
                let items: Option<Vec<AggregatedStatusItem>> = raw
                    .items
                    .as_ref()
                    .and_then(|i| serde_json::from_slice(black_box(i)).ok());
                call(layer.as_ref(), op, &object, &observed, items.as_deref());
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench
}
criterion_main!(benches);
