//! Go's `omitempty` for the Kubernetes types inside Karmada's typed results.
//!
//! k8s-openapi leaves out a member only when it is absent (`None`); Go's
//! JSON leaves out an `omitempty` member that is empty too (`""`, an empty
//! list or map). A toleration decoded from `operator: ""` holds
//! `Some("")`, and Karmada writes no `operator` for it. These serializers
//! write the Kubernetes parts of [`NodeClaim`](super::NodeClaim) and
//! [`DependentObjectReference`](super::DependentObjectReference) as Go
//! writes them; the members of Karmada's own types carry the same rule in
//! their `skip_serializing_if` attributes, so every typed result (CLI,
//! golden runner, webhook, values handed back to Lua) is written one way.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{NodeSelector, NodeSelectorRequirement, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
use serde::{Serialize, Serializer};

/// `Some("")` and `None` are both empty.
fn text(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or_default()
}

/// `Some(vec![])` and `None` are both empty.
fn list<T>(v: &Option<Vec<T>>) -> &[T] {
    v.as_deref().unwrap_or_default()
}

/// `corev1.Toleration`: every member `omitempty`; `tolerationSeconds` is a
/// pointer, so `0` is written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GoToleration<'a> {
    #[serde(skip_serializing_if = "str::is_empty")]
    key: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    operator: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    value: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    effect: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    toleration_seconds: Option<i64>,
}

impl<'a> From<&'a Toleration> for GoToleration<'a> {
    fn from(t: &'a Toleration) -> Self {
        Self {
            key: text(&t.key),
            operator: text(&t.operator),
            value: text(&t.value),
            effect: text(&t.effect),
            toleration_seconds: t.toleration_seconds,
        }
    }
}

/// `corev1.NodeSelector`: `nodeSelectorTerms` is always written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GoNodeSelector<'a> {
    node_selector_terms: Vec<GoNodeSelectorTerm<'a>>,
}

/// `corev1.NodeSelectorTerm`: both lists `omitempty`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GoNodeSelectorTerm<'a> {
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    match_expressions: Vec<GoRequirement<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    match_fields: Vec<GoRequirement<'a>>,
}

/// `corev1.NodeSelectorRequirement` and `metav1.LabelSelectorRequirement`:
/// `key` and `operator` always written, `values` `omitempty`.
#[derive(Serialize)]
struct GoRequirement<'a> {
    key: &'a str,
    operator: &'a str,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    values: &'a [String],
}

impl<'a> From<&'a NodeSelectorRequirement> for GoRequirement<'a> {
    fn from(r: &'a NodeSelectorRequirement) -> Self {
        Self {
            key: &r.key,
            operator: &r.operator,
            values: list(&r.values),
        }
    }
}

impl<'a> From<&'a LabelSelectorRequirement> for GoRequirement<'a> {
    fn from(r: &'a LabelSelectorRequirement) -> Self {
        Self {
            key: &r.key,
            operator: &r.operator,
            values: list(&r.values),
        }
    }
}

/// `metav1.LabelSelector`: both members `omitempty`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GoLabelSelector<'a> {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    match_labels: &'a BTreeMap<String, String>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    match_expressions: Vec<GoRequirement<'a>>,
}

/// Serializes tolerations as Go writes `[]corev1.Toleration`.
pub(crate) fn tolerations<S: Serializer>(list: &[Toleration], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(list.iter().map(GoToleration::from))
}

/// Serializes an optional node selector as Go writes `*corev1.NodeSelector`.
pub(crate) fn node_selector<S: Serializer>(
    selector: &Option<NodeSelector>,
    s: S,
) -> Result<S::Ok, S::Error> {
    selector
        .as_ref()
        .map(|selector| GoNodeSelector {
            node_selector_terms: selector
                .node_selector_terms
                .iter()
                .map(|term| GoNodeSelectorTerm {
                    match_expressions: list(&term.match_expressions)
                        .iter()
                        .map(GoRequirement::from)
                        .collect(),
                    match_fields: list(&term.match_fields)
                        .iter()
                        .map(GoRequirement::from)
                        .collect(),
                })
                .collect(),
        })
        .serialize(s)
}

/// Serializes an optional label selector as Go writes `*metav1.LabelSelector`.
pub(crate) fn label_selector<S: Serializer>(
    selector: &Option<LabelSelector>,
    s: S,
) -> Result<S::Ok, S::Error> {
    static NO_LABELS: BTreeMap<String, String> = BTreeMap::new();
    selector
        .as_ref()
        .map(|selector| GoLabelSelector {
            match_labels: selector.match_labels.as_ref().unwrap_or(&NO_LABELS),
            match_expressions: list(&selector.match_expressions)
                .iter()
                .map(GoRequirement::from)
                .collect(),
        })
        .serialize(s)
}
