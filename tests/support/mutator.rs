//! The random-object mutator the property tests share: random JSON values
//! biased towards what the handlers read (quantities, times, integers at
//! type boundaries, the field names of workloads and their statuses), and
//! random edits of an object at a random depth. Driven by [`Rng`], so a
//! failure replays.

use serde_json::{json, Map, Value};

use super::rng::Rng;

/// Member names the handlers read: added members use them (or `k0`..`k3`).
const KEYS: &[&str] = &[
    "status",
    "spec",
    "metadata",
    "name",
    "replicas",
    "readyReplicas",
    "parallelism",
    "generation",
    "resourceTemplateGeneration",
    "observedGeneration",
    "template",
    "containers",
    "containerStatuses",
    "resources",
    "requests",
    "limits",
    "cpu",
    "memory",
    "capacity",
    "volumes",
    "secretName",
    "claimName",
    "tls",
    "ingress",
    "loadBalancer",
    "ports",
    "phase",
    "startTime",
    "disruptedPods",
    "active",
    "type",
    "conditions",
    "labels",
    "annotations",
    "matchLabels",
    "data",
    "secrets",
    "currentMetrics",
    "Replicas",
];

/// A random scalar (or empty container).
fn random_leaf(rng: &mut Rng) -> Value {
    match rng.below(14) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => json!(rng.below(1000) as i64 - 2),
        // Integers at type boundaries, and a number above 2^53.
        3 => json!(
            [
                i64::MAX,
                i64::MIN,
                2_147_483_648_i64,
                -1,
                0,
                4_611_686_018_427_387_904
            ][rng.below(6)]
        ),
        4 => json!(u64::MAX),
        // Fractions, integral floats (beyond the integer range too).
        5 => json!([0.5, 2.0, -3.25, 1e300, -1e300, 1e-300, 1e20, -1e20, 9.3e18][rng.below(9)]),
        6 => json!(
            [
                "",
                "x",
                "true",
                "True",
                "None",
                "Bound",
                "Running",
                "LoadBalancer",
                "not a time or quantity \u{1F600}"
            ][rng.below(9)]
        ),
        // Quantities, valid and not.
        7 => json!(
            [
                "100m",
                "1500m",
                "1Gi",
                "1.5",
                "-1",
                "1e3",
                "9223372036854775807Ei",
                "0.000000001m",
                "abc",
                "1.2.3"
            ][rng.below(10)]
        ),
        8 => json!(
            [
                "kubernetes.io/service-account-token",
                "resourcetemplate.karmada.io/retain-replicas",
                "default"
            ][rng.below(3)]
        ),
        9 => json!(["2023-02-08T07:17:00Z", "2025-01-01T00:00:00Z"][rng.below(2)]),
        10 => json!({"name": "n"}),
        11 => json!([]),
        12 => json!({}),
        _ => json!(3.0),
    }
}

/// A random JSON value, nested at most `depth` levels.
pub fn random_value(rng: &mut Rng, depth: usize) -> Value {
    if depth == 0 || rng.below(3) == 0 {
        return random_leaf(rng);
    }
    if rng.below(2) == 0 {
        Value::Array(
            (0..rng.below(3))
                .map(|_| random_value(rng, depth - 1))
                .collect(),
        )
    } else {
        let mut m = Map::new();
        for _ in 0..rng.below(4) {
            m.insert(random_key(rng), random_value(rng, depth - 1));
        }
        Value::Object(m)
    }
}

fn random_key(rng: &mut Rng) -> String {
    if rng.below(5) == 0 {
        format!("k{}", rng.below(4))
    } else {
        KEYS[rng.below(KEYS.len())].to_owned()
    }
}

/// The top-level members that pick the handler.
fn is_dispatch(key: &str) -> bool {
    key == "apiVersion" || key == "kind"
}

/// Applies one random edit somewhere inside `value`: below a random path,
/// a member removed, a member added, or the node replaced by a random
/// value. The top-level `apiVersion` and `kind` stay, so dispatch still
/// reaches the kind's handler.
pub fn mutate(rng: &mut Rng, value: &mut Value) {
    mutate_at(rng, value, 0);
}

/// Applies 1 to 3 random edits ([`mutate`]) to a copy of `value`.
pub fn mutated(rng: &mut Rng, value: &Value) -> Value {
    let mut out = value.clone();
    for _ in 0..1 + rng.below(3) {
        mutate(rng, &mut out);
    }
    out
}

fn mutate_at(rng: &mut Rng, v: &mut Value, depth: usize) {
    let top = depth == 0;
    let descend = depth < 8 && rng.below(4) != 0;
    match v {
        Value::Object(m) if descend && m.keys().any(|k| !(top && is_dispatch(k))) => {
            let keys: Vec<&String> = m.keys().filter(|k| !(top && is_dispatch(k))).collect();
            let key = keys[rng.below(keys.len())].clone();
            if let Some(child) = m.get_mut(&key) {
                mutate_at(rng, child, depth + 1);
            }
        }
        Value::Array(a) if descend && !a.is_empty() => {
            let i = rng.below(a.len());
            mutate_at(rng, &mut a[i], depth + 1);
        }
        Value::Object(m) => match rng.below(3) {
            0 => {
                let keys: Vec<&String> = m.keys().filter(|k| !(top && is_dispatch(k))).collect();
                if !keys.is_empty() {
                    let key = keys[rng.below(keys.len())].clone();
                    m.remove(&key);
                }
            }
            1 => {
                m.insert(random_key(rng), random_value(rng, 3));
            }
            // At the top level, every member but dispatch replaced.
            _ if top => {
                m.retain(|k, _| is_dispatch(k));
                m.insert(random_key(rng), random_value(rng, 3));
            }
            _ => *v = random_value(rng, 3),
        },
        _ => *v = random_value(rng, 3),
    }
}
