//! Semantic JSON comparison of expected and actual results.
//!
//! Every rule says which Go behaviour of Karmada makes the two sides the
//! same value; where no Go decoding makes them equal, they differ. The
//! rules (the conformance contract, also in `docs/cli.md`):
//!
//! - **Empty equals absent, at every depth.** `null`, `{}`, `[]`, and an
//!   object whose members are all empty (`{"conditions": null}`,
//!   `{"a": {"b": []}}`) equal an absent member and each other. Go: an
//!   output object reaches the API server, whose typed decoding turns
//!   `null` into a nil pointer, map or slice, drops it under `omitempty`,
//!   and decodes an object of nothing but such members to the same value
//!   as an absent one (`status: {conditions: null}` and no `status` are the
//!   same `DeploymentStatus`); Karmada's Lua bridge decodes JSON `null` to
//!   `nil` (the member vanishes) and cannot tell `{}` from `[]`.
//! - **Zero values are values in objects**: `0`, `false` and `""` differ
//!   from absent in the objects results carry (`revised`, `retained`,
//!   `status`, `aggregatedStatus`): Go keeps them in an unstructured map,
//!   and in a pointer field such as `spec.replicas` (`*int32`).
//! - **Zero values equal absent in typed results** — `requires`
//!   (`ReplicaRequirements`), `components` (`[]Component`) and
//!   `dependencies` (`[]DependentObjectReference`), which Karmada decodes
//!   into Go structs: a non-pointer field that is absent decodes to its
//!   zero value, so `replicas: 0` (`int32`), `namespace: ""` (`string`)
//!   equal absent there. Pointer fields keep `nil` apart from zero
//!   (`tolerationSeconds: 0`, `*int64`), and map entries are values
//!   (`nodeSelector: {disk: ""}`). Members the Go type does not have are
//!   compared as they are (Go would drop them; a typo must fail).
//! - numbers compare by value (`2` = `2.0`);
//! - **Quantities compare by value where Go holds a `resource.Quantity`**:
//!   the members of a resource list (`resourceRequest`, `requests`,
//!   `limits`, `capacity`, `allocatable`, `allocatedResources`, `hard`,
//!   `used`, `overhead`, `podFixed`, and a LimitRange item's `max`, `min`,
//!   `default`, `defaultRequest`, `maxLimitRequestRatio`) and `sizeLimit`,
//!   at any depth: `1000m` = `1`, and a YAML number equals its string
//!   (`cpu: 4` = `cpu: "4"`), because `Quantity` decodes both and compares
//!   by value. Elsewhere strings compare as strings (`"1.0"` ≠ `"1"`) and a
//!   number never equals a string;
//! - a list named `conditions` whose items all carry a distinct `type`
//!   compares as a map keyed by `type` (order-free); with a repeated `type`
//!   it is an ordinary ordered list;
//! - an expected object member whose value is the string `{{EXCLUDE}}` is
//!   removed from both sides;
//! - `dependencies` and `components` compare as multisets (Karmada sorts
//!   both before comparing).
//!
//! A partial expectation ([`Match::Partial`], a case's `outputContains`)
//! uses the same rules, but an object's members the expectation does not
//! state, and items of order-free lists it does not state, are ignored.

use std::fmt;

use serde_json::{Map, Value};

use karmada_interpreter::k8s::quantity::Quantity;

/// The placeholder that removes a member from the comparison.
pub const EXCLUDE: &str = "{{EXCLUDE}}";

/// Whether the whole expectation is compared, or only what it states.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Match {
    /// Both sides must be equal (a case's `output`).
    #[default]
    Whole,
    /// The members and order-free list items the expectation states must
    /// match; the others are ignored (a case's `outputContains`).
    Partial,
}

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

/// What Go holds at a place of a result, which decides what is equal there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    /// An unstructured object (`map[string]interface{}`) or a Kubernetes
    /// object the API server decodes.
    Unstructured,
    /// A `corev1.ResourceList`: every member is a quantity.
    Quantities,
    /// A `resource.Quantity`.
    Quantity,
    /// A non-pointer scalar field of a Go struct: absent decodes to its
    /// zero value.
    Value,
    /// A pointer scalar field (`*int64`): `nil` is not zero.
    Pointer,
    /// A `map[string]string`: entries are values.
    Entries,
    /// A Go struct with these fields.
    Struct(&'static [(&'static str, Ty)]),
    /// A Go slice of this.
    List(&'static Ty),
}

const STRINGS: Ty = Ty::List(&Ty::Value);
const SELECTOR_REQUIREMENT: Ty = Ty::Struct(&[
    ("key", Ty::Value),
    ("operator", Ty::Value),
    ("values", STRINGS),
]);
/// `corev1.Toleration`.
const TOLERATION: Ty = Ty::Struct(&[
    ("key", Ty::Value),
    ("operator", Ty::Value),
    ("value", Ty::Value),
    ("effect", Ty::Value),
    ("tolerationSeconds", Ty::Pointer),
]);
/// `corev1.NodeSelector`.
const NODE_SELECTOR: Ty = Ty::Struct(&[(
    "nodeSelectorTerms",
    Ty::List(&Ty::Struct(&[
        ("matchExpressions", Ty::List(&SELECTOR_REQUIREMENT)),
        ("matchFields", Ty::List(&SELECTOR_REQUIREMENT)),
    ])),
)]);
/// `workv1alpha2.NodeClaim`.
const NODE_CLAIM: Ty = Ty::Struct(&[
    ("hardNodeAffinity", NODE_SELECTOR),
    ("nodeSelector", Ty::Entries),
    ("tolerations", Ty::List(&TOLERATION)),
]);
/// `workv1alpha2.ReplicaRequirements` (InterpretReplica's `requires`).
const REPLICA_REQUIREMENTS: Ty = Ty::Struct(&[
    ("nodeClaim", NODE_CLAIM),
    ("resourceRequest", Ty::Quantities),
    ("namespace", Ty::Value),
    ("priorityClassName", Ty::Value),
]);
/// `workv1alpha2.Component` (an item of InterpretComponent's `components`).
const COMPONENT: Ty = Ty::Struct(&[
    ("name", Ty::Value),
    ("replicas", Ty::Value),
    (
        "replicaRequirements",
        Ty::Struct(&[
            ("nodeClaim", NODE_CLAIM),
            ("resourceRequest", Ty::Quantities),
            ("priorityClassName", Ty::Value),
        ]),
    ),
]);
/// `configv1alpha1.DependentObjectReference` (an item of
/// InterpretDependency's `dependencies`).
const DEPENDENCY: Ty = Ty::Struct(&[
    ("apiVersion", Ty::Value),
    ("kind", Ty::Value),
    ("namespace", Ty::Value),
    ("name", Ty::Value),
    (
        "labelSelector",
        Ty::Struct(&[
            ("matchLabels", Ty::Entries),
            ("matchExpressions", Ty::List(&SELECTOR_REQUIREMENT)),
        ]),
    ),
]);

/// Members of Kubernetes and Karmada objects that hold a
/// `corev1.ResourceList` (map of quantities), at any depth.
const QUANTITY_MAPS: [&str; 10] = [
    "resourceRequest",
    "requests",
    "limits",
    "capacity",
    "allocatable",
    "allocatedResources",
    "hard",
    "used",
    "overhead",
    "podFixed",
];

/// The resource lists of a LimitRange item (`spec.limits[N]`).
const LIMIT_RANGE_MAPS: [&str; 5] = [
    "max",
    "min",
    "default",
    "defaultRequest",
    "maxLimitRequestRatio",
];

/// What Go holds in member `key` of an object of type `ty` at `parent`.
fn member_ty(ty: Ty, parent: &str, key: &str) -> Ty {
    match ty {
        Ty::Struct(fields) => fields
            .iter()
            .find(|(name, _)| *name == key)
            .map_or(Ty::Unstructured, |(_, t)| *t),
        Ty::Quantities => Ty::Quantity,
        Ty::Entries => Ty::Unstructured,
        _ if QUANTITY_MAPS.contains(&key) => Ty::Quantities,
        _ if key == "sizeLimit" => Ty::Quantity,
        _ if LIMIT_RANGE_MAPS.contains(&key) && in_limit_range_item(parent) => Ty::Quantities,
        _ => Ty::Unstructured,
    }
}

/// `parent` is an item of a list named `limits` (`spec.limits[0]`).
fn in_limit_range_item(parent: &str) -> bool {
    let last = parent.rsplit('.').next().unwrap_or("");
    last.strip_prefix("limits[")
        .and_then(|rest| rest.strip_suffix(']'))
        .is_some_and(|i| i.parse::<usize>().is_ok())
}

/// What Go holds in the items of a list of type `ty`.
fn item_ty(ty: Ty) -> Ty {
    match ty {
        Ty::List(item) => *item,
        _ => Ty::Unstructured,
    }
}

/// The type of an operation's named result.
fn result_ty(result: &str) -> Ty {
    match result {
        "requires" => REPLICA_REQUIREMENTS,
        "components" => Ty::List(&COMPONENT),
        "dependencies" => Ty::List(&DEPENDENCY),
        _ => Ty::Unstructured,
    }
}

/// Differences between `expected` and `actual` under the rules above, for
/// values of unstructured objects.
///
/// ```
/// use karmada_interpreter_golden::diff;
/// use serde_json::json;
///
/// assert!(diff(&json!({"limits": {"cpu": "1000m"}, "n": 2.0, "x": null}), &json!({"limits": {"cpu": 1}, "n": 2})).is_empty());
/// assert!(diff(&json!({"spec": {}}), &json!({"spec": {"template": {"metadata": {"labels": null}}}})).is_empty());
/// let d = diff(&json!({"replicas": 0}), &json!({}));
/// assert_eq!(d[0].path, "replicas");
/// ```
pub fn diff(expected: &Value, actual: &Value) -> Vec<Difference> {
    Comparer {
        mode: Match::Whole,
        out: Vec::new(),
    }
    .run(expected, actual, Ty::Unstructured)
}

/// Like [`diff`], but `expected` and `actual` are lists compared without
/// regard to order (each expected item must match a distinct actual item).
/// `null` and `[]` are the same empty list.
pub fn diff_unordered(expected: &Value, actual: &Value) -> Vec<Difference> {
    let mut c = Comparer {
        mode: Match::Whole,
        out: Vec::new(),
    };
    c.unordered(expected, actual, Ty::Unstructured);
    c.out
}

/// Differences between the expected and actual value of the operation's
/// result named `result` (`replica`, `requires`, `components`, `status`,
/// ...): the rules above with the Go type Karmada decodes that result into
/// (`components` and `dependencies` order-free, typed zero values).
///
/// ```
/// use karmada_interpreter_golden::{diff_result, Match};
/// use serde_json::json;
///
/// // `Component.Replicas` is an `int32`: absent decodes to 0.
/// let expected = json!([{"name": "web", "replicas": 0, "replicaRequirements": {"resourceRequest": {"cpu": 4}}}]);
/// let actual = json!([{"name": "web", "replicaRequirements": {"resourceRequest": {"cpu": "4"}}}]);
/// assert!(diff_result("components", &expected, &actual, Match::Whole).is_empty());
/// // A partial expectation states what it cares about.
/// let d = diff_result("status", &json!({"phase": "Running"}), &json!({"phase": "Failed", "x": 1}), Match::Partial);
/// assert_eq!(d[0].to_string(), "phase: expected \"Running\", got \"Failed\"");
/// ```
pub fn diff_result(result: &str, expected: &Value, actual: &Value, mode: Match) -> Vec<Difference> {
    let mut c = Comparer {
        mode,
        out: Vec::new(),
    };
    let ty = result_ty(result);
    match result {
        "dependencies" | "components" => c.unordered(expected, actual, ty),
        _ => c.compare(expected, actual, ty, &mut String::new()),
    }
    c.out
}

fn as_list(v: &Value) -> Option<&[Value]> {
    match v {
        Value::Null => Some(&[]),
        Value::Array(a) => Some(a),
        _ => None,
    }
}

/// `null`, `[]`, and an object whose members are all absent-like (of type
/// `ty`).
fn is_empty(v: &Value, ty: Ty) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.iter().all(|(k, v)| absent_like(v, member_ty(ty, "", k))),
        _ => false,
    }
}

/// What Go decodes to the same value as an absent member of type `ty`: an
/// empty value, or the zero value of a non-pointer struct field.
fn absent_like(v: &Value, ty: Ty) -> bool {
    is_empty(v, ty)
        || (ty == Ty::Value
            && match v {
                Value::Bool(b) => !b,
                Value::String(s) => s.is_empty(),
                Value::Number(n) => n.as_f64() == Some(0.0),
                _ => false,
            })
}

fn push_key(path: &mut String, key: &str) -> usize {
    let len = path.len();
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
    len
}

/// A quantity given as a string or as a number.
fn quantity_of(v: &Value) -> Option<Quantity> {
    match v {
        Value::String(s) => Quantity::parse(s).ok(),
        Value::Number(n) => Quantity::parse(&n.to_string()).ok(),
        _ => None,
    }
}

fn numbers_equal(e: &serde_json::Number, a: &serde_json::Number) -> bool {
    match (e.as_i64(), a.as_i64()) {
        (Some(x), Some(y)) => x == y,
        _ => match (e.as_u64(), a.as_u64()) {
            (Some(x), Some(y)) => x == y,
            _ => e.as_f64() == a.as_f64(),
        },
    }
}

struct Comparer {
    mode: Match,
    out: Vec<Difference>,
}

impl Comparer {
    fn run(mut self, expected: &Value, actual: &Value, ty: Ty) -> Vec<Difference> {
        self.compare(expected, actual, ty, &mut String::new());
        self.out
    }

    fn differ(&mut self, path: &str, expected: Option<&Value>, actual: Option<&Value>) {
        self.out.push(Difference {
            path: path.to_owned(),
            expected: expected.cloned(),
            actual: actual.cloned(),
        });
    }

    fn compare(&mut self, expected: &Value, actual: &Value, ty: Ty, path: &mut String) {
        match (absent_like(expected, ty), absent_like(actual, ty)) {
            (true, true) => return,
            (true, false) | (false, true)
                if !matches!((expected, actual), (Value::Object(_), Value::Object(_))) =>
            {
                return self.differ(path, Some(expected), Some(actual));
            }
            _ => {}
        }
        if ty == Ty::Quantity {
            if let (Some(e), Some(a)) = (quantity_of(expected), quantity_of(actual)) {
                if e != a {
                    self.differ(path, Some(expected), Some(actual));
                }
                return;
            }
        }
        match (expected, actual) {
            (Value::Object(e), Value::Object(a)) => self.objects(e, a, ty, path),
            (Value::Array(e), Value::Array(a)) => {
                let last = path.rsplit('.').next().unwrap_or("");
                if ty == Ty::Unstructured
                    && last == "conditions"
                    && keyed_by_type(e)
                    && keyed_by_type(a)
                {
                    self.conditions(e, a, path);
                } else {
                    self.arrays(e, a, item_ty(ty), path);
                }
            }
            (Value::Number(e), Value::Number(a)) if numbers_equal(e, a) => {}
            (e, a) if e == a => {}
            _ => self.differ(path, Some(expected), Some(actual)),
        }
    }

    fn objects(
        &mut self,
        e: &Map<String, Value>,
        a: &Map<String, Value>,
        ty: Ty,
        path: &mut String,
    ) {
        let parent = path.clone();
        for (key, ev) in e {
            if ev.as_str() == Some(EXCLUDE) {
                continue;
            }
            let member = member_ty(ty, &parent, key);
            let len = push_key(path, key);
            match a.get(key) {
                Some(av) => self.compare(ev, av, member, path),
                None if absent_like(ev, member) => {}
                None => self.differ(path, Some(ev), None),
            }
            path.truncate(len);
        }
        if self.mode == Match::Partial {
            return;
        }
        for (key, av) in a {
            if e.contains_key(key) || absent_like(av, member_ty(ty, &parent, key)) {
                continue;
            }
            let len = push_key(path, key);
            self.differ(path, None, Some(av));
            path.truncate(len);
        }
    }

    fn arrays(&mut self, e: &[Value], a: &[Value], item: Ty, path: &mut String) {
        for i in 0..e.len().max(a.len()) {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            match (e.get(i), a.get(i)) {
                (Some(ev), Some(av)) => self.compare(ev, av, item, path),
                (ev, av) => self.differ(path, ev, av),
            }
            path.truncate(len);
        }
    }

    fn conditions(&mut self, e: &[Value], a: &[Value], path: &mut String) {
        let mut used = vec![false; a.len()];
        for ev in e {
            let t = type_of(ev).unwrap_or("");
            let len = path.len();
            path.push_str(&format!("[type={t}]"));
            match a.iter().position(|av| type_of(av) == Some(t)) {
                Some(j) => {
                    used[j] = true;
                    self.compare(ev, &a[j], Ty::Unstructured, path);
                }
                None => self.differ(path, Some(ev), None),
            }
            path.truncate(len);
        }
        if self.mode == Match::Partial {
            return;
        }
        for (j, av) in a.iter().enumerate() {
            if !used[j] {
                let len = path.len();
                path.push_str(&format!("[type={}]", type_of(av).unwrap_or("")));
                self.differ(path, None, Some(av));
                path.truncate(len);
            }
        }
    }

    /// Lists of type `list` as multisets.
    fn unordered(&mut self, expected: &Value, actual: &Value, list: Ty) {
        let (exp, act) = match (as_list(expected), as_list(actual)) {
            (Some(e), Some(a)) => (e, a),
            _ => return self.compare(expected, actual, list, &mut String::new()),
        };
        let item = item_ty(list);
        let mut used = vec![false; act.len()];
        for (i, e) in exp.iter().enumerate() {
            let found = act.iter().enumerate().find(|(j, a)| {
                !used[*j]
                    && Comparer {
                        mode: self.mode,
                        out: Vec::new(),
                    }
                    .run(e, a, item)
                    .is_empty()
            });
            match found {
                Some((j, _)) => used[j] = true,
                None => self.differ(&format!("[{i}]"), Some(e), None),
            }
        }
        if self.mode == Match::Partial {
            return;
        }
        for (j, a) in act.iter().enumerate() {
            if !used[j] {
                self.differ("[unexpected]", None, Some(a));
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    fn same(e: Value, a: Value) -> bool {
        diff(&e, &a).is_empty()
    }

    fn result(name: &str, e: Value, a: Value) -> Vec<Difference> {
        diff_result(name, &e, &a, Match::Whole)
    }

    /// Result `name` differs in exactly one place, at `path`.
    #[track_caller]
    fn one_difference_at(name: &str, e: Value, a: Value, path: &str) {
        let d = result(name, e, a);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].path, path);
    }

    /// Empty values equal absent ones at every depth, in every result.
    #[rstest]
    #[case::absent_status_vs_null_conditions(json!({}), json!({"status": {"conditions": null}}))]
    #[case::nested_empties(json!({"status": {}}), json!({"status": {"a": {"b": [], "c": {"d": null}}}}))]
    #[case::deep_in_a_list_item(
        json!({"spec": {"containers": [{"name": "a"}]}}),
        json!({"spec": {"containers": [{"name": "a", "env": [], "resources": {"limits": null}}]}})
    )]
    #[case::expected_side_too(json!({"metadata": {"labels": {"x": null}}, "n": 1}), json!({"n": 1}))]
    #[case::empty_map_vs_empty_list(json!({"a": {}}), json!({"a": []}))]
    fn empty_equals_absent_at_every_depth(#[case] e: Value, #[case] a: Value) {
        for name in ["aggregatedStatus", "status", "retained", "revised"] {
            assert!(result(name, e.clone(), a.clone()).is_empty(), "{name}");
            assert!(result(name, a.clone(), e.clone()).is_empty(), "{name}");
        }
    }

    /// A non-empty value somewhere below is not empty.
    #[rstest]
    #[case::zero_deep_down(json!({}), json!({"status": {"conditions": null, "replicas": 0}}), "status")]
    #[case::false_deep_down(json!({"status": {}}), json!({"status": {"a": {"ready": false}}}), "status.a")]
    #[case::list_of_null(json!({"a": {}}), json!({"a": [null]}), "a")]
    #[case::empty_string(json!({"spec": {"x": {}}}), json!({"spec": {"x": {"name": ""}}}), "spec.x.name")]
    fn values_below_are_not_empty(#[case] e: Value, #[case] a: Value, #[case] path: &str) {
        one_difference_at("status", e, a, path);
    }

    /// Where Go holds a `resource.Quantity`, numbers and strings compare as
    /// quantities, at any depth.
    #[rstest]
    #[case::container_limits("retained", json!({"spec": {"template": {"spec": {"containers": [{"resources": {"limits": {"cpu": 4}}}]}}}}), json!({"spec": {"template": {"spec": {"containers": [{"resources": {"limits": {"cpu": "4"}}}]}}}}))]
    #[case::requests_milli("revised", json!({"spec": {"resources": {"requests": {"cpu": 0.5, "memory": "1Gi"}}}}), json!({"spec": {"resources": {"requests": {"cpu": "500m", "memory": "1024Mi"}}}}))]
    #[case::node_capacity("status", json!({"capacity": {"pods": 110}}), json!({"capacity": {"pods": "110"}}))]
    #[case::quota_hard("aggregatedStatus", json!({"status": {"hard": {"cpu": "1"}, "used": {"cpu": 1}}}), json!({"status": {"hard": {"cpu": "1000m"}, "used": {"cpu": "1"}}}))]
    #[case::limit_range_item("retained", json!({"spec": {"limits": [{"max": {"cpu": 2}, "default": {"memory": "1Gi"}}]}}), json!({"spec": {"limits": [{"max": {"cpu": "2"}, "default": {"memory": "1073741824"}}]}}))]
    #[case::size_limit("retained", json!({"emptyDir": {"sizeLimit": 1}}), json!({"emptyDir": {"sizeLimit": "1"}}))]
    #[case::replica_requirements("requires", json!({"resourceRequest": {"cpu": 1, "x": 0.5}}), json!({"resourceRequest": {"cpu": "1", "x": "500m"}}))]
    #[case::component_requirements("components", json!([{"name": "a", "replicas": 1, "replicaRequirements": {"resourceRequest": {"cpu": 4}}}]), json!([{"name": "a", "replicas": 1, "replicaRequirements": {"resourceRequest": {"cpu": "4"}}}]))]
    fn quantities_compare_by_value_where_go_holds_them(
        #[case] name: &str,
        #[case] e: Value,
        #[case] a: Value,
    ) {
        assert_eq!(result(name, e.clone(), a.clone()), vec![]);
        assert_eq!(result(name, a, e), vec![]);
    }

    /// Different quantities differ; elsewhere numbers and strings, and
    /// quantity-looking strings, keep their own identity.
    #[rstest]
    #[case::different_cpu("retained", json!({"resources": {"limits": {"cpu": 4}}}), json!({"resources": {"limits": {"cpu": "4001m"}}}), "resources.limits.cpu")]
    #[case::different_request("requires", json!({"resourceRequest": {"cpu": 1}}), json!({"resourceRequest": {"cpu": "2"}}), "resourceRequest.cpu")]
    #[case::zero_quantity_is_an_entry("requires", json!({"resourceRequest": {"cpu": 0}}), json!({}), "resourceRequest")]
    #[case::not_a_resource_list("status", json!({"spec": {"cpu": 4}}), json!({"spec": {"cpu": "4"}}), "spec.cpu")]
    #[case::version_strings("status", json!({"version": "1.0"}), json!({"version": "1"}), "version")]
    #[case::milli_elsewhere("status", json!({"cpu": "1000m"}), json!({"cpu": "1"}), "cpu")]
    #[case::max_outside_limit_range("status", json!({"max": {"a": 1}}), json!({"max": {"a": "1"}}), "max.a")]
    fn what_go_keeps_apart_still_differs(
        #[case] name: &str,
        #[case] e: Value,
        #[case] a: Value,
        #[case] path: &str,
    ) {
        one_difference_at(name, e, a, path);
    }

    /// In the results Karmada decodes into Go structs, a non-pointer
    /// field's zero value is what an absent field decodes to.
    #[rstest]
    #[case::component_replicas("components", json!([{"name": "a", "replicas": 0}]), json!([{"name": "a"}]))]
    #[case::requires_namespace("requires", json!({"namespace": "", "priorityClassName": ""}), json!(null))]
    #[case::toleration_strings("requires", json!({"nodeClaim": {"tolerations": [{"key": "k", "operator": "", "effect": ""}]}}), json!({"nodeClaim": {"tolerations": [{"key": "k"}]}}))]
    #[case::dependency_namespace("dependencies", json!([{"apiVersion": "v1", "kind": "Secret", "name": "s", "namespace": ""}]), json!([{"apiVersion": "v1", "kind": "Secret", "name": "s"}]))]
    fn typed_zero_values_equal_absent(#[case] name: &str, #[case] e: Value, #[case] a: Value) {
        assert_eq!(result(name, e.clone(), a.clone()), vec![]);
        assert_eq!(result(name, a, e), vec![]);
    }

    /// Pointer fields, map entries and unstructured objects keep zero apart
    /// from absent.
    #[rstest]
    #[case::toleration_seconds("requires", json!({"nodeClaim": {"tolerations": [{"key": "k", "tolerationSeconds": 0}]}}), json!({"nodeClaim": {"tolerations": [{"key": "k"}]}}), "nodeClaim.tolerations[0].tolerationSeconds")]
    #[case::node_selector_entry("requires", json!({"nodeClaim": {"nodeSelector": {"disk": ""}}}), json!({"nodeClaim": {}}), "nodeClaim.nodeSelector")]
    #[case::spec_replicas("revised", json!({"spec": {"replicas": 0}}), json!({"spec": {}}), "spec.replicas")]
    #[case::status_replicas("aggregatedStatus", json!({"status": {"replicas": 0}}), json!({"status": {}}), "status.replicas")]
    #[case::unknown_member_of_a_typed_result("requires", json!({"namespce": ""}), json!({}), "namespce")]
    fn zero_values_where_go_keeps_them(
        #[case] name: &str,
        #[case] e: Value,
        #[case] a: Value,
        #[case] path: &str,
    ) {
        one_difference_at(name, e, a, path);
    }

    #[test]
    fn partial_expectations_ignore_what_they_do_not_state() {
        let actual = json!({"status": {"phase": "Running", "replicas": 3,
            "conditions": [{"type": "A", "status": "True"}, {"type": "B", "status": "False"}]}});
        let partial = |e: Value| diff_result("aggregatedStatus", &e, &actual, Match::Partial);
        assert!(partial(json!({"status": {"phase": "Running"}})).is_empty());
        assert!(partial(json!({"status": {"conditions": [{"type": "B"}]}})).is_empty());
        assert!(partial(json!({})).is_empty());
        let d = partial(
            json!({"status": {"replicas": 2, "conditions": [{"type": "A", "status": "False"}]}}),
        );
        let shown: Vec<String> = d.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "status.conditions[type=A].status: expected \"False\", got \"True\"",
                "status.replicas: expected 2, got 3"
            ]
        );
        // A stated `null` wants nothing there.
        assert_eq!(
            partial(json!({"status": {"phase": null}}))[0].path,
            "status.phase"
        );
        // Order-free lists: stated items must be there, others may be.
        let deps = json!([{"apiVersion": "v1", "kind": "Secret", "name": "a"}, {"apiVersion": "v1", "kind": "ConfigMap", "name": "b"}]);
        assert!(diff_result(
            "dependencies",
            &json!([{"kind": "ConfigMap", "name": "b"}]),
            &deps,
            Match::Partial
        )
        .is_empty());
        assert!(!diff_result(
            "dependencies",
            &json!([{"kind": "ConfigMap", "name": "c"}]),
            &deps,
            Match::Partial
        )
        .is_empty());
        // Ordered lists keep their length.
        assert!(!diff_result(
            "status",
            &json!({"items": [1]}),
            &json!({"items": [1, 2]}),
            Match::Partial
        )
        .is_empty());
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
    fn quantity_strings_compare_by_value_in_resource_lists() {
        assert!(same(
            json!({"limits": {"cpu": "1000m"}}),
            json!({"limits": {"cpu": "1"}})
        ));
        assert!(same(
            json!({"requests": {"memory": "1536Mi"}}),
            json!({"requests": {"memory": "1.5Gi"}})
        ));
        assert!(!same(
            json!({"limits": {"cpu": "1"}}),
            json!({"limits": {"cpu": "1001m"}})
        ));
        assert!(!same(
            json!({"limits": {"x": "abc"}}),
            json!({"limits": {"x": "abd"}})
        ));
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
