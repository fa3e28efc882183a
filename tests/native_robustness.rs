//! Robustness of the native built-ins on arbitrary input: every served
//! (kind, operation) of InterpretReplica, ReviseReplica, Retain,
//! InterpretHealth and InterpretDependency gets thousands of mutated objects
//! (seeded from the project's golden cases) and must answer or fail with an
//! error — never panic. Raw-access operations (ReviseReplica, Retain except
//! Pod) must also leave every field they do not own untouched.
//!
//! The generator is a small deterministic xorshift, so failures reproduce.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::golden::load_cases;
use karmada_interpreter::interpreter::{Outcome, Request};
use karmada_interpreter::{Error, Result};
use serde_json::{json, Map, Value};

use crate::support::rng;
use rng::Rng;

/// A random JSON value, biased towards values that look like what the
/// handlers read (quantities, integers at type boundaries, nulls).
fn random_value(rng: &mut Rng, depth: u32) -> Value {
    let pick = rng.below(if depth > 2 { 12 } else { 15 });
    match pick {
        0 => Value::Null,
        1 => Value::Bool(rng.next().is_multiple_of(2)),
        2 => json!(rng.next() as i64 % 1000),
        3 => json!([i64::MAX, i64::MIN, 2_147_483_648_i64, -1, 0][rng.below(5)]),
        // Fractions, integral floats (beyond the integer range too).
        4 => json!([0.5, 2.0, -3.25, 1e300, 1e-300, 1e20, -1e20, 9.3e18][rng.below(8)]),
        5 => json!(u64::MAX),
        6 => json!(["", "x", "true", "None", "Bound", "Running", "LoadBalancer"][rng.below(7)]),
        7 => json!(
            [
                "100m",
                "1Gi",
                "1.5",
                "-1",
                "1e3",
                "9223372036854775807Ei",
                "0.000000001m",
                "abc",
                "1.2.3"
            ][rng.below(9)]
        ),
        8 => json!(
            [
                "kubernetes.io/service-account-token",
                "resourcetemplate.karmada.io/retain-replicas",
                "default"
            ][rng.below(3)]
        ),
        9 => json!("2023-02-08T07:17:00Z"),
        10 => json!({"name": "n"}),
        11 => json!([]),
        12 => {
            let n = rng.below(3);
            Value::Array((0..n).map(|_| random_value(rng, depth + 1)).collect())
        }
        _ => {
            let keys = [
                "name",
                "replicas",
                "spec",
                "status",
                "template",
                "containers",
                "resources",
                "requests",
                "limits",
                "cpu",
                "memory",
                "volumes",
                "secretName",
                "claimName",
                "tls",
                "ingress",
                "phase",
                "conditions",
                "labels",
                "matchLabels",
                "data",
                "secrets",
            ];
            let mut m = Map::new();
            for _ in 0..rng.below(3) {
                let k = keys[rng.below(keys.len())];
                m.insert(k.to_owned(), random_value(rng, depth + 1));
            }
            Value::Object(m)
        }
    }
}

/// Every container path (object key / array index) inside `value`.
fn paths(value: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(prefix.clone());
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                prefix.push(Step::Key(k.clone()));
                paths(v, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                prefix.push(Step::Index(i));
                paths(v, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn at<'a>(value: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut cur = value;
    for s in path {
        cur = match (s, cur) {
            (Step::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// One random mutation: replace a node, delete a key, or add a key. The
/// top-level `apiVersion`/`kind` are kept so dispatch still reaches the handler.
fn mutate(rng: &mut Rng, object: &Value) -> Value {
    let mut out = object.clone();
    for _ in 0..1 + rng.below(3) {
        let mut all = Vec::new();
        paths(&out, &mut Vec::new(), &mut all);
        let path = all[rng.below(all.len())].clone();
        if matches!(path.as_slice(), [] | [Step::Key(_)]) && path_is_dispatch(&path) {
            continue;
        }
        let new = random_value(rng, 0);
        // Labels and annotations given a value of any JSON type.
        if rng.below(8) == 0 {
            let map = ["labels", "annotations"][rng.below(2)];
            if let Some(Value::Object(meta)) = out.get_mut("metadata") {
                if let Value::Object(m) = meta.entry(map).or_insert_with(|| json!({})) {
                    m.insert(format!("k{}", rng.below(2)), new);
                }
            }
            continue;
        }
        let choice = rng.below(3);
        if path.is_empty() {
            if let (Value::Object(m), Value::Object(extra)) = (&mut out, new) {
                m.extend(
                    extra
                        .into_iter()
                        .filter(|(k, _)| k != "apiVersion" && k != "kind"),
                );
            }
            continue;
        }
        let (last, parent) = path.split_last().expect("non-empty path");
        let Some(parent) = at(&mut out, parent) else {
            continue;
        };
        match (choice, last, parent) {
            (0, Step::Key(k), Value::Object(m)) => {
                m.remove(k);
            }
            (1, _, Value::Object(m)) => {
                m.insert(format!("k{}", rng.below(4)), new);
            }
            (_, Step::Key(k), Value::Object(m)) => {
                m.insert(k.clone(), new);
            }
            (_, Step::Index(i), Value::Array(a)) => {
                if let Some(slot) = a.get_mut(*i) {
                    *slot = new;
                }
            }
            _ => {}
        }
    }
    out
}

fn path_is_dispatch(path: &[Step]) -> bool {
    matches!(path, [Step::Key(k)] if k == "apiVersion" || k == "kind")
}

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
    let root = Path::new(crate::support::ROOT).join("conformance/native");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("conformance/native is readable") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for file in files {
        for case in load_cases(&file).into_iter().flatten() {
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
    }
    out
}

#[test]
fn mutated_objects_never_panic_and_raw_access_keeps_foreign_fields() {
    let layer = karmada_interpreter::builtin::layer();
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
            let object = mutate(&mut rng, primary);
            let other = observed.as_ref().map(|o| mutate(&mut rng, o));
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
    let layer = karmada_interpreter::builtin::layer();
    // Sums that overflow 64 bits, values beyond every range.
    let big = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [
            {"name": "a", "resources": {"requests": {"cpu": "9223372036854775807", "memory": "8Ei", "example.com/x": "9223372036854775807"}}},
            {"name": "b", "resources": {"requests": {"cpu": "9223372036854775807", "memory": "8Ei", "example.com/x": "9223372036854775807"}}}
        ], "overhead": {"memory": "8Ei"}}});
    assert_invalid_field(
        layer.interpret(&Request::InterpretReplica { object: &big }),
        "spec",
        "the total request of cpu overflows a 64-bit integer",
        "overflowing sum",
    );
    // Extreme exponents: too large is an error; too small rounds up to the
    // smallest unit (1m of cpu, 1 byte); negative totals are dropped; beyond
    // the 64-bit range saturates.
    let max = i64::MAX.to_string();
    let tiny = json!({"cpu": "1m", "hugepages-1Gi": "1", "memory": "1"});
    let saturated = json!({"cpu": format!("{max}m"), "hugepages-1Gi": max, "memory": max});
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
