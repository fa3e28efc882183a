//! Karmada's API types, serde-compatible with Karmada's JSON.
//!
//! Field names, optionality and omission follow Karmada's Go types
//! (`config.karmada.io/v1alpha1`): a member Go tags `omitempty` is left out
//! when it is empty, a member Go always writes is always written. The
//! Kubernetes parts (tolerations, node selectors, label selectors,
//! quantities, object metadata) are k8s-openapi types.

mod context;
mod customization;
mod go_json;
mod omitempty;
mod operation;
mod requirements;
#[cfg(feature = "schema")]
pub mod schema;
mod status_item;
mod webhook_config;

pub use context::{
    PatchType, RequestStatus, ResourceInterpreterContext, ResourceInterpreterRequest,
    ResourceInterpreterResponse, CONTEXT_API_VERSION, CONTEXT_KIND,
};
pub use customization::{
    CustomizationRules, CustomizationTarget, LuaScript, OrderError,
    ResourceInterpreterCustomization, ResourceInterpreterCustomizationSpec, SHADOW_ANNOTATION,
};
pub use go_json::go_json_field;
pub(crate) use operation::NOT_COMPILED_IN;
pub use operation::{InterpreterOperation, UnknownOperation};
#[cfg(feature = "karmada-next")]
pub use requirements::TargetComponent;
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

/// Go's `omitempty` on a slice: nil and empty are both left out.
pub(crate) fn is_none_or_empty<T>(v: &Option<Vec<T>>) -> bool {
    v.as_ref().is_none_or(Vec::is_empty)
}

pub(crate) fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

/// `kube::Resource` for a cluster-scoped `config.karmada.io/v1alpha1` kind,
/// so `kube::Api<T>` can list, watch and edit it. The serde wire format is
/// untouched: only the static type information is added.
macro_rules! config_resource {
    ($ty:ty, $kind:literal, $plural:literal) => {
        impl kube::Resource for $ty {
            type DynamicType = ();
            type Scope = kube::core::ClusterResourceScope;

            fn kind(_: &()) -> std::borrow::Cow<'_, str> {
                $kind.into()
            }
            fn group(_: &()) -> std::borrow::Cow<'_, str> {
                CONFIG_GROUP.into()
            }
            fn version(_: &()) -> std::borrow::Cow<'_, str> {
                CONFIG_VERSION.into()
            }
            fn api_version(_: &()) -> std::borrow::Cow<'_, str> {
                CONFIG_API_VERSION.into()
            }
            fn plural(_: &()) -> std::borrow::Cow<'_, str> {
                $plural.into()
            }
            fn meta(&self) -> &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                &self.metadata
            }
            fn meta_mut(
                &mut self,
            ) -> &mut k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

/// The API group of Karmada's interpreter configuration types.
pub const CONFIG_GROUP: &str = "config.karmada.io";
/// The API version (without group) of Karmada's interpreter configuration types.
pub const CONFIG_VERSION: &str = "v1alpha1";

config_resource!(
    ResourceInterpreterCustomization,
    "ResourceInterpreterCustomization",
    "resourceinterpretercustomizations"
);
config_resource!(
    ResourceInterpreterWebhookConfiguration,
    "ResourceInterpreterWebhookConfiguration",
    "resourceinterpreterwebhookconfigurations"
);

#[cfg(test)]
mod resource_tests {
    use super::*;
    use kube::Resource;

    #[test]
    fn config_kinds_have_cluster_scoped_urls() {
        assert_eq!(
            ResourceInterpreterCustomization::url_path(&(), None),
            "/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations"
        );
        assert_eq!(
            ResourceInterpreterWebhookConfiguration::url_path(&(), None),
            "/apis/config.karmada.io/v1alpha1/resourceinterpreterwebhookconfigurations"
        );
        assert_eq!(
            ResourceInterpreterCustomization::kind(&()),
            "ResourceInterpreterCustomization"
        );
    }
}
