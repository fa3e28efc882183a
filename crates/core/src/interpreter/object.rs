//! Small helpers on objects held as `serde_json::Value`.

use kube::core::DynamicObject;
use serde_json::Value;

use crate::error::{Error, Result};
pub use crate::k8s::object::{describe, gvk_of, TypeRef};

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
