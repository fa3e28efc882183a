//! Robustness of the native status operations: arbitrary and mutated objects
//! and status items never make AggregateStatus, InterpretStatus or Pod Retain
//! panic; they answer or fail with an error that names the object.
//!
//! Seeds are the project's own golden cases (`conformance/native`); a small
//! deterministic generator mutates them (replacing, deleting and inserting
//! values of every JSON type at random paths), so runs are reproducible.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many reflected statuses were fed back to AggregateStatus.
static ROUND_TRIPS: AtomicUsize = AtomicUsize::new(0);

use karmada_interpreter::api::{AggregatedStatusItem, InterpreterOperation};
use karmada_interpreter::interpreter::{Outcome, Request};
use karmada_interpreter_golden::GoldenCase;
use serde_json::{json, Value};

use crate::support::mutator::{mutate, random_value};
use crate::support::rng::Rng;

fn seeds() -> Vec<GoldenCase> {
    let mut out = crate::support::golden_cases(&["conformance/native"]);
    out.retain(|case| {
        let op = case.operation;
        op == InterpreterOperation::AggregateStatus
            || op == InterpreterOperation::InterpretStatus
            || (op == InterpreterOperation::Retain
                && case.desired.as_ref().and_then(|d| d.get("kind")) == Some(&json!("Pod")))
    });
    assert!(
        out.len() > 100,
        "expected the project's golden cases as seeds"
    );
    out
}

/// Runs one request; a panic fails the test, an error must name something.
fn run(request: &Request<'_>, label: &str) {
    let layer = karmada_interpreter::native::layer();
    let result = catch_unwind(AssertUnwindSafe(|| layer.interpret(request)));
    match result {
        Err(_) => panic!("panicked on {label}: {request:?}"),
        Ok(Err(e)) => assert!(!e.to_string().is_empty(), "empty error on {label}"),
        Ok(Ok(outcome)) => {
            if let Outcome::Aggregated(v) | Outcome::Retained(v) = &outcome {
                assert!(v.is_object(), "{label}: result is not an object: {v}");
            }
        }
    }
}

fn exercise(case: &GoldenCase, rng: &mut Rng, rounds: usize) {
    let object = case
        .desired
        .clone()
        .or_else(|| case.observed.clone())
        .unwrap_or_else(|| json!({}));
    for round in 0..rounds {
        let mut object = object.clone();
        let mut other = case
            .observed
            .clone()
            .unwrap_or_else(|| json!({"kind": "Pod"}));
        let mut items: Option<Vec<Value>> = case.status_items.as_ref().map(|items| {
            items
                .iter()
                .map(|i| serde_json::to_value(i).unwrap_or_default())
                .collect()
        });
        for _ in 0..1 + rng.below(3) {
            match rng.below(3) {
                0 => mutate(rng, &mut object),
                1 => mutate(rng, &mut other),
                _ => {
                    let list = items.get_or_insert_with(Vec::new);
                    if list.is_empty() || rng.below(4) == 0 {
                        // A `null` item (Go's zero item), member names in
                        // another case (Go matches them case-insensitively),
                        // or a plain item.
                        list.push(match rng.below(4) {
                            0 => Value::Null,
                            1 => json!({"ClusterName": format!("c{round}"), "STATUS": random_value(rng, 4)}),
                            _ => json!({"clusterName": format!("c{round}"), "status": random_value(rng, 4)}),
                        });
                    } else {
                        let i = rng.below(list.len());
                        if let Some(status) = list[i].get_mut("status") {
                            mutate(rng, status);
                        } else {
                            list[i]["status"] = random_value(rng, 4);
                        }
                    }
                }
            }
        }
        // Keep the dispatch key so the kind's own handler is exercised.
        for key in ["apiVersion", "kind"] {
            if let (Some(v), Some(m)) = (
                case.desired
                    .as_ref()
                    .or(case.observed.as_ref())
                    .and_then(|o| o.get(key)),
                object.as_object_mut(),
            ) {
                m.insert(key.to_owned(), v.clone());
            }
        }
        let items: Option<Vec<AggregatedStatusItem>> = items.map(|list| {
            list.into_iter()
                .filter_map(|i| serde_json::from_value(i).ok())
                .collect()
        });
        let label = format!("{} round {round}", case.label());
        match case.operation {
            InterpreterOperation::AggregateStatus => {
                run(
                    &Request::AggregateStatus {
                        object: &object,
                        items: items.as_deref(),
                    },
                    &label,
                );
                run(
                    &Request::AggregateStatus {
                        object: &object,
                        items: None,
                    },
                    &label,
                );
            }
            InterpreterOperation::InterpretStatus => {
                run(&Request::InterpretStatus { object: &object }, &label);
                reflected_status_aggregates(&object, &label);
            }
            _ => run(
                &Request::Retain {
                    desired: &object,
                    observed: &other,
                },
                &label,
            ),
        }
    }
}

/// Kinds whose InterpretStatus builds a typed status that AggregateStatus reads back.
const TYPED_REFLECTION: &[(&str, &str)] = &[
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "Job"),
    ("v1", "Service"),
    ("policy/v1", "PodDisruptionBudget"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
];

/// What InterpretStatus reflects from a member object, AggregateStatus must
/// accept as that member's status item (the two halves of one round trip).
fn reflected_status_aggregates(object: &Value, label: &str) {
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !TYPED_REFLECTION.contains(&(api_version, kind)) {
        return;
    }
    let layer = karmada_interpreter::native::layer();
    let Ok(Outcome::Status(Some(status))) = layer.interpret(&Request::InterpretStatus { object })
    else {
        return;
    };
    let template = json!({
        "apiVersion": object.get("apiVersion").cloned().unwrap_or(Value::Null),
        "kind": kind,
        "metadata": {"name": "t"},
        "spec": {"type": "LoadBalancer"},
    });
    let template = if kind == "Service" {
        template
    } else {
        let mut t = template;
        t.as_object_mut().map(|m| m.remove("spec"));
        t
    };
    let items = [AggregatedStatusItem {
        cluster_name: "member".into(),
        status: Some(status.clone()),
        ..Default::default()
    }];
    let result = layer.interpret(&Request::AggregateStatus {
        object: &template,
        items: Some(&items),
    });
    ROUND_TRIPS.fetch_add(1, Ordering::Relaxed);
    assert!(
        result.is_ok(),
        "{label}: reflected status {status} does not aggregate: {result:?}"
    );
}

#[test]
fn mutated_golden_inputs_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in seeds() {
        exercise(&case, &mut rng, 60);
    }
    let trips = ROUND_TRIPS.load(Ordering::Relaxed);
    assert!(trips > 200, "only {trips} reflect → aggregate round trips");
}

#[test]
fn arbitrary_values_never_panic_for_every_served_kind() {
    let kinds = [
        ("apps/v1", "Deployment"),
        ("apps/v1", "ReplicaSet"),
        ("apps/v1", "StatefulSet"),
        ("apps/v1", "DaemonSet"),
        ("batch/v1", "Job"),
        ("batch/v1", "CronJob"),
        ("v1", "Pod"),
        ("v1", "Service"),
        ("networking.k8s.io/v1", "Ingress"),
        ("v1", "PersistentVolume"),
        ("v1", "PersistentVolumeClaim"),
        ("policy/v1", "PodDisruptionBudget"),
        ("autoscaling/v2", "HorizontalPodAutoscaler"),
        ("example.io/v1", "Widget"),
    ];
    let mut rng = Rng(42);
    for (api_version, kind) in kinds {
        for round in 0..300 {
            let mut object = random_value(&mut rng, 5);
            if !object.is_object() {
                object = json!({"spec": object});
            }
            object["apiVersion"] = json!(api_version);
            object["kind"] = json!(kind);
            let items: Vec<AggregatedStatusItem> = (0..rng.below(4))
                .map(|i| AggregatedStatusItem {
                    cluster_name: format!("m{i}"),
                    status: Some(random_value(&mut rng, 4)),
                    ..Default::default()
                })
                .collect();
            let label = format!("{kind} round {round}");
            run(
                &Request::AggregateStatus {
                    object: &object,
                    items: Some(&items),
                },
                &label,
            );
            run(&Request::InterpretStatus { object: &object }, &label);
            let observed = random_value(&mut rng, 5);
            run(
                &Request::Retain {
                    desired: &object,
                    observed: &observed,
                },
                &label,
            );
        }
    }
}
