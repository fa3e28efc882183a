//! Typed conveniences: interpret k8s-openapi objects, `kube` dynamic objects
//! or any other `kube::Resource`, and get the revised object back typed.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::chain::Interpreter;
use super::layer::{Answer, ReplicaResult};
use super::object::describe;
use crate::api::{AggregatedStatusItem, Component, DependentObjectReference};
use crate::error::{Error, Result};

/// An object the chain can interpret: anything that is a `kube::Resource`
/// and serializes with its `apiVersion` and `kind` (every k8s-openapi type,
/// `kube::core::DynamicObject` with `types` set, derived custom resources).
pub trait AsObject {
    /// The object as the chain's JSON form.
    fn to_object(&self) -> Result<Value>;
}

impl<K: kube::Resource + Serialize> AsObject for K {
    fn to_object(&self) -> Result<Value> {
        let value = serde_json::to_value(self).map_err(|e| Error::InvalidField {
            object: std::any::type_name::<K>().to_owned(),
            field: String::new(),
            reason: format!("cannot encode as JSON: {e}"),
        })?;
        for field in ["apiVersion", "kind"] {
            if value
                .get(field)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                return Err(Error::InvalidField {
                    object: describe(&value),
                    field: field.to_owned(),
                    reason: "the object must carry apiVersion and kind to be interpreted".into(),
                });
            }
        }
        Ok(value)
    }
}

fn typed<K: DeserializeOwned>(answer: Answer<Value>) -> Result<Answer<K>> {
    let served_by = answer.served_by;
    let object = describe(&answer.value);
    let value = serde_json::from_value(answer.value).map_err(|e| Error::InvalidField {
        object,
        field: String::new(),
        reason: format!(
            "the answer of {served_by} does not decode as {}: {e}",
            std::any::type_name::<K>()
        ),
    })?;
    Ok(Answer { value, served_by })
}

impl Interpreter {
    /// [`Interpreter::get_replicas`] for a typed or dynamic object.
    ///
    /// ```
    /// use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
    /// use karmada_interpreter::Interpreter;
    ///
    /// let chain = Interpreter::default();
    /// let d = Deployment {
    ///     spec: DeploymentSpec { replicas: Some(3), ..Default::default() },
    ///     ..Default::default()
    /// };
    /// assert_eq!(chain.replicas_of(&d).unwrap().value.replicas, 3);
    /// let revised: Deployment = chain.revise_replica_of(&d, 5).unwrap().value;
    /// assert_eq!(revised.spec.replicas, Some(5));
    /// ```
    pub fn replicas_of(&self, object: &impl AsObject) -> Result<Answer<ReplicaResult>> {
        self.get_replicas(&object.to_object()?)
    }

    /// [`Interpreter::get_components`] for a typed or dynamic object.
    pub fn components_of(&self, object: &impl AsObject) -> Result<Answer<Vec<Component>>> {
        self.get_components(&object.to_object()?)
    }

    /// [`Interpreter::revise_replica`], returning the revised object typed.
    pub fn revise_replica_of<K: AsObject + DeserializeOwned>(
        &self,
        object: &K,
        replicas: i64,
    ) -> Result<Answer<K>> {
        typed(self.revise_replica_owned(object.to_object()?, replicas)?)
    }

    /// [`Interpreter::retain`], returning the object to apply typed.
    pub fn retain_of<K: AsObject + DeserializeOwned>(
        &self,
        desired: &K,
        observed: &K,
    ) -> Result<Answer<K>> {
        typed(self.retain_owned(desired.to_object()?, &observed.to_object()?)?)
    }

    /// [`Interpreter::aggregate_status`], returning the template typed.
    pub fn aggregate_status_of<K: AsObject + DeserializeOwned>(
        &self,
        object: &K,
        items: Option<&[AggregatedStatusItem]>,
    ) -> Result<Answer<K>> {
        typed(self.aggregate_status(&object.to_object()?, items)?)
    }

    /// [`Interpreter::reflect_status`] for a typed or dynamic object.
    pub fn status_of(&self, object: &impl AsObject) -> Result<Answer<Option<Value>>> {
        self.reflect_status(&object.to_object()?)
    }

    /// [`Interpreter::interpret_health`] for a typed or dynamic object.
    pub fn health_of(&self, object: &impl AsObject) -> Result<Answer<bool>> {
        self.interpret_health(&object.to_object()?)
    }

    /// [`Interpreter::get_dependencies`] for a typed or dynamic object.
    pub fn dependencies_of(
        &self,
        object: &impl AsObject,
    ) -> Result<Answer<Vec<DependentObjectReference>>> {
        self.get_dependencies(&object.to_object()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::DynamicObject;
    use serde_json::json;

    #[test]
    fn dynamic_objects_are_interpreted_and_need_their_types() {
        let chain = Interpreter::default();
        let obj: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"}, "spec": {"replicas": 4}
        }))
        .unwrap();
        assert_eq!(chain.replicas_of(&obj).unwrap().value.replicas, 4);
        let revised = chain.revise_replica_of(&obj, 1).unwrap().value;
        assert_eq!(revised.data["spec"]["replicas"], 1);
        let mut untyped = obj;
        untyped.types = None;
        match chain.replicas_of(&untyped) {
            Err(Error::InvalidField { object, field, .. }) => {
                assert_eq!(
                    (object.as_str(), field.as_str()),
                    ("<no kind> shop/web", "apiVersion")
                );
            }
            other => panic!("expected InvalidField, got {other:?}"),
        }
    }
}
