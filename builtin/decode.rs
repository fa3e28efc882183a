//! Typed decoding of whole objects into their Kubernetes schema
//! (`native-builtins.md` §1.4), with errors naming the offending field.
//!
//! Decoding uses the k8s-openapi types: keys unknown to the schema are
//! ignored, `null` reads as unset, every present field must have its schema
//! type. Integer fields also accept floats with an integral value (`2.0`),
//! as Kubernetes' converter does. Quantity syntax is not checked by the
//! k8s-openapi types; handlers that decode pod specs check it with
//! [`crate::builtin::podtemplate::check_quantities`].
//!
//! Differences from the reference's decoder:
//! - deliberate: an integer too large for a 32-bit field is rejected instead
//!   of being wrapped modulo 2^32 (`native-builtins.md` §14 item 14) — a
//!   silently wrapped replica count would be a wrong answer;
//! - known limit: a `null` *element* of a list or *value* of a map (e.g.
//!   `containers: [null]`, `labels: {a: null}`) is an error here, where Go
//!   decodes it as the zero value. `null` for an object field is unset, as in
//!   Go.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::interpreter::describe;

/// Decodes `value` (the object itself, or a part of it at `prefix`) as `T`.
/// `object` names the object in errors.
pub(crate) fn decode_at<T: DeserializeOwned>(
    object: &Value,
    value: &Value,
    prefix: &str,
) -> Result<T> {
    if has_integral_float(value) {
        let fixed = crate::yaml::integral_floats_to_integers(value.clone());
        return decode_exact(object, &fixed, prefix);
    }
    decode_exact(object, value, prefix)
}

/// Decodes the whole object as `T`.
pub(crate) fn decode<T: DeserializeOwned>(object: &Value) -> Result<T> {
    decode_at(object, object, "")
}

fn decode_exact<T: DeserializeOwned>(object: &Value, value: &Value, prefix: &str) -> Result<T> {
    match T::deserialize(value) {
        Ok(typed) => Ok(typed),
        Err(_) => {
            // Decode again, tracking the path, only to name the field.
            let err = match serde_path_to_error::deserialize::<_, T>(value) {
                Ok(_) => {
                    return Err(Error::InvalidField {
                        object: describe(object),
                        field: prefix.to_owned(),
                        reason: "does not decode".to_owned(),
                    })
                }
                Err(e) => e,
            };
            let path = err.path().to_string();
            let field = match (prefix.is_empty(), path.as_str()) {
                (_, ".") => prefix.to_owned(),
                (true, p) => p.to_owned(),
                (false, p) if p.starts_with('[') => format!("{prefix}{p}"),
                (false, p) => format!("{prefix}.{p}"),
            };
            Err(Error::InvalidField {
                object: describe(object),
                field,
                reason: err.into_inner().to_string(),
            })
        }
    }
}

/// Whether a float with an integral value occurs anywhere in `value`.
fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(map) => map.values().any(has_integral_float),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
    use serde_json::json;

    #[test]
    fn errors_name_the_field() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "n"},
            "spec": {"template": {"spec": {"containers": [{"name": "a", "ports": [{"containerPort": "80"}]}]}}}});
        let err = decode::<Deployment>(&obj).unwrap_err().to_string();
        assert!(err.contains("Deployment n/d"), "{err}");
        assert!(
            err.contains("spec.template.spec.containers[0].ports[0].containerPort"),
            "{err}"
        );
    }

    #[test]
    fn integral_floats_are_integers_and_nulls_are_unset() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"replicas": 2.0, "selector": null, "template": {"spec": {"containers": [{"name": null}]}}}});
        let d: Object<DeploymentSpec, serde_json::Value> = decode(&obj).unwrap();
        assert_eq!(d.spec.unwrap().replicas, Some(2));
        let bad = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 2.5}});
        assert!(decode::<Deployment>(&bad).is_err());
    }
}

/// A top-level object of a kind: `metadata`, `spec` and `status` decoded
/// into the kind's schema (whether k8s-openapi makes `spec` optional varies
/// between its Kubernetes versions; here both are optional and `null` means
/// absent). `apiVersion` and `kind` were matched by the dispatcher.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(bound(deserialize = "S: serde::Deserialize<'de>, T: serde::Deserialize<'de>"))]
pub(crate) struct Object<S, T> {
    /// `metadata`.
    #[serde(default)]
    pub metadata: Option<ObjectMeta>,
    /// `spec`.
    #[serde(default)]
    pub spec: Option<S>,
    /// `status`.
    #[serde(default)]
    pub status: Option<T>,
}

/// `metadata.generation`, 0 when absent.
pub(crate) fn generation_of(metadata: &Option<ObjectMeta>) -> i64 {
    metadata.as_ref().and_then(|m| m.generation).unwrap_or(0)
}

/// `metadata.namespace`, empty when absent.
pub(crate) fn namespace_of(metadata: &Option<ObjectMeta>) -> &str {
    metadata
        .as_ref()
        .and_then(|m| m.namespace.as_deref())
        .unwrap_or("")
}
