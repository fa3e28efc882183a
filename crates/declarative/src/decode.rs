//! Decoding converted results into the operations' target types
//! and validating dependencies.
//!
//! Struct decoding follows Go's `encoding/json` leniency: unknown keys are
//! ignored and keys match case-insensitively; when several keys match one
//! field, each sets it in name order (objects merge, anything else the
//! last wins), as Go decodes the sorted text Karmada encodes.

use serde::de::DeserializeOwned;
use serde_json::Value;

use karmada_interpreter_core::api::{
    go_json_field, Component, DependentObjectReference, ReplicaRequirements,
};
use karmada_interpreter_core::k8s::quantity::Quantity;

/// The shape of a Go struct for case-insensitive key folding.
enum Shape {
    /// A struct: its Go type (named in decoding errors) and its fields.
    Struct(&'static str, &'static [(&'static str, Shape)]),
    List(&'static Shape),
    /// A map whose values are quantities (canonicalized here).
    Quantities,
    Leaf,
}

use Shape::{Leaf, List, Quantities, Struct};

const REQUIREMENT: Shape = Struct(
    "v1.NodeSelectorRequirement",
    &[("key", Leaf), ("operator", Leaf), ("values", Leaf)],
);
const TERM: Shape = Struct(
    "v1.NodeSelectorTerm",
    &[
        ("matchExpressions", List(&REQUIREMENT)),
        ("matchFields", List(&REQUIREMENT)),
    ],
);
const TOLERATION: Shape = Struct(
    "v1.Toleration",
    &[
        ("key", Leaf),
        ("operator", Leaf),
        ("value", Leaf),
        ("effect", Leaf),
        ("tolerationSeconds", Leaf),
    ],
);
const NODE_CLAIM: Shape = Struct(
    "v1alpha2.NodeClaim",
    &[
        (
            "hardNodeAffinity",
            Struct("v1.NodeSelector", &[("nodeSelectorTerms", List(&TERM))]),
        ),
        ("nodeSelector", Leaf),
        ("tolerations", List(&TOLERATION)),
    ],
);
const REPLICA_REQUIREMENTS: Shape = Struct(
    "v1alpha2.ReplicaRequirements",
    &[
        ("nodeClaim", NODE_CLAIM),
        ("resourceRequest", Quantities),
        ("namespace", Leaf),
        ("priorityClassName", Leaf),
    ],
);
const COMPONENT_REQUIREMENTS: Shape = Struct(
    "v1alpha2.ComponentReplicaRequirements",
    &[
        ("nodeClaim", NODE_CLAIM),
        ("resourceRequest", Quantities),
        ("priorityClassName", Leaf),
    ],
);
const COMPONENT: Shape = Struct(
    "v1alpha2.Component",
    &[
        ("name", Leaf),
        ("replicas", Leaf),
        ("replicaRequirements", COMPONENT_REQUIREMENTS),
    ],
);
const LABEL_SELECTOR: Shape = Struct(
    "v1.LabelSelector",
    &[
        ("matchLabels", Leaf),
        ("matchExpressions", List(&REQUIREMENT)),
    ],
);
const DEPENDENCY: Shape = Struct(
    "v1alpha1.DependentObjectReference",
    &[
        ("apiVersion", Leaf),
        ("kind", Leaf),
        ("namespace", Leaf),
        ("name", Leaf),
        ("labelSelector", LABEL_SELECTOR),
    ],
);

/// One step of the path to a value being decoded.
#[derive(Clone, Copy)]
enum Step {
    /// The root: the Go struct's name (empty for a list, as Go writes it).
    Root(&'static str),
    Field(&'static str),
    Index(usize),
}

/// Go's `UnmarshalTypeError` text for `value` (of JSON type `json`) found
/// where a value of Go type `go_type` belongs, at `path`.
fn type_error(json: &str, go_type: &str, path: &[Step]) -> String {
    // A list's elements have no struct name before their index.
    let in_list = matches!(path.get(1), Some(Step::Index(_)));
    let mut at = String::new();
    for step in path {
        match step {
            Step::Root(name) if !in_list => at.push_str(name),
            Step::Root(_) => {}
            Step::Field(name) => {
                at.push('.');
                at.push_str(name);
            }
            Step::Index(i) => {
                at.push('.');
                at.push_str(&i.to_string());
            }
        }
    }
    match path.last() {
        None | Some(Step::Root(_)) => {
            format!("json: cannot unmarshal {json} into Go value of type {go_type}")
        }
        Some(Step::Field(_)) => {
            format!("json: cannot unmarshal {json} into Go struct field {at} of type {go_type}")
        }
        Some(Step::Index(_)) => {
            format!("json: cannot unmarshal {json} into {at} of type {go_type}")
        }
    }
}

/// The path's field names, the root's included (indexes left out).
fn field_path(path: &[Step]) -> String {
    let mut names = Vec::with_capacity(path.len());
    for step in path {
        match step {
            Step::Root(name) | Step::Field(name) if !name.is_empty() => names.push(*name),
            _ => {}
        }
    }
    names.join(".")
}

fn fold(value: &mut Value, shape: &Shape, path: &mut Vec<Step>) -> Result<(), String> {
    match (shape, value) {
        // Go decodes no JSON array into a struct; an empty one is the empty
        // Lua table, which Karmada writes as `{}` where a struct belongs.
        (Struct(go_type, _), Value::Array(items)) if !items.is_empty() => {
            Err(type_error("array", go_type, path))
        }
        (Struct(_, fields), Value::Object(map)) => {
            // As Go's decoder: each key matching a field, exactly or ignoring
            // case, sets it in turn (in name order), a later object decoded
            // into the earlier one (members merge), anything else replacing it.
            for (key, mut v) in std::mem::take(map) {
                let Some((name, sub)) = go_json_field(fields, |(name, _)| name, &key) else {
                    continue;
                };
                if !matches!(sub, Leaf) {
                    path.push(Step::Field(name));
                    fold(&mut v, sub, path)?;
                    path.pop();
                }
                match map.get_mut(*name) {
                    Some(earlier) => merge_into(earlier, v),
                    None => {
                        map.insert((*name).to_owned(), v);
                    }
                }
            }
            Ok(())
        }
        (List(item), Value::Array(items)) => {
            for (i, v) in items.iter_mut().enumerate() {
                path.push(Step::Index(i));
                fold(v, item, path)?;
                path.pop();
            }
            Ok(())
        }
        (Quantities, Value::Array(items)) if !items.is_empty() => {
            Err(type_error("array", "v1.ResourceList", path))
        }
        (Quantities, Value::Object(map)) => {
            for (k, v) in map.iter_mut() {
                if v.is_null() {
                    continue;
                }
                let q =
                    Quantity::from_json(v).map_err(|e| format!("{}.{k}: {e}", field_path(path)))?;
                *v = Value::String(q.to_canonical_string());
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `later` decoded over `earlier` as Go decodes a second value for the same
/// field: objects merge member by member, anything else is replaced.
fn merge_into(earlier: &mut Value, later: Value) {
    match (earlier, later) {
        (Value::Object(earlier), Value::Object(later)) => {
            for (key, v) in later {
                match earlier.get_mut(&key) {
                    Some(e) => merge_into(e, v),
                    None => {
                        earlier.insert(key, v);
                    }
                }
            }
        }
        (earlier, later) => *earlier = later,
    }
}

fn typed<T: DeserializeOwned>(
    mut json: Value,
    shape: &Shape,
    what: &'static str,
) -> Result<T, String> {
    fold(&mut json, shape, &mut vec![Step::Root(what)])
        .map_err(|e| format!("json unmarshal obj failed: {e}"))?;
    serde_json::from_value(json).map_err(|e| format!("json unmarshal obj failed: {what}: {e}"))
}

/// An object result: a JSON object with a non-empty string `kind`.
pub fn object(json: Value) -> Result<Value, String> {
    let Value::Object(map) = &json else {
        return Err(format!(
            "json unmarshal obj failed: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_type(&json)
        ));
    };
    match map.get("kind") {
        Some(Value::String(k)) if !k.is_empty() => Ok(json),
        _ => Err(format!("Object 'Kind' is missing in '{json}'")),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `GetReplicas`' second result.
pub fn requirements(json: Value) -> Result<ReplicaRequirements, String> {
    typed(json, &REPLICA_REQUIREMENTS, "ReplicaRequirements")
}

/// `GetComponents`' result: a list.
pub fn components(json: Value) -> Result<Vec<Component>, String> {
    if !json.is_array() {
        return Err(format!(
            "json: cannot unmarshal {} into Go value of type []v1alpha2.Component",
            json_type(&json)
        ));
    }
    typed(json, &List(&COMPONENT), "Component")
}

/// `GetDependencies`' result: a list.
pub fn dependencies(json: Value) -> Result<Vec<DependentObjectReference>, String> {
    if !json.is_array() {
        return Err(format!(
            "json unmarshal obj failed: json: cannot unmarshal {} into Go value of type []v1alpha1.DependentObjectReference",
            json_type(&json)
        ));
    }
    typed(json, &List(&DEPENDENCY), "DependentObjectReference")
}

#[cfg(test)]
mod tests {
    use super::*;
    use karmada_interpreter_core::k8s::validation::validate_dependencies;
    use serde_json::json;

    #[test]
    fn requirements_fold_keys_and_canonicalize() {
        let r = requirements(json!({"ResourceRequest": {"cpu": 0.5, "memory": "1024Mi"},
                                    "nodeclaim": {"NodeSelector": {"a": "b"}}, "junk": 1}))
        .unwrap();
        assert_eq!(r.resource_request["cpu"].0, "500m");
        assert_eq!(r.resource_request["memory"].0, "1Gi");
        assert_eq!(r.node_claim.unwrap().node_selector["a"], "b");
    }

    /// Checked against Karmada's code: keys naming one field in other cases
    /// set it in name order; objects merge, scalars take the last.
    #[test]
    fn repeated_fields_merge_objects_and_keep_the_last_scalar() {
        let r = requirements(json!({
            // "namespacE" sorts before "namespace": the exact name is last.
            "namespace": "x", "namespacE": "y",
            // "priorityclassname" sorts after the exact name: it is last.
            "priorityClassName": "p", "priorityclassname": "q",
            "nodeClaim": {"nodeSelector": {"a": "1", "c": "3"}, "nodeselectoR": {"b": "2", "c": "4"}}
        }))
        .unwrap();
        assert_eq!(r.namespace, "x");
        assert_eq!(r.priority_class_name, "q");
        let selector = r.node_claim.unwrap().node_selector;
        let pairs: Vec<(&str, &str)> = selector
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(pairs, [("a", "1"), ("b", "2"), ("c", "4")]);
    }

    #[test]
    fn requirements_type_mismatch_is_an_error() {
        assert!(requirements(json!({"nodeClaim": {"nodeSelector": {"a": 1}}})).is_err());
        assert!(requirements(json!({"resourceRequest": {"cpu": "lots"}})).is_err());
    }

    #[test]
    fn object_needs_kind() {
        assert!(object(json!({"kind": "X"})).is_ok());
        assert_eq!(
            object(json!({"apiVersion": "v1"})).unwrap_err(),
            "Object 'Kind' is missing in '{\"apiVersion\":\"v1\"}'"
        );
    }

    #[test]
    fn dependency_validation_messages() {
        let deps = dependencies(json!([{"apiVersion": "v1", "kind": "Secret"}])).unwrap();
        assert_eq!(
            validate_dependencies(&deps).unwrap_err().to_string(),
            "dependencies[0]: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Secret\"}: dependency can not leave name and labelSelector all empty"
        );
        let deps = dependencies(
            json!([{"kind": "Secret", "name": "x"}, {"apiVersion": "v1", "name": "y"}]),
        )
        .unwrap();
        assert_eq!(
            validate_dependencies(&deps).unwrap_err().to_string(),
            "[dependencies[0].apiVersion: Invalid value: \"\": missing required apiVersion, dependencies[1].kind: Invalid value: \"\": missing required kind]"
        );
    }
}
