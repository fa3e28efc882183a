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
///
/// Decoding follows Go's `encoding/json`: a `null` item is the zero item and
/// member names match case-insensitively (an exact match wins).
///
/// ```
/// use karmada_interpreter::api::AggregatedStatusItem;
///
/// let items: Vec<AggregatedStatusItem> =
///     serde_json::from_str(r#"[null, {"ClusterName": "a", "STATUS": {"x": 1}}]"#).unwrap();
/// assert_eq!(items[0], AggregatedStatusItem::default());
/// assert_eq!(items[1].cluster_name, "a");
/// assert_eq!(items[1].status, Some(serde_json::json!({"x": 1})));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "GoItem")]
pub struct AggregatedStatusItem {
    /// Always written (`null` reads as empty, as in Go).
    pub cluster_name: String,
    /// The status reflected from that cluster; `None` when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
    /// Whether the manifest was applied.
    #[serde(skip_serializing_if = "is_false")]
    pub applied: bool,
    /// Why applying failed.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub applied_message: String,
    /// Health verdict for the member object (omitted when absent or empty).
    #[serde(skip_serializing_if = "ResourceHealth::is_unset")]
    pub health: Option<ResourceHealth>,
}

/// The members of [`AggregatedStatusItem`], in their exact spelling.
const MEMBERS: [&str; 5] = [
    "clusterName",
    "status",
    "applied",
    "appliedMessage",
    "health",
];

/// A status item as Go's `encoding/json` reads one: `null` is the zero item,
/// and a member name matches case-insensitively when no member has it
/// exactly (an exact match wins).
#[derive(Deserialize)]
struct GoItem(Option<serde_json::Map<String, Value>>);

/// The item decoded from canonical member names (the derived decoding).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CanonicalItem {
    #[serde(default, deserialize_with = "null_default")]
    cluster_name: String,
    #[serde(default)]
    status: Option<Value>,
    #[serde(default, deserialize_with = "null_default")]
    applied: bool,
    #[serde(default, deserialize_with = "null_default")]
    applied_message: String,
    #[serde(default)]
    health: Option<ResourceHealth>,
}

impl TryFrom<GoItem> for AggregatedStatusItem {
    type Error = serde_json::Error;

    fn try_from(GoItem(members): GoItem) -> Result<Self, Self::Error> {
        let Some(members) = members else {
            return Ok(Self::default());
        };
        let mut canonical = serde_json::Map::new();
        let mut folded = Vec::new();
        for (key, value) in members {
            if MEMBERS.contains(&key.as_str()) {
                canonical.insert(key, value);
            } else if let Some(name) = MEMBERS.iter().find(|m| m.eq_ignore_ascii_case(&key)) {
                folded.push((*name, value));
            }
        }
        for (name, value) in folded {
            canonical.entry(name).or_insert(value);
        }
        let item: CanonicalItem = serde_json::from_value(Value::Object(canonical))?;
        Ok(Self {
            cluster_name: item.cluster_name,
            status: item.status,
            applied: item.applied,
            applied_message: item.applied_message,
            health: item.health,
        })
    }
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
