use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelector, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::null_default;

/// Resource name → quantity, e.g. `{"cpu": "250m", "memory": "128Mi"}`.
pub type ResourceList = BTreeMap<String, Quantity>;

/// What each replica of a workload needs.
///
/// ```
/// use karmada_interpreter::api::ReplicaRequirements;
///
/// let r: ReplicaRequirements = serde_json::from_value(serde_json::json!({
///     "nodeClaim": {"nodeSelector": {"pool": "general"}},
///     "resourceRequest": {"cpu": "300m", "memory": 1024},
/// })).unwrap();
/// assert_eq!(r.resource_request["memory"].0, "1024"); // bare numbers are accepted
/// assert!(r.namespace.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaRequirements {
    /// Scheduling constraints of a replica.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_claim: Option<NodeClaim>,
    /// Resources one replica requests.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "resource_list"
    )]
    pub resource_request: ResourceList,
    /// Namespace of the workload.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Priority class of the pods.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub priority_class_name: String,
}

/// Node constraints of a replica.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeClaim {
    /// Required node affinity.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "super::omitempty::node_selector"
    )]
    pub hard_node_affinity: Option<NodeSelector>,
    /// Node selector labels.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    pub node_selector: BTreeMap<String, String>,
    /// Tolerations. Empty texts are absent members, as Go's `omitempty`
    /// writes them (`operator: ""` is not written).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "super::omitempty::tolerations",
        deserialize_with = "tolerations"
    )]
    pub tolerations: Vec<Toleration>,
}

/// One component of a multi-template workload.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Component {
    /// Unique within the object.
    #[serde(default)]
    pub name: String,
    /// Always written, even when 0.
    #[serde(default)]
    pub replicas: i32,
    /// What each replica of this component needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_requirements: Option<ComponentReplicaRequirements>,
}

/// [`ReplicaRequirements`] without `namespace`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentReplicaRequirements {
    /// Scheduling constraints of a replica.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_claim: Option<NodeClaim>,
    /// Resources one replica requests.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "resource_list"
    )]
    pub resource_request: ResourceList,
    /// Priority class of the pods.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub priority_class_name: String,
}

/// An object that must be propagated together with another.
///
/// ```
/// use karmada_interpreter::api::DependentObjectReference;
///
/// let d = DependentObjectReference::named("v1", "ConfigMap", "shop", "settings");
/// assert_eq!(
///     serde_json::to_string(&d).unwrap(),
///     r#"{"apiVersion":"v1","kind":"ConfigMap","namespace":"shop","name":"settings"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DependentObjectReference {
    /// Always written; must be non-empty.
    #[serde(default)]
    pub api_version: String,
    /// Always written; must be non-empty.
    #[serde(default)]
    pub kind: String,
    /// Empty for cluster-scoped referents.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Empty when selected by label.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Used only when `name` is empty.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "super::omitempty::label_selector"
    )]
    pub label_selector: Option<LabelSelector>,
}

impl DependentObjectReference {
    /// A reference by name.
    pub fn named(api_version: &str, kind: &str, namespace: &str, name: &str) -> Self {
        Self {
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            label_selector: None,
        }
    }

    /// The order Karmada's golden files list dependencies in:
    /// apiVersion, kind, namespace, name.
    pub fn sort_key(&self) -> (&str, &str, &str, &str) {
        (&self.api_version, &self.kind, &self.namespace, &self.name)
    }
}

/// Tolerations with Go's `omitempty` on their text members.
fn tolerations<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Toleration>, D::Error> {
    let mut list: Vec<Toleration> = null_default(d)?;
    for t in &mut list {
        for member in [&mut t.key, &mut t.operator, &mut t.value, &mut t.effect] {
            if member.as_deref() == Some("") {
                *member = None;
            }
        }
    }
    Ok(list)
}

/// Quantities arrive as strings or bare JSON numbers; numbers keep their text.
fn resource_list<'de, D: Deserializer<'de>>(d: D) -> Result<ResourceList, D::Error> {
    let raw: Option<BTreeMap<String, Value>> = Option::deserialize(d)?;
    let mut out = ResourceList::new();
    for (name, value) in raw.unwrap_or_default() {
        let text = match value {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            other => {
                return Err(serde::de::Error::custom(format!(
                    "resourceRequest.{name}: expected a quantity string or number, got {other}"
                )))
            }
        };
        out.insert(name, Quantity(text));
    }
    Ok(out)
}

/// One component's replica assignment in a member cluster
/// (`work.karmada.io/v1alpha2` `TargetComponent`): the input of
/// `ReviseComponents` (the `karmada-next` profile, Karmada's pull request
/// #7830), `components` in the webhook request.
#[cfg(feature = "karmada-next")]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetComponent {
    /// The component's name (`spec.components[*].name` of the binding).
    #[serde(default, deserialize_with = "super::null_default")]
    pub name: String,
    /// Replicas of this component assigned to the cluster.
    #[serde(default, deserialize_with = "super::null_default")]
    pub replicas: i32,
}
