//! The observed status of each followed object: accepted or rejected (with
//! the located reason `check` gives), which of its rules answer, which
//! object answers instead when two define the same rule for one kind, and
//! for a shadow how its answers compare. Written to the object as the
//! [`STATUS_ANNOTATION`] (Karmada's CRDs have no status subresource).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use kube::core::GroupVersionKind;

use karmada_interpreter::api::{
    InterpreterOperation, ResourceInterpreterCustomization,
    ResourceInterpreterWebhookConfiguration, RuleWithOperations,
};

/// The annotation holding an object's observed status (JSON of
/// [`ObjectStatus`]), when [`Reporting::annotate`](crate::Reporting) is on.
pub const STATUS_ANNOTATION: &str = "karmada-interpreter.io/status";

/// What this process observes of one followed object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectStatus {
    /// `Accepted` (always), and `Shadow` for a shadow customization.
    pub conditions: Vec<Condition>,
    /// The rules (operations) of this object that answer. A webhook
    /// configuration: its webhooks' names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active_rules: Vec<String>,
    /// The rules this object defines that another object answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overridden: Vec<Overridden>,
    /// A shadow's comparison with the live answers so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow: Option<ShadowSummary>,
}

/// One condition, as Kubernetes writes them (without transition times:
/// the Events carry those).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    /// `Accepted` or `Shadow`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `True` or `False`.
    pub status: String,
    /// `Accepted`, `Rejected`, `ShadowRun`.
    pub reason: String,
    /// For people: the located refusals of a rejected object.
    pub message: String,
}

/// A rule another object answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overridden {
    /// The operation.
    pub rule: String,
    /// The object that answers it (the first by name, as in Karmada).
    pub by: String,
}

/// How a shadow's answers compared with the live ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShadowSummary {
    /// Requests run on both.
    pub compared: u64,
    /// Requests whose answers (or errors) differed.
    pub differing: u64,
    /// The last difference, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_difference: Option<String>,
}

impl ObjectStatus {
    /// The `Accepted` condition, if set.
    pub fn accepted(&self) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.type_ == ACCEPTED)
    }

    /// Whether the `Accepted` condition is `True`.
    pub fn is_accepted(&self) -> bool {
        self.accepted().is_some_and(|c| c.status == "True")
    }
}

const ACCEPTED: &str = "Accepted";
/// The reason of an accepted object `check` finds problems in.
pub(crate) const PROBLEMS: &str = "AcceptedWithProblems";

fn condition(type_: &str, ok: bool, reason: &str, message: String) -> Condition {
    Condition {
        type_: type_.to_owned(),
        status: if ok { "True" } else { "False" }.to_owned(),
        reason: reason.to_owned(),
        message,
    }
}

/// The `Accepted` condition: `rejected` holds the reason of a rejected
/// current version, `serving` whether a version of the object answers,
/// `problems` what `check` finds in a version Karmada runs anyway.
fn accepted(rejected: Option<&String>, serving: bool, problems: Option<&Vec<String>>) -> Condition {
    match rejected {
        None => match problems.filter(|p| !p.is_empty()) {
            None => condition(ACCEPTED, true, "Accepted", "serving".to_owned()),
            Some(p) => condition(
                ACCEPTED,
                true,
                PROBLEMS,
                format!(
                    "serving as Karmada would, and its calls fail: {}",
                    p.join("; ")
                ),
            ),
        },
        Some(reason) => {
            let tail = if serving {
                "; the last accepted version keeps serving"
            } else {
                ""
            };
            condition(ACCEPTED, false, "Rejected", format!("{reason}{tail}"))
        }
    }
}

/// The statuses of every customization: `good` the serving version of each
/// (live and shadow), `rejected` the reason of each rejected current version.
pub(crate) fn customizations(
    good: &BTreeMap<String, ResourceInterpreterCustomization>,
    rejected: &BTreeMap<String, String>,
    problems: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, ObjectStatus> {
    // Who answers each (target, rule): the first live one by name (a
    // dependency rule: every one, as Karmada merges them).
    let mut winner: BTreeMap<(&str, &str, InterpreterOperation), &str> = BTreeMap::new();
    for (name, c) in good.iter().filter(|(_, c)| !c.is_shadow()) {
        for op in InterpreterOperation::ALL {
            if c.script(op).is_some() && op != InterpreterOperation::InterpretDependency {
                let target = (
                    c.spec.target.api_version.as_str(),
                    c.spec.target.kind.as_str(),
                    op,
                );
                winner.entry(target).or_insert(name);
            }
        }
    }
    let names = good.keys().chain(rejected.keys());
    let mut out = BTreeMap::new();
    for name in names {
        let mut status = ObjectStatus {
            conditions: vec![accepted(
                rejected.get(name),
                good.contains_key(name),
                problems.get(name),
            )],
            ..ObjectStatus::default()
        };
        if let Some(c) = good.get(name) {
            for op in InterpreterOperation::ALL {
                if c.script(op).is_none() {
                    continue;
                }
                let target = (
                    c.spec.target.api_version.as_str(),
                    c.spec.target.kind.as_str(),
                    op,
                );
                match winner.get(&target) {
                    Some(w) if *w != name && !c.is_shadow() => status.overridden.push(Overridden {
                        rule: op.to_string(),
                        by: (*w).to_owned(),
                    }),
                    _ => status.active_rules.push(op.to_string()),
                }
            }
            if c.is_shadow() {
                let beside: Vec<String> = status
                    .active_rules
                    .iter()
                    .map(|rule| {
                        let by = InterpreterOperation::ALL
                            .into_iter()
                            .find(|op| op.to_string() == *rule)
                            .and_then(|op| {
                                winner.get(&(
                                    c.spec.target.api_version.as_str(),
                                    c.spec.target.kind.as_str(),
                                    op,
                                ))
                            });
                        match by {
                            Some(w) => format!("{rule} beside {w}"),
                            None => format!("{rule} beside the layers below"),
                        }
                    })
                    .collect();
                status.conditions.push(condition(
                    "Shadow",
                    true,
                    "ShadowRun",
                    format!("does not answer; runs {}", beside.join(", ")),
                ));
            }
        }
        out.insert(name.clone(), status);
    }
    out
}

/// The statuses of every webhook configuration. `answers` names what in
/// the published webhook layer answers a kind and operation
/// (`configuration/webhook`): a rule naming its kinds (no `*`) that another
/// webhook answers is `overridden` by it.
pub(crate) fn webhook_configurations(
    good: &BTreeMap<String, ResourceInterpreterWebhookConfiguration>,
    rejected: &BTreeMap<String, String>,
    answers: &dyn Fn(&GroupVersionKind, InterpreterOperation) -> Option<String>,
) -> BTreeMap<String, ObjectStatus> {
    good.keys()
        .chain(rejected.keys())
        .map(|name| {
            let mut status = ObjectStatus {
                conditions: vec![accepted(rejected.get(name), good.contains_key(name), None)],
                ..ObjectStatus::default()
            };
            for hook in good.get(name).map_or(&[][..], |c| &c.webhooks[..]) {
                status.active_rules.push(hook.name.clone());
                let own = format!("{name}/{}", hook.name);
                for (gvk, op) in hook.rules.iter().flat_map(named) {
                    match answers(&gvk, op) {
                        Some(by) if by != own => status.overridden.push(Overridden {
                            rule: format!(
                                "{} {op} {}/{}/{}",
                                hook.name, gvk.group, gvk.version, gvk.kind
                            ),
                            by,
                        }),
                        _ => {}
                    }
                }
            }
            (name.clone(), status)
        })
        .collect()
}

/// Each (kind, operation) a rule names without wildcards.
fn named(rule: &RuleWithOperations) -> Vec<(GroupVersionKind, InterpreterOperation)> {
    let plain = |v: &Vec<String>| v.iter().all(|s| s != "*");
    if !(plain(&rule.api_groups) && plain(&rule.api_versions) && plain(&rule.kinds)) {
        return Vec::new();
    }
    let ops: Vec<InterpreterOperation> = if rule.operations.iter().any(|o| o == "*") {
        InterpreterOperation::ALL.to_vec()
    } else {
        rule.operations
            .iter()
            .filter_map(|o| o.parse().ok())
            .collect()
    };
    let mut out = Vec::new();
    for group in &rule.api_groups {
        for version in &rule.api_versions {
            for kind in &rule.kinds {
                for op in &ops {
                    out.push((GroupVersionKind::gvk(group, version, kind), *op));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str, shadow: bool, rules: &[&str]) -> ResourceInterpreterCustomization {
        let mut customizations = serde_json::Map::new();
        for r in rules {
            customizations.insert((*r).into(), serde_json::json!({"luaScript": "x"}));
        }
        let mut v = serde_json::json!({
            "apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": name},
            "spec": {"target": {"apiVersion": "example.io/v1", "kind": "W"}, "customizations": customizations}});
        if shadow {
            v["metadata"]["annotations"] =
                serde_json::json!({karmada_interpreter::api::SHADOW_ANNOTATION: "true"});
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn the_first_by_name_answers_and_the_others_say_who_does() {
        let good: BTreeMap<String, _> = [
            c("a", false, &["replicaResource"]),
            c("b", false, &["replicaResource", "healthInterpretation"]),
            c("s", true, &["replicaResource", "retention"]),
        ]
        .into_iter()
        .map(|c| (c.name().to_owned(), c))
        .collect();
        let rejected = BTreeMap::from([("b".to_owned(), "line 3".to_owned())]);
        let s = customizations(&good, &rejected, &BTreeMap::new());
        assert_eq!(s["a"].active_rules, ["InterpretReplica"]);
        assert!(s["a"].is_accepted());
        assert_eq!(s["b"].active_rules, ["InterpretHealth"]);
        assert_eq!(
            s["b"].overridden,
            [Overridden {
                rule: "InterpretReplica".into(),
                by: "a".into()
            }]
        );
        let b = s["b"].accepted().unwrap();
        assert_eq!(
            (b.status.as_str(), b.reason.as_str()),
            ("False", "Rejected")
        );
        assert_eq!(b.message, "line 3; the last accepted version keeps serving");
        assert_eq!(s["s"].conditions[1].type_, "Shadow");
        assert_eq!(
            s["s"].conditions[1].message,
            "does not answer; runs Retain beside the layers below, InterpretReplica beside a"
        );
    }
}
