//! Object identity: group, version and kind from an object's own fields,
//! and the `Kind namespace/name` that names it in messages.

use kube::core::GroupVersionKind;
use serde_json::Value;

use super::field::same_key;

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
    TypeRef::of(object).to_gvk()
}

/// An object's group, version and kind borrowed from it (or from a
/// [`GroupVersionKind`]): what the chain dispatches on, read once per call
/// without allocating. Parsed as [`gvk_of`] parses (`"v1"` is the core
/// group; an `apiVersion` with more than one `/` gives empty group and
/// version).
///
/// ```
/// use karmada_interpreter::k8s::object::TypeRef;
///
/// let object = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment"});
/// let ty = TypeRef::of(&object);
/// assert_eq!((ty.group, ty.version, ty.kind), ("apps", "v1", "Deployment"));
/// assert_eq!(TypeRef::from_gvk(&ty.to_gvk()), ty);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypeRef<'a> {
    /// The API group (`""` for the core group).
    pub group: &'a str,
    /// The version.
    pub version: &'a str,
    /// The kind.
    pub kind: &'a str,
}

impl<'a> TypeRef<'a> {
    /// The type of `object`, from its own `apiVersion` and `kind` (absent or
    /// not a string: empty).
    pub fn of(object: &'a Value) -> Self {
        let field = |key: &str| {
            super::field::child(object, key)
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        Self::new(field("apiVersion"), field("kind"))
    }

    /// The type named by an `apiVersion` and a `kind`.
    pub fn new(api_version: &'a str, kind: &'a str) -> Self {
        let (group, version) = split_api_version(api_version);
        Self {
            group,
            version,
            kind,
        }
    }

    /// The same type, borrowed from `gvk`.
    pub fn from_gvk(gvk: &'a GroupVersionKind) -> Self {
        Self {
            group: &gvk.group,
            version: &gvk.version,
            kind: &gvk.kind,
        }
    }

    /// An owned copy.
    pub fn to_gvk(self) -> GroupVersionKind {
        GroupVersionKind::gvk(self.group, self.version, self.kind)
    }

    /// Whether the object's `apiVersion` could be parsed (Karmada cannot
    /// parse one with more than one `/`; such an object has neither group
    /// nor version).
    pub fn parsed(self) -> bool {
        !(self.group.is_empty() && self.version.is_empty())
    }

    /// Whether `api_version` (`group/version`, or `version` for the core
    /// group) names this type's group and version.
    pub fn in_api_version(self, api_version: &str) -> bool {
        if self.group.is_empty() {
            same_key(api_version, self.version)
        } else {
            // `group/version` compared in place, without searching for the `/`.
            let (g, v) = (self.group.len(), self.version.len());
            api_version.len() == g + 1 + v
                && api_version.as_bytes().get(g) == Some(&b'/')
                && api_version
                    .get(..g)
                    .is_some_and(|a| same_key(a, self.group))
                && api_version
                    .get(g + 1..)
                    .is_some_and(|a| same_key(a, self.version))
        }
    }
}

/// Splits `group/version` (`version` alone for the core group).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    // A byte search: `/` is ASCII, so it never splits a character.
    let bytes = api_version.as_bytes();
    match bytes.iter().position(|&b| b == b'/') {
        None => ("", api_version),
        Some(i) if !bytes[i + 1..].contains(&b'/') => (&api_version[..i], &api_version[i + 1..]),
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
