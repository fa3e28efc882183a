//! Small helpers on objects held as `serde_json::Value`.

use kube::core::{DynamicObject, GroupVersionKind};
use serde_json::Value;

use crate::error::{Error, Result};

/// The group, version and kind of an object, from its own `apiVersion` and
/// `kind`. `"v1"` is the core group; an `apiVersion` with more than one `/`
/// cannot be parsed and gives empty group and version (as Karmada's parser
/// does), so it matches nothing but customizations keyed the same way.
///
/// ```
/// use karmada_interpreter::interpreter::gvk_of;
///
/// let gvk = gvk_of(&serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment"}));
/// assert_eq!((gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str()), ("apps", "v1", "Deployment"));
/// assert_eq!(gvk_of(&serde_json::json!({"apiVersion": "v1", "kind": "Pod"})).group, "");
/// ```
pub fn gvk_of(object: &Value) -> GroupVersionKind {
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    let (group, version) = split_api_version(api_version);
    GroupVersionKind::gvk(group, version, kind)
}

/// Splits `group/version` (`version` alone for the core group).
pub(crate) fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        None => ("", api_version),
        Some((g, v)) if !v.contains('/') => (g, v),
        Some(_) => ("", ""),
    }
}

/// "a string", "an array", ... for messages about a JSON value of the wrong type.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `Kind namespace/name` (or `Kind name` when cluster-scoped), for messages.
///
/// ```
/// use karmada_interpreter::interpreter::describe;
///
/// let obj = serde_json::json!({"kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}});
/// assert_eq!(describe(&obj), "Deployment shop/web");
/// ```
pub fn describe(object: &Value) -> String {
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("<no kind>");
    let meta = object.get("metadata");
    let field = |f: &str| {
        meta.and_then(|m| m.get(f))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let (ns, name) = (field("namespace"), field("name"));
    match (ns.is_empty(), name.is_empty()) {
        (_, true) => format!("{kind} <unnamed>"),
        (true, false) => format!("{kind} {name}"),
        (false, false) => format!("{kind} {ns}/{name}"),
    }
}

/// A typed k8s-openapi object as the chain's JSON form (with `apiVersion` and `kind`).
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use karmada_interpreter::interpreter::from_resource;
///
/// let v = from_resource(&Pod::default()).unwrap();
/// assert_eq!(v["kind"], "Pod");
/// assert_eq!(v["apiVersion"], "v1");
/// ```
pub fn from_resource<K>(object: &K) -> Result<Value>
where
    K: k8s_openapi::Resource + serde::Serialize,
{
    serde_json::to_value(object).map_err(|e| Error::InvalidField {
        object: K::KIND.to_owned(),
        field: String::new(),
        reason: format!("cannot encode as JSON: {e}"),
    })
}

/// A `kube` dynamic object as the chain's JSON form. Fails when the object
/// carries no `apiVersion`/`kind` (`types` is `None`): the chain dispatches on them.
pub fn from_dynamic(object: &DynamicObject) -> Result<Value> {
    let value = serde_json::to_value(object).map_err(|e| Error::InvalidField {
        object: "DynamicObject".to_owned(),
        field: String::new(),
        reason: format!("cannot encode as JSON: {e}"),
    })?;
    if object.types.is_none() {
        return Err(Error::InvalidField {
            object: describe(&value),
            field: "apiVersion".to_owned(),
            reason: "a dynamic object needs apiVersion and kind (types) to be interpreted".into(),
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn api_version_parsing_follows_karmada() {
        assert_eq!(split_api_version("apps/v1"), ("apps", "v1"));
        assert_eq!(split_api_version("v1"), ("", "v1"));
        assert_eq!(split_api_version(""), ("", ""));
        assert_eq!(split_api_version("a/b/c"), ("", ""));
    }

    #[test]
    fn dynamic_objects_keep_types() {
        let obj: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
            "metadata": {"name": "c"}, "spec": {"replicas": 2}
        }))
        .unwrap();
        let v = from_dynamic(&obj).unwrap();
        assert_eq!(v["spec"]["replicas"], 2);
        assert_eq!(gvk_of(&v).group, "apps.kruise.io");
    }
}
