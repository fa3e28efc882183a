//! Object identity: group, version and kind from an object's own fields,
//! and the `Kind namespace/name` that names it in messages.

use kube::core::GroupVersionKind;
use serde_json::Value;

/// The group, version and kind of an object, from its own `apiVersion` and
/// `kind`. `"v1"` is the core group; an `apiVersion` with more than one `/`
/// cannot be parsed and gives empty group and version (as Karmada's parser
/// does), so it matches nothing but customizations keyed the same way.
///
/// ```
/// use karmada_interpreter::k8s::gvk_of;
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
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        None => ("", api_version),
        Some((g, v)) if !v.contains('/') => (g, v),
        Some(_) => ("", ""),
    }
}

/// `group/version`, or `version` alone for the core group.
pub fn api_version_of(gvk: &GroupVersionKind) -> String {
    if gvk.group.is_empty() {
        gvk.version.clone()
    } else {
        format!("{}/{}", gvk.group, gvk.version)
    }
}

/// `Kind namespace/name` (or `Kind name` when cluster-scoped), for messages.
///
/// ```
/// use karmada_interpreter::k8s::describe;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_version_parsing_follows_karmada() {
        assert_eq!(split_api_version("apps/v1"), ("apps", "v1"));
        assert_eq!(split_api_version("v1"), ("", "v1"));
        assert_eq!(split_api_version(""), ("", ""));
        assert_eq!(split_api_version("a/b/c"), ("", ""));
    }
}
