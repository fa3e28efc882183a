//! Semantic JSON comparison of expected and actual results.
//!
//! Rules (the conformance contract):
//! - a member whose value is `null`, `{}` or `[]` equals an absent member;
//!   zero values (`0`, `false`, `""`) are values, not absences;
//! - numbers compare by value (`2` = `2.0`);
//! - strings that both parse as resource quantities compare by value
//!   (`1000m` = `1`);
//! - the members of a `resourceRequest` map (Karmada decodes them into typed
//!   quantities) compare as quantities also when one side is a YAML number
//!   (`cpu: 1` = `cpu: "1"`);
//! - a list named `conditions` whose items all carry a distinct `type`
//!   compares as a map keyed by `type` (order-free); with a repeated `type`
//!   it is an ordinary ordered list;
//! - an expected object member whose value is the string `{{EXCLUDE}}` is
//!   removed from both sides;
//! - [`diff_unordered`] compares top-level lists (`dependencies`,
//!   `components`) as multisets.

use std::fmt;

use serde_json::{Map, Value};

use karmada_interpreter::k8s::quantity::Quantity;

/// The placeholder that removes a member from the comparison.
pub const EXCLUDE: &str = "{{EXCLUDE}}";

/// One place where expected and actual differ. `None` means absent.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Path such as `status.conditions[type=Ready].status` or `spec.containers[0]`.
    pub path: String,
    /// The expected value there.
    pub expected: Option<Value>,
    /// The actual value there.
    pub actual: Option<Value>,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |v: &Option<Value>| match v {
            None => "<absent>".to_owned(),
            Some(v) => v.to_string(),
        };
        let path = if self.path.is_empty() {
            "<root>"
        } else {
            &self.path
        };
        write!(
            f,
            "{path}: expected {}, got {}",
            show(&self.expected),
            show(&self.actual)
        )
    }
}

/// Differences between `expected` and `actual` under the rules above.
///
/// ```
/// use karmada_interpreter_golden::diff;
/// use serde_json::json;
///
/// assert!(diff(&json!({"cpu": "1000m", "n": 2.0, "x": null}), &json!({"cpu": "1", "n": 2})).is_empty());
/// let d = diff(&json!({"replicas": 0}), &json!({}));
/// assert_eq!(d[0].path, "replicas");
/// ```
pub fn diff(expected: &Value, actual: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    compare(expected, actual, &mut String::new(), &mut out);
    out
}

/// Differences between two values of the operation's result named `key`
/// (see [`karmada_interpreter::interpreter::results`]): the lists
/// `dependencies` and `components` compare order-free ([`diff_unordered`]),
/// everything else with [`diff`]. Paths are relative to the result.
pub fn diff_result(key: &str, expected: &Value, actual: &Value) -> Vec<Difference> {
    match key {
        "dependencies" | "components" => diff_unordered(expected, actual),
        _ => diff(expected, actual),
    }
}

/// Like [`diff`], but `expected` and `actual` are lists compared without
/// regard to order (each expected item must match a distinct actual item).
/// `null` and `[]` are the same empty list.
pub fn diff_unordered(expected: &Value, actual: &Value) -> Vec<Difference> {
    let (exp, act) = match (as_list(expected), as_list(actual)) {
        (Some(e), Some(a)) => (e, a),
        _ => return diff(expected, actual),
    };
    let mut used = vec![false; act.len()];
    let mut out = Vec::new();
    for (i, e) in exp.iter().enumerate() {
        let found = act
            .iter()
            .enumerate()
            .find(|(j, a)| !used[*j] && diff(e, a).is_empty());
        match found {
            Some((j, _)) => used[j] = true,
            None => out.push(Difference {
                path: format!("[{i}]"),
                expected: Some(e.clone()),
                actual: None,
            }),
        }
    }
    for (j, a) in act.iter().enumerate() {
        if !used[j] {
            out.push(Difference {
                path: "[unexpected]".into(),
                expected: None,
                actual: Some(a.clone()),
            });
        }
    }
    out
}

fn as_list(v: &Value) -> Option<&[Value]> {
    match v {
        Value::Null => Some(&[]),
        Value::Array(a) => Some(a),
        _ => None,
    }
}

/// `null`, `{}` and `[]` stand for "absent".
fn is_empty_like(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

fn push_key(path: &mut String, key: &str) -> usize {
    let len = path.len();
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
    len
}

fn compare(expected: &Value, actual: &Value, path: &mut String, out: &mut Vec<Difference>) {
    let mismatch = |out: &mut Vec<Difference>, path: &str| {
        out.push(Difference {
            path: path.to_owned(),
            expected: Some(expected.clone()),
            actual: Some(actual.clone()),
        })
    };
    if is_empty_like(expected) && is_empty_like(actual) {
        return;
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => compare_objects(e, a, path, out),
        (Value::Array(e), Value::Array(a)) => {
            let last = path.rsplit('.').next().unwrap_or("");
            if last == "conditions" && keyed_by_type(e) && keyed_by_type(a) {
                compare_conditions(e, a, path, out);
            } else {
                compare_arrays(e, a, path, out);
            }
        }
        (Value::Number(e), Value::Number(a)) => {
            let equal = match (e.as_i64(), a.as_i64()) {
                (Some(x), Some(y)) => x == y,
                _ => match (e.as_u64(), a.as_u64()) {
                    (Some(x), Some(y)) => x == y,
                    _ => e.as_f64() == a.as_f64(),
                },
            };
            if !equal {
                mismatch(out, path);
            }
        }
        (Value::String(e), Value::String(a)) => {
            if e != a && !quantities_equal(e, a) {
                mismatch(out, path);
            }
        }
        (e, a) if e == a => {}
        _ => mismatch(out, path),
    }
}

fn quantities_equal(e: &str, a: &str) -> bool {
    match (Quantity::parse(e), Quantity::parse(a)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// A quantity given as a string or as a number.
fn quantity_of(v: &Value) -> Option<Quantity> {
    match v {
        Value::String(s) => Quantity::parse(s).ok(),
        Value::Number(n) => Quantity::parse(&n.to_string()).ok(),
        _ => None,
    }
}

/// The key of a map whose members are resource quantities.
const QUANTITY_MAP: &str = "resourceRequest";

fn compare_objects(
    e: &Map<String, Value>,
    a: &Map<String, Value>,
    path: &mut String,
    out: &mut Vec<Difference>,
) {
    let quantities = path.rsplit('.').next() == Some(QUANTITY_MAP);
    for (key, ev) in e {
        if ev.as_str() == Some(EXCLUDE) {
            continue;
        }
        let len = push_key(path, key);
        match a.get(key) {
            Some(av)
                if quantities && quantity_of(ev).is_some_and(|q| quantity_of(av) == Some(q)) => {}
            Some(av) => compare(ev, av, path, out),
            None if is_empty_like(ev) => {}
            None => out.push(Difference {
                path: path.clone(),
                expected: Some(ev.clone()),
                actual: None,
            }),
        }
        path.truncate(len);
    }
    for (key, av) in a {
        if e.contains_key(key) || is_empty_like(av) {
            continue;
        }
        let len = push_key(path, key);
        out.push(Difference {
            path: path.clone(),
            expected: None,
            actual: Some(av.clone()),
        });
        path.truncate(len);
    }
}

fn compare_arrays(e: &[Value], a: &[Value], path: &mut String, out: &mut Vec<Difference>) {
    for i in 0..e.len().max(a.len()) {
        let len = path.len();
        path.push_str(&format!("[{i}]"));
        match (e.get(i), a.get(i)) {
            (Some(ev), Some(av)) => compare(ev, av, path, out),
            (ev, av) => out.push(Difference {
                path: path.clone(),
                expected: ev.cloned(),
                actual: av.cloned(),
            }),
        }
        path.truncate(len);
    }
}

fn type_of(item: &Value) -> Option<&str> {
    item.get("type").and_then(Value::as_str)
}

/// Every item has a `type`, and no `type` repeats (a list with repeated
/// types is not a map, so it keeps its order).
fn keyed_by_type(items: &[Value]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    items
        .iter()
        .all(|i| type_of(i).is_some_and(|t| seen.insert(t)))
}

fn compare_conditions(e: &[Value], a: &[Value], path: &mut String, out: &mut Vec<Difference>) {
    let mut used = vec![false; a.len()];
    for ev in e {
        let t = type_of(ev).unwrap_or("");
        let len = path.len();
        path.push_str(&format!("[type={t}]"));
        match a.iter().position(|av| type_of(av) == Some(t)) {
            Some(j) => {
                used[j] = true;
                compare(ev, &a[j], path, out);
            }
            None => out.push(Difference {
                path: path.clone(),
                expected: Some(ev.clone()),
                actual: None,
            }),
        }
        path.truncate(len);
    }
    for (j, av) in a.iter().enumerate() {
        if !used[j] {
            let len = path.len();
            path.push_str(&format!("[type={}]", type_of(av).unwrap_or("")));
            out.push(Difference {
                path: path.clone(),
                expected: None,
                actual: Some(av.clone()),
            });
            path.truncate(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(e: Value, a: Value) -> bool {
        diff(&e, &a).is_empty()
    }

    #[test]
    fn null_empty_map_and_empty_list_equal_absent() {
        assert!(same(json!({"a": null, "b": {}, "c": []}), json!({})));
        assert!(same(json!({}), json!({"a": null, "b": {}, "c": []})));
        assert!(!same(json!({"a": {"x": 1}}), json!({})));
        assert!(!same(json!({}), json!({"a": [1]})));
    }

    #[test]
    fn zero_values_are_values_not_absences() {
        assert!(!same(json!({"a": 0}), json!({})));
        assert!(!same(json!({"a": false}), json!({})));
        assert!(!same(json!({"a": ""}), json!({})));
        assert!(!same(json!({}), json!({"a": 0})));
        assert!(!same(json!({"a": 0}), json!({"a": null})));
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(same(json!(2), json!(2.0)));
        assert!(same(json!({"n": 2.0}), json!({"n": 2})));
        assert!(!same(json!(2), json!(2.5)));
        assert!(!same(json!(2), json!("2")));
        assert!(same(json!(u64::MAX), json!(u64::MAX)));
    }

    #[test]
    fn quantities_compare_by_value() {
        assert!(same(json!({"cpu": "1000m"}), json!({"cpu": "1"})));
        assert!(same(json!("1536Mi"), json!("1.5Gi")));
        assert!(!same(json!("1"), json!("1001m")));
        assert!(!same(json!("abc"), json!("abd")));
    }

    #[test]
    fn resource_requests_given_as_numbers_compare_as_quantities() {
        let e = json!({"replicaRequirements": {"resourceRequest": {"cpu": 1, "memory": "512Mi", "x": 0.5}}});
        let a = json!({"replicaRequirements": {"resourceRequest": {"cpu": "1", "memory": "512Mi", "x": "500m"}}});
        assert!(same(e.clone(), a));
        let other = json!({"replicaRequirements": {"resourceRequest": {"cpu": "2", "memory": "512Mi", "x": "500m"}}});
        assert_eq!(
            diff(&e, &other)[0].path,
            "replicaRequirements.resourceRequest.cpu"
        );
        // Elsewhere a number and a string stay different values.
        assert!(!same(
            json!({"limits": {"cpu": 1}}),
            json!({"limits": {"cpu": "1"}})
        ));
    }

    #[test]
    fn typed_conditions_are_order_free() {
        let e = json!({"conditions": [{"type": "A", "status": "True"}, {"type": "B", "status": "False"}]});
        let a = json!({"conditions": [{"type": "B", "status": "False"}, {"type": "A", "status": "True"}]});
        assert!(same(e.clone(), a));
        let wrong = json!({"conditions": [{"type": "B", "status": "True"}, {"type": "A", "status": "True"}]});
        let d = diff(&e, &wrong);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].path, "conditions[type=B].status");
        let missing = json!({"conditions": [{"type": "A", "status": "True"}]});
        assert!(!same(e, missing));
    }

    #[test]
    fn conditions_with_repeated_types_keep_their_order() {
        let e = json!({"conditions": [{"type": "Ready", "status": "True"}, {"type": "Ready", "status": "False"}]});
        assert!(same(e.clone(), e.clone()));
        let swapped = json!({"conditions": [{"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"}]});
        assert!(!same(e, swapped));
    }

    #[test]
    fn other_lists_keep_their_order() {
        assert!(!same(json!({"items": [1, 2]}), json!({"items": [2, 1]})));
        assert!(!same(
            json!({"conditions": [{"reason": "x"}, {"reason": "y"}]}),
            json!({"conditions": [{"reason": "y"}, {"reason": "x"}]})
        ));
        assert!(!same(json!([1, 2]), json!([1, 2, 3])));
    }

    #[test]
    fn exclude_removes_the_member_from_both_sides() {
        let e = json!({"status": {"conditions": [{"type": "Complete", "lastProbeTime": EXCLUDE}]}});
        let a = json!({"status": {"conditions": [{"type": "Complete", "lastProbeTime": "2026-01-01T00:00:00Z"}]}});
        assert!(same(e.clone(), a));
        let absent = json!({"status": {"conditions": [{"type": "Complete"}]}});
        assert!(same(e, absent));
        // Only object members are special, not list items.
        assert!(!same(json!([EXCLUDE]), json!(["x"])));
    }

    #[test]
    fn unordered_lists_match_as_multisets() {
        let e = json!([{"kind": "Secret", "name": "a"}, {"kind": "ConfigMap", "name": "b"}]);
        let a = json!([{"kind": "ConfigMap", "name": "b"}, {"kind": "Secret", "name": "a"}]);
        assert!(diff_unordered(&e, &a).is_empty());
        assert!(diff_unordered(&json!([]), &Value::Null).is_empty());
        let d = diff_unordered(
            &e,
            &json!([{"kind": "Secret", "name": "a"}, {"kind": "Secret", "name": "a"}]),
        );
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(!diff_unordered(&json!([{"a": 1}, {"a": 1}]), &json!([{"a": 1}])).is_empty());
    }

    #[test]
    fn differences_name_paths() {
        let d = diff(
            &json!({"spec": {"containers": [{"name": "a"}]}}),
            &json!({"spec": {"containers": [{"name": "b"}], "extra": 1}}),
        );
        let paths: Vec<_> = d.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, vec!["spec.containers[0].name", "spec.extra"]);
        assert_eq!(d[1].to_string(), "spec.extra: expected <absent>, got 1");
    }
}
