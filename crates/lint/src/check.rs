//! What `karmada-interpreter check` finds in a customization: the document
//! is a `ResourceInterpreterCustomization` with a target, every script
//! compiles and its top-level code defines the entry function. One copy,
//! used by `check`, by `serve` when it loads its `-f` files and by the
//! admission webhook ([`crate::admission`]).

use std::collections::BTreeMap;
use std::path::Path;

use karmada_interpreter_core::api::{InterpreterOperation, ResourceInterpreterCustomization};
use karmada_interpreter_core::profile::Profile;
use karmada_interpreter_declarative::validate::{check_rules, RuleStatus};
use karmada_interpreter_declarative::ScriptPoint;

use crate::{layout_mismatch, Locator};

/// One document's verdict (what `check -o json|yaml` prints for it).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Checked {
    /// The file (or `STDIN`, `cluster`) the document came from.
    pub source: String,
    /// `metadata.name`, or the source when it has none.
    pub name: String,
    /// `target.apiVersion` and `target.kind`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Each operation's status, in canonical order: `UNSET`, `PASS` or
    /// `ERROR: ...` (Karmada's text, as `karmadactl interpret --check`
    /// prints it); written as a map by operation name.
    #[serde(serialize_with = "by_name")]
    pub rules: Vec<(InterpreterOperation, String)>,
    /// What makes the document unusable as a whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// No problem found.
    pub passed: bool,
    /// Each failing rule, for people: at its place in the file (or the
    /// script) when the locator knows it.
    #[serde(skip)]
    pub problems: Vec<String>,
    /// The customization's target differs from the folder of its file
    /// (Karmada's layout).
    #[serde(skip)]
    pub layout_warning: Option<String>,
}

fn by_name<S: serde::Serializer>(
    rules: &[(InterpreterOperation, String)],
    s: S,
) -> Result<S::Ok, S::Error> {
    let map: BTreeMap<String, &String> = rules.iter().map(|(op, v)| (op.to_string(), v)).collect();
    serde::Serialize::serialize(&map, s)
}

impl Checked {
    /// Why the document is refused, for people: the document-level error,
    /// else each failing rule at its place. Empty when it passed.
    pub fn refusals(&self) -> Vec<String> {
        match &self.error {
            Some(e) => vec![e.clone()],
            None => self.problems.clone(),
        }
    }
}

/// Checks one document (a file's, standard input's or the cluster's) that
/// came from `origin`. Script problems are located with `locator`.
pub fn check_document(
    origin: &str,
    value: serde_json::Value,
    locator: &Locator,
    profile: Profile,
) -> Checked {
    let name = value
        .pointer("/metadata/name")
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
        .map_or_else(|| origin.to_owned(), str::to_owned);
    let failed = |error: String| Checked {
        source: origin.to_owned(),
        name: name.clone(),
        error: Some(error),
        ..Checked::default()
    };
    let api_version = value
        .get("apiVersion")
        .and_then(|v| v.as_str())
        .unwrap_or("");
    let kind = value.get("kind").and_then(|v| v.as_str()).unwrap_or("");
    if kind != ResourceInterpreterCustomization::KIND {
        let (group, version) = match api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        return failed(format!(
            "not a ResourceInterpreterCustomization, got {group}/{version}, Kind={kind}"
        ));
    }
    let c: ResourceInterpreterCustomization = match karmada_interpreter_core::load::decode(value) {
        Ok(c) => c,
        Err(e) => return failed(format!("invalid ResourceInterpreterCustomization: {e}")),
    };
    let mut checked = check_customization(origin, &c, locator, profile);
    checked.name = name;
    checked
}

/// Checks a customization read already (see [`check_document`]).
pub fn check_customization(
    origin: &str,
    c: &ResourceInterpreterCustomization,
    locator: &Locator,
    profile: Profile,
) -> Checked {
    let mut checked = Checked {
        source: origin.to_owned(),
        name: if c.name().is_empty() {
            origin.to_owned()
        } else {
            c.name().to_owned()
        },
        layout_warning: layout_mismatch(Path::new(origin), c),
        ..Checked::default()
    };
    if c.spec.target.kind.is_empty() {
        checked.error = Some("target.kind no set".to_owned());
        return checked;
    }
    if c.spec.target.api_version.is_empty() {
        checked.error = Some("target.apiVersion no set".to_owned());
        return checked;
    }
    checked.target = Some(format!(
        "{} {}",
        c.spec.target.api_version, c.spec.target.kind
    ));
    let mut place = |op: InterpreterOperation, message: &str| {
        let at = ScriptPoint::from_message(message);
        checked
            .problems
            .push(locator.describe_message(c.name(), op, message, &at));
    };
    let mut rules = Vec::new();
    // A profile's own rules (componentRevision) only with that profile on.
    for (op, status) in check_rules(c)
        .into_iter()
        .filter(|(op, _)| profile.admit(*op).is_ok())
    {
        let verdict = match status {
            RuleStatus::Unset => "UNSET".to_owned(),
            RuleStatus::Pass => "PASS".to_owned(),
            RuleStatus::MissingFunction => {
                let message = format!("function {} is not defined", op.lua_function());
                place(op, &message);
                format!("ERROR: {message}")
            }
            RuleStatus::Error(m) => {
                place(op, &format!("the script does not compile: {m}"));
                format!("ERROR: {m}")
            }
            RuleStatus::TopLevelError(m) => {
                place(op, &format!("top-level code fails: {m}"));
                format!("ERROR: top-level code fails: {m}")
            }
        };
        rules.push((op, verdict));
    }
    checked.passed = checked.problems.is_empty();
    checked.rules = rules;
    checked
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn customization(script: &str) -> serde_json::Value {
        json!({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": "demo"},
            "spec": {
                "target": {"apiVersion": "example.io/v1", "kind": "Demo"},
                "customizations": {"healthInterpretation": {"luaScript": script}}
            }
        })
    }

    #[test]
    fn a_passing_document_has_a_verdict_per_rule() {
        let c = customization("function InterpretHealth(obj)\n  return true\nend\n");
        let checked = check_document("c.yaml", c, &Locator::new(), Profile::default());
        assert!(checked.passed, "{checked:?}");
        // Every operation of Karmada's profile (not the karmada-next ones).
        let karmadas = InterpreterOperation::ALL
            .iter()
            .filter(|op| !op.is_next())
            .count();
        assert_eq!(checked.rules.len(), karmadas);
        assert!(checked
            .rules
            .contains(&(InterpreterOperation::InterpretHealth, "PASS".to_owned())));
        assert!(checked.refusals().is_empty());
        let json = serde_json::to_value(&checked).unwrap();
        assert_eq!(json["rules"]["InterpretHealth"], "PASS");
        assert_eq!(json["target"], "example.io/v1 Demo");
    }

    #[test]
    fn failures_are_refusals_at_their_place() {
        let c = customization("function InterpretHealth(obj)\n  return obj.x +\nend\n");
        let locator = Locator::for_object(&c);
        let checked = check_document("admission", c, &locator, Profile::default());
        assert!(!checked.passed);
        let refusals = checked.refusals();
        assert_eq!(refusals.len(), 1, "{refusals:?}");
        assert!(
            refusals[0].starts_with(
                "customization \"demo\", rule healthInterpretation (InterpretHealth), script line 3"
            ),
            "{}",
            refusals[0]
        );
        let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
        assert_eq!(
            check_document("s", other, &Locator::new(), Profile::default()).refusals(),
            ["not a ResourceInterpreterCustomization, got /v1, Kind=ConfigMap"]
        );
    }
}
