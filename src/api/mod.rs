//! Karmada's API types, serde-compatible with Karmada's JSON.
//!
//! Field names, optionality and omission follow Karmada's Go types
//! (`config.karmada.io/v1alpha1`): a member Go tags `omitempty` is left out
//! when it is empty, a member Go always writes is always written. The
//! Kubernetes parts (tolerations, node selectors, label selectors,
//! quantities, object metadata) are k8s-openapi types.

mod context;
mod customization;
mod operation;
mod requirements;
mod status_item;
mod webhook_config;

pub use context::{
    PatchType, RequestStatus, ResourceInterpreterContext, ResourceInterpreterRequest,
    ResourceInterpreterResponse, CONTEXT_API_VERSION, CONTEXT_KIND,
};
pub use customization::{
    CustomizationRules, CustomizationTarget, LuaScript, ResourceInterpreterCustomization,
    ResourceInterpreterCustomizationSpec,
};
pub use operation::{InterpreterOperation, UnknownOperation};
pub use requirements::{
    Component, ComponentReplicaRequirements, DependentObjectReference, NodeClaim,
    ReplicaRequirements,
};
pub use status_item::{AggregatedStatusItem, ResourceHealth};
pub use webhook_config::{
    ResourceInterpreterWebhook, ResourceInterpreterWebhookConfiguration, RuleWithOperations,
};

/// The API group and version of Karmada's interpreter configuration types.
pub const CONFIG_API_VERSION: &str = "config.karmada.io/v1alpha1";

/// Go's JSON decoding leaves a field at its zero value when the input has
/// `null` there.
pub(crate) fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + serde::Deserialize<'de>,
{
    Ok(<Option<T> as serde::Deserialize>::deserialize(d)?.unwrap_or_default())
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

pub(crate) fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}
