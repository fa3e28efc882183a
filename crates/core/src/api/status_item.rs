use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::is_false;

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

impl TryFrom<GoItem> for AggregatedStatusItem {
    type Error = serde_json::Error;

    /// Each member is converted from the value already decoded, in the
    /// order of their names (the first failing member is the one reported);
    /// `status` is moved, never decoded a second time.
    fn try_from(GoItem(members): GoItem) -> Result<Self, Self::Error> {
        let Some(members) = members else {
            return Ok(Self::default());
        };
        // One slot per member, in the order of `MEMBERS`: an exact name
        // replaces a folded one, and among folded names the first (in name
        // order) stays.
        let mut slots: [Option<Value>; 5] = Default::default();
        for (key, value) in members {
            if let Some(i) = MEMBERS.iter().position(|m| *m == key) {
                slots[i] = Some(value);
            } else if let Some(i) = MEMBERS.iter().position(|m| m.eq_ignore_ascii_case(&key)) {
                slots[i].get_or_insert(value);
            }
        }
        let [cluster_name, status, applied, applied_message, health] = slots;
        let mut item = Self::default();
        // Converted in name order, so the first failing member in that
        // order is the one reported.
        if let Some(v) = applied {
            item.applied = null_or(v)?;
        }
        if let Some(v) = applied_message {
            item.applied_message = null_or(v)?;
        }
        if let Some(v) = cluster_name {
            item.cluster_name = null_or(v)?;
        }
        if let Some(v) = health {
            item.health = serde_json::from_value(v)?;
        }
        item.status = status.filter(|v| !v.is_null());
        Ok(item)
    }
}

/// A member's value as Go decodes it into a plain field: `null` leaves the
/// zero value.
fn null_or<T: Default + serde::de::DeserializeOwned>(value: Value) -> Result<T, serde_json::Error> {
    Ok(serde_json::from_value::<Option<T>>(value)?.unwrap_or_default())
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

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    #[rstest]
    // An exact name wins over a folded one, whichever sorts first.
    #[case(r#"{"ClusterName":"folded","clusterName":"exact"}"#, "exact")]
    #[case(r#"{"clusterName":"exact","clusternamE":"folded"}"#, "exact")]
    // Among folded names the first in name order stays.
    #[case(r#"{"ClusterName":"second","CLUSTERNAME":"first"}"#, "first")]
    #[case(r#"{"clusterName":null}"#, "")]
    #[case(r#"{"unknown":1}"#, "")]
    fn member_names_match_as_go_reads_them(#[case] text: &str, #[case] cluster: &str) {
        let item: AggregatedStatusItem = serde_json::from_str(text).unwrap();
        assert_eq!(item.cluster_name, cluster);
    }

    #[test]
    fn every_member_is_read_and_status_kept_whole() {
        let status = json!({"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}});
        let text = json!({"clusterName": "a", "status": status, "applied": true,
                          "appliedMessage": "m", "HEALTH": "Unhealthy"})
        .to_string();
        let item: AggregatedStatusItem = serde_json::from_str(&text).unwrap();
        assert_eq!(
            item,
            AggregatedStatusItem {
                cluster_name: "a".into(),
                status: Some(status),
                applied: true,
                applied_message: "m".into(),
                health: Some(ResourceHealth::Unhealthy),
            }
        );
        let null_status: AggregatedStatusItem =
            serde_json::from_str(r#"{"status":null,"applied":null}"#).unwrap();
        assert_eq!(null_status, AggregatedStatusItem::default());
    }

    #[test]
    fn the_first_bad_member_in_name_order_is_reported() {
        let e = serde_json::from_str::<AggregatedStatusItem>(r#"{"clusterName":1,"applied":"x"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected a boolean"), "{e}");
        let e = serde_json::from_str::<AggregatedStatusItem>(r#"{"health":1,"clusterName":2}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("integer `2`, expected a string"), "{e}");
    }
}
