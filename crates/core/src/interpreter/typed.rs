//! Typed objects: interpret k8s-openapi objects, `kube` dynamic objects or
//! any other `kube::Resource` through the same operation methods as JSON
//! ([`Typed`]), and get edited objects back typed.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use std::borrow::Cow;

use super::chain::{Chain, EditedObject};
use super::layer::Answer;
use super::object::describe;
use crate::api::AggregatedStatusItem;
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

/// A typed object handed to an operation: a k8s-openapi type, a
/// `kube::core::DynamicObject`, a derived custom resource. Reading
/// operations take `Typed(&object)` wherever they take `&Value`; the edits
/// (`revise_replica`, `retain`, `aggregate_status`) give the object back
/// as its own type.
///
/// ```
/// use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
/// use karmada_interpreter::{interpreter::Typed, Interpreter};
///
/// let chain = Interpreter::default();
/// let d = Deployment {
///     spec: DeploymentSpec { replicas: Some(3), ..Default::default() },
///     ..Default::default()
/// };
/// assert_eq!(chain.get_replicas(Typed(&d)).unwrap().value.replicas, 3);
/// let revised: Deployment = chain.revise_replica(Typed(&d), 5).unwrap().value;
/// assert_eq!(revised.spec.replicas, Some(5));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Typed<T>(pub T);

/// The object a reading operation is given: `&Value` (the JSON form the
/// chain works on, borrowed) or [`Typed`] (encoded to JSON first).
pub trait ObjectArg<'a> {
    /// The object as JSON: borrowed when it already is.
    fn json(self) -> Result<Cow<'a, Value>>;
}

impl<'a> ObjectArg<'a> for &'a Value {
    fn json(self) -> Result<Cow<'a, Value>> {
        Ok(Cow::Borrowed(self))
    }
}

impl<'a, K: AsObject> ObjectArg<'a> for Typed<&'a K> {
    fn json(self) -> Result<Cow<'a, Value>> {
        self.0.to_object().map(Cow::Owned)
    }
}

impl<'a, K: AsObject + DeserializeOwned> EditedObject<'a> for Typed<&'a K> {
    type Output = K;

    fn revise(self, chain: &Chain, replicas: i64) -> Result<Answer<K>> {
        typed(self.0.to_object()?.revise(chain, replicas)?)
    }

    fn retain(self, chain: &Chain, observed: &Value) -> Result<Answer<K>> {
        typed(self.0.to_object()?.retain(chain, observed)?)
    }

    fn aggregate(self, chain: &Chain, items: Option<&[AggregatedStatusItem]>) -> Result<Answer<K>> {
        typed(self.0.to_object()?.aggregate(chain, items)?)
    }
}
