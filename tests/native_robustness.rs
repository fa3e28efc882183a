//! Robustness of the native built-ins on arbitrary input: every served
//! (kind, operation) of InterpretReplica, ReviseReplica, Retain,
//! InterpretHealth and InterpretDependency gets thousands of mutated objects
//! (seeded from the project's golden cases) and must answer or fail with an
//! error — never panic. Raw-access operations (ReviseReplica, Retain except
//! Pod) must also leave every field they do not own untouched.
//!
//! The mutator and its generator are the tests' shared deterministic ones
//! (`support::mutator`), so failures reproduce.

use std::panic::{catch_unwind, AssertUnwindSafe};

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::interpreter::{Outcome, Request};
use karmada_interpreter::{Error, Result};
use serde_json::{json, Map, Value};

use crate::support::mutator::mutated;
use crate::support::rng::Rng;

/// Removes the paths an operation owns, to compare the rest.
/// Writing creates missing intermediate objects, so parents left empty are
/// pruned too (on both sides of the comparison).
fn without(mut value: Value, owned: &[&[&str]]) -> Value {
    for path in owned {
        for depth in (1..=path.len()).rev() {
            let (leaf, parents) = path[..depth].split_last().expect("depth >= 1");
            let parent = parents
                .iter()
                .try_fold(&mut value, |cur, p| cur.get_mut(*p));
            if let Some(Value::Object(m)) = parent {
                let prune = depth == path.len()
                    || m.get(*leaf)
                        .is_some_and(|v| v.as_object().is_some_and(Map::is_empty));
                if prune {
                    m.remove(*leaf);
                }
            }
        }
    }
    value
}

/// Fields each raw-access operation may write, per kind.
fn owned(op: Op, kind: &str) -> Option<&'static [&'static [&'static str]]> {
    match (op, kind) {
        (Op::ReviseReplica, "Job") => Some(&[&["spec", "parallelism"]]),
        (Op::ReviseReplica, _) => Some(&[&["spec", "replicas"]]),
        (Op::Retain, "Deployment") => Some(&[&["spec", "replicas"]]),
        (Op::Retain, "Service") => {
            Some(&[&["spec", "clusterIP"], &["spec", "healthCheckNodePort"]])
        }
        (Op::Retain, "ServiceAccount") => Some(&[&["secrets"], &["imagePullSecrets"]]),
        (Op::Retain, "PersistentVolumeClaim") => Some(&[&["spec", "volumeName"]]),
        (Op::Retain, "PersistentVolume") => Some(&[&["spec", "claimRef"]]),
        (Op::Retain, "Job") => Some(&[
            &["spec", "selector", "matchLabels"],
            &["spec", "template", "metadata", "labels"],
        ]),
        (Op::Retain, "Secret") => Some(&[&["data"]]),
        _ => None,
    }
}

const OPS: [Op; 5] = [
    Op::InterpretReplica,
    Op::ReviseReplica,
    Op::Retain,
    Op::InterpretHealth,
    Op::InterpretDependency,
];

/// Seed objects: every object of the project's native golden cases for the
/// operations under test.
fn seeds() -> Vec<(Op, Value, Option<Value>)> {
    let mut out = Vec::new();
    for case in crate::support::golden_cases(&["conformance/native"]) {
        if !OPS.contains(&case.operation) {
            continue;
        }
        let primary = case.desired.clone().or_else(|| case.observed.clone());
        if let Some(primary) = primary {
            let observed = if case.operation == Op::Retain {
                case.observed.clone()
            } else {
                None
            };
            out.push((case.operation, primary, observed));
        }
    }
    out
}

#[test]
fn mutated_objects_never_panic_and_raw_access_keeps_foreign_fields() {
    let layer = karmada_interpreter::native::layer();
    let seeds = seeds();
    assert!(
        seeds.len() > 200,
        "expected the golden cases as seeds, found {}",
        seeds.len()
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut answered = 0usize;
    let mut failed = 0usize;
    for round in 0..12 {
        for (op, primary, observed) in &seeds {
            let object = mutated(&mut rng, primary);
            let other = observed.as_ref().map(|o| mutated(&mut rng, o));
            let replicas = [0, 3, -1, i64::MAX][rng.below(4)];
            let request = match op {
                Op::InterpretReplica => Request::InterpretReplica { object: &object },
                Op::ReviseReplica => Request::ReviseReplica {
                    object: &object,
                    replicas,
                },
                Op::Retain => Request::Retain {
                    desired: &object,
                    observed: other.as_ref().unwrap_or(&object),
                },
                Op::InterpretHealth => Request::InterpretHealth { object: &object },
                _ => Request::InterpretDependency { object: &object },
            };
            let result = catch_unwind(AssertUnwindSafe(|| layer.interpret(&request)));
            let result = result.unwrap_or_else(|_| {
                panic!(
                    "round {round}: {op} panicked on {}",
                    serde_json::to_string(&request_input(&request)).unwrap_or_default()
                )
            });
            // Handing the object over must give exactly the same answer.
            if let Some(by_value) = request.to_owned_edit() {
                let owned_result =
                    catch_unwind(AssertUnwindSafe(|| layer.interpret_owned(by_value)))
                        .unwrap_or_else(|_| panic!("round {round}: owned {op} panicked"));
                match (&result, &owned_result) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "owned {op} answered differently"),
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                    _ => panic!("owned {op}: {owned_result:?}, borrowed: {result:?}"),
                }
            }
            match result {
                Err(e) => {
                    failed += 1;
                    assert!(!e.to_string().is_empty());
                }
                Ok(outcome) => {
                    answered += 1;
                    let kind = object["kind"].as_str().unwrap_or("");
                    let written = match outcome {
                        Outcome::Revised(v) | Outcome::Retained(v) => Some(v),
                        _ => None,
                    };
                    if let (Some(written), Some(owned)) = (written, owned(*op, kind)) {
                        assert_eq!(
                            without(written, owned),
                            without(object.clone(), owned),
                            "{op} on {kind} changed a field it does not own"
                        );
                    }
                }
            }
        }
    }
    // The mutations must exercise both paths.
    assert!(
        answered > 100 && failed > 100,
        "answered {answered}, failed {failed}"
    );
}

fn request_input(request: &Request<'_>) -> Value {
    match request {
        Request::Retain { desired, observed } => json!({"desired": desired, "observed": observed}),
        other => other.object().clone(),
    }
}

/// `result` must be the typed error for field `field` of the object, its
/// reason containing `reason`.
fn assert_invalid_field(result: Result<Outcome>, field: &str, reason: &str, what: &str) {
    match result {
        Err(Error::InvalidField {
            field: f,
            reason: r,
            ..
        }) => {
            assert_eq!(f, field, "{what}: {r}");
            assert!(r.contains(reason), "{what}: {r:?} does not say {reason:?}");
        }
        other => panic!("{what}: expected an invalid `{field}`, got {other:?}"),
    }
}

/// `result` must be InterpretReplica's answer: `replicas` and the per-replica
/// resource request `request` (JSON), `None` for no requirements.
fn assert_replicas(result: Result<Outcome>, replicas: i32, request: Option<Value>, what: &str) {
    match result {
        Ok(Outcome::Replicas(r)) => {
            assert_eq!(r.replicas, replicas, "{what}");
            let got = r.requirements.map(|q| {
                assert!(q.node_claim.is_none(), "{what}: {q:?}");
                serde_json::to_value(&q.resource_request).unwrap()
            });
            assert_eq!(got, request, "{what}");
        }
        other => panic!("{what}: expected replicas, got {other:?}"),
    }
}

#[test]
fn deep_and_huge_inputs_are_errors_not_panics() {
    let layer = karmada_interpreter::native::layer();
    // Sums that overflow 64 bits, values beyond every range: Karmada's
    // answers (its `util.Resource` reads each request with Go's
    // MilliValue()/Value() and adds them as int64s; a total that wraps to a
    // value that is not positive is left out).
    let max = i64::MAX.to_string();
    let big = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [
            {"name": "a", "resources": {"requests": {"cpu": max, "memory": "8Ei", "example.com/x": max}}},
            {"name": "b", "resources": {"requests": {"cpu": max, "memory": "8Ei", "example.com/x": max}}}
        ], "overhead": {"memory": "8Ei"}}});
    assert_replicas(
        layer.interpret(&Request::InterpretReplica { object: &big }),
        1,
        Some(json!({"memory": "9223372036854775805"})),
        "overflowing sum",
    );
    // Extreme exponents: too large to parse is an error (Karmada leaves the
    // request out: an open difference); too small rounds up to the smallest
    // unit (1m of cpu, 1 byte); negative totals are dropped; beyond the
    // 64-bit range saturates, as Karmada answers.
    let tiny = json!({"cpu": "1m", "hugepages-1Gi": "1", "memory": "1"});
    let saturated = json!({"hugepages-1Gi": max, "memory": max});
    for (q, expected) in [
        ("1e100000", None),
        ("1e-100000", Some(Some(tiny.clone()))),
        ("-1e18", Some(None)),
        ("0.0000000001", Some(Some(tiny))),
        ("999999999999999999999999999999Ei", Some(Some(saturated))),
    ] {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [
            {"name": "a", "resources": {"requests": {"cpu": q, "memory": q, "hugepages-1Gi": q}}}]}});
        let result = layer.interpret(&Request::InterpretReplica { object: &pod });
        match expected {
            None => assert_invalid_field(
                result,
                "spec.containers[0].resources.requests.cpu",
                &format!("cannot parse '{q}': quantity is too large"),
                q,
            ),
            Some(request) => assert_replicas(result, 1, request, q),
        }
    }
    // Wrong shapes at the top level: the field named, or not served; an
    // operation that does not read the field answers with the object as it
    // was (Karmada's Retain of a Deployment reads only metadata, its
    // ReviseReplica only spec.replicas, absent here).
    use Expect::{Field, NotServed, Unchanged};
    const DEPLOYMENT_SPEC: Expect =
        Field("spec", "expected an object (DeploymentSpec), got a number");
    const OBJECT_META: Expect = Field("metadata", "expected an object (ObjectMeta), got an array");
    let cases = [
        (
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": 1}),
            [
                DEPLOYMENT_SPEC,
                Field("spec", "expected an object, got integer"),
                Unchanged,
                DEPLOYMENT_SPEC,
                DEPLOYMENT_SPEC,
            ],
        ),
        (
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": []}),
            [
                OBJECT_META,
                Unchanged,
                Field("metadata", "expected an object, got array"),
                OBJECT_META,
                OBJECT_META,
            ],
        ),
        (
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "secrets": {"a": 1}}),
            [
                NotServed,
                NotServed,
                Field("secrets", "expected a list, got object"),
                NotServed,
                NotServed,
            ],
        ),
    ];
    for (bad, expected) in cases {
        for (op, expected) in OPS.into_iter().zip(expected) {
            let request = match op {
                Op::InterpretReplica => Request::InterpretReplica { object: &bad },
                Op::ReviseReplica => Request::ReviseReplica {
                    object: &bad,
                    replicas: 1,
                },
                Op::Retain => Request::Retain {
                    desired: &bad,
                    observed: &bad,
                },
                Op::InterpretHealth => Request::InterpretHealth { object: &bad },
                _ => Request::InterpretDependency { object: &bad },
            };
            let what = format!("{op} on {bad}");
            let result = layer.interpret(&request);
            match expected {
                NotServed => assert!(
                    matches!(&result, Err(Error::NotServed { operation, .. }) if *operation == op),
                    "{what}: expected not served, got {result:?}"
                ),
                Unchanged => match result {
                    Ok(Outcome::Revised(v) | Outcome::Retained(v)) => assert_eq!(v, bad, "{what}"),
                    other => panic!("{what}: expected the object back, got {other:?}"),
                },
                Field(field, reason) => assert_invalid_field(result, field, reason, &what),
            }
        }
    }
}

/// What an operation on a wrongly shaped object must give.
enum Expect {
    /// The typed error naming this field, its reason containing this text.
    Field(&'static str, &'static str),
    /// Not served for the kind.
    NotServed,
    /// The edited object, unchanged.
    Unchanged,
}
