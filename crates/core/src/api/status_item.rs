use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{is_false, null_default};

/// The status one member cluster reported, as handed to `AggregateStatus`
/// (Karmada's `AggregatedStatusItem`).
///
/// ```
/// use karmada_interpreter::api::{AggregatedStatusItem, ResourceHealth};
///
/// let item: AggregatedStatusItem = serde_json::from_str(
///     r#"{"clusterName":"edge-a","status":{"readyReplicas":4},"applied":true,"health":"Healthy"}"#,
/// ).unwrap();
/// assert_eq!(item.health, Some(ResourceHealth::Healthy));
/// assert_eq!(item.status.unwrap()["readyReplicas"], 4);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AggregatedStatusItem {
    /// Always written (`null` reads as empty, as in Go).
    #[serde(default, deserialize_with = "null_default")]
    pub cluster_name: String,
    /// The status reflected from that cluster; `None` when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
    /// Whether the manifest was applied.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default"
    )]
    pub applied: bool,
    /// Why applying failed.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub applied_message: String,
    /// Health verdict for the member object (omitted when absent or empty).
    #[serde(default, skip_serializing_if = "ResourceHealth::is_unset")]
    pub health: Option<ResourceHealth>,
}

/// `health` of a status item. Karmada writes `Healthy`, `Unhealthy` or
/// `Unknown`; any other string is kept as it came.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum ResourceHealth {
    /// `Healthy`
    Healthy,
    /// `Unhealthy`
    Unhealthy,
    /// `Unknown`
    Unknown,
    /// A value Karmada does not define.
    Other(String),
}

impl ResourceHealth {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Healthy => "Healthy",
            Self::Unhealthy => "Unhealthy",
            Self::Unknown => "Unknown",
            Self::Other(s) => s,
        }
    }
}

impl ResourceHealth {
    /// No verdict: absent, or the empty string Go's `omitempty` leaves out.
    pub fn is_unset(health: &Option<Self>) -> bool {
        match health {
            None => true,
            Some(Self::Other(s)) => s.is_empty(),
            Some(_) => false,
        }
    }
}

impl From<String> for ResourceHealth {
    fn from(s: String) -> Self {
        match s.as_str() {
            "Healthy" => Self::Healthy,
            "Unhealthy" => Self::Unhealthy,
            "Unknown" => Self::Unknown,
            _ => Self::Other(s),
        }
    }
}

impl From<ResourceHealth> for String {
    fn from(h: ResourceHealth) -> Self {
        h.as_str().to_owned()
    }
}

impl fmt::Display for ResourceHealth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
