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
/// member names match case-insensitively (in name order, the last match
/// sets the field).
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

/// A status item as Go's `encoding/json` reads one: `null` is the zero item;
/// each member whose name matches a field, exactly or ignoring case, sets
/// that field in turn (in name order: the order of the text Go's encoder
/// writes), so the last match wins.
#[derive(Deserialize)]
struct GoItem(Option<serde_json::Map<String, Value>>);

impl TryFrom<GoItem> for AggregatedStatusItem {
    type Error = serde_json::Error;

    /// Each member is converted from the value already decoded, in name
    /// order (the first failing member is the one reported); `status` is
    /// moved, never decoded a second time.
    fn try_from(GoItem(members): GoItem) -> Result<Self, Self::Error> {
        let mut item = Self::default();
        for (key, value) in members.into_iter().flatten() {
            match super::go_json_field(&MEMBERS, |m| m, &key).copied() {
                Some("clusterName") => set(&mut item.cluster_name, value)?,
                // A pointer in Go: `null` clears it.
                Some("status") => item.status = Some(value).filter(|v| !v.is_null()),
                Some("applied") => set(&mut item.applied, value)?,
                Some("appliedMessage") => set(&mut item.applied_message, value)?,
                Some("health") => set(&mut item.health, value)?,
                _ => {}
            }
        }
        Ok(item)
    }
}

/// Sets a plain field from a member's value as Go decodes one: `null`
/// leaves the field as it is.
fn set<T: serde::de::DeserializeOwned>(
    field: &mut T,
    value: Value,
) -> Result<(), serde_json::Error> {
    if let Some(v) = serde_json::from_value::<Option<T>>(value)? {
        *field = v;
    }
    Ok(())
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

    /// As Karmada's code decodes them (checked with its own decoder): the
    /// last name in name order matching the field wins, exact or not.
    #[rstest]
    #[case(r#"{"ClusterName":"folded","clusterName":"exact"}"#, "exact")]
    #[case(r#"{"clusterName":"exact","clusternamE":"folded"}"#, "folded")]
    #[case(r#"{"ClusterName":"second","CLUSTERNAME":"first"}"#, "second")]
    // `null` leaves a plain field as it is.
    #[case(r#"{"clusterName":"a","clusternamE":null}"#, "a")]
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
        // `status` is a pointer in Go: a later `null` clears it.
        let cleared: AggregatedStatusItem =
            serde_json::from_str(r#"{"STATUS":{"x":1},"status":null}"#).unwrap();
        assert_eq!(cleared.status, None);
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
