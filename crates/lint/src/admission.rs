//! The verdict of the validating admission webhook on a
//! `ResourceInterpreterCustomization` as the API server sends it (JSON, no
//! file): refused for what `check` refuses ([`crate::check`]), for keys
//! Karmada ignores (a misspelled rule never runs) and for a rule another
//! known customization of the same target defines already (Karmada would
//! answer with one of them only); `lint`'s other findings are warnings.
//! Places are script lines and columns.

use karmada_interpreter_core::api::ResourceInterpreterCustomization;
use karmada_interpreter_declarative::validate::conflict;
use karmada_interpreter_declarative::ScriptPoint;

use crate::check::check_document;
use crate::{sites, Linter, Locator, Rule};

/// What the webhook answers about one object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Review {
    /// Why it is refused (empty: allowed), one line each.
    pub refusals: Vec<String>,
    /// What `lint` finds beside (admission `warnings`).
    pub warnings: Vec<String>,
}

impl Review {
    /// Whether the object is allowed.
    pub fn allowed(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// Reviews `object` (a `ResourceInterpreterCustomization` as JSON) against
/// the customizations `known` (those the server serves: from its files or
/// the cluster it follows; one of the same name is the object's older
/// version and is left out).
pub fn review_customization(
    object: &serde_json::Value,
    known: &[ResourceInterpreterCustomization],
    linter: &Linter,
) -> Review {
    let locator = Locator::for_object(object);
    let checked = check_document(
        "admission",
        object.clone(),
        &locator,
        karmada_interpreter_core::profile::Profile::default(),
    );
    let mut review = Review {
        refusals: checked.refusals(),
        ..Review::default()
    };
    if checked.error.is_some() {
        return review;
    }
    let name = &checked.name;
    // The document level: keys Karmada ignores.
    let text = serde_json::to_string_pretty(object).unwrap_or_default();
    let mut findings = Vec::new();
    let scripts = sites(&text, &mut findings);
    for f in findings.into_iter().filter(|f| linter.reports(f.rule)) {
        let line = format!("customization {name:?}: {}", f.message);
        if f.rule == Rule::UnknownKey {
            review.refusals.push(line);
        } else {
            review.warnings.push(line);
        }
    }
    // A shadow answers nothing, so it conflicts with no live customization
    // (and none with it).
    let live: Vec<ResourceInterpreterCustomization> =
        known.iter().filter(|k| !k.is_shadow()).cloned().collect();
    if let Some(c) = serde_json::from_value::<ResourceInterpreterCustomization>(object.clone())
        .ok()
        .filter(|c| !c.is_shadow())
    {
        if let Some(denial) = conflict(&c, &live, linter.composes()) {
            review.refusals.push(format!(
                "customization {name:?}: {denial} (both target {} {}; Karmada would run one of them only)",
                c.spec.target.api_version, c.spec.target.kind
            ));
        }
    }
    // The script level: lint's findings (the ones `check` refuses already
    // left out), at their script line.
    for site in &scripts {
        for f in linter.lint_script(&site.text, site.operation) {
            if matches!(f.rule, Rule::Syntax | Rule::MissingEntry) {
                continue;
            }
            let at = ScriptPoint {
                line: Some(f.line),
                column: Some(f.column),
                deadline: None,
            };
            let place = locator
                .locate(&site.customization, site.operation, &at)
                .map_or_else(|| format!("customization {name:?}"), |p| p.to_string());
            review.warnings.push(format!(
                "{place}: {}[{}]: {}",
                f.severity, f.rule, f.message
            ));
        }
    }
    review
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn customization(name: &str, rules: serde_json::Value) -> serde_json::Value {
        json!({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": name},
            "spec": {
                "target": {"apiVersion": "example.io/v1", "kind": "Demo"},
                "customizations": rules
            }
        })
    }

    fn health(script: &str) -> serde_json::Value {
        json!({"healthInterpretation": {"luaScript": script}})
    }

    #[test]
    fn refusals_and_warnings() {
        let linter = Linter::new().unwrap();
        // Valid, with a lint finding: allowed with a warning at its script line.
        let ok = customization(
            "ok",
            health("function InterpretHealth(obj)\n  return obj.status.ready == true\nend\n"),
        );
        let review = review_customization(&ok, &[], &linter);
        assert!(review.allowed(), "{review:?}");
        assert_eq!(review.warnings.len(), 1, "{review:?}");
        assert!(
            review.warnings[0].starts_with("customization \"ok\", rule healthInterpretation (InterpretHealth), script line 2, column 10: warning[unguarded-field]"),
            "{}", review.warnings[0]
        );
        // A misspelled rule key.
        let typo = customization(
            "typo",
            json!({"replicas": {"luaScript": "function GetReplicas(o) return 1, nil end"}}),
        );
        let review = review_customization(&typo, &[], &linter);
        assert_eq!(review.refusals.len(), 1, "{review:?}");
        assert!(
            review.refusals[0].contains("unknown key `replicas` in spec.customizations")
                && review.refusals[0].contains("did you mean `replicaResource`"),
            "{}",
            review.refusals[0]
        );
        // A missing entry function.
        let missing = customization("missing", health("function Health(obj) return true end"));
        let review = review_customization(&missing, &[], &linter);
        assert_eq!(
            review.refusals,
            ["customization \"missing\", rule healthInterpretation (InterpretHealth), script line 1, column 1: function InterpretHealth is not defined"]
        );
        // A second customization for the same target and rule.
        let known: ResourceInterpreterCustomization = serde_json::from_value(customization(
            "first",
            health("function InterpretHealth(obj) return true end"),
        ))
        .unwrap();
        let second = customization(
            "second",
            health("function InterpretHealth(obj) return false end"),
        );
        let review = review_customization(&second, std::slice::from_ref(&known), &linter);
        assert_eq!(review.refusals.len(), 1, "{review:?}");
        assert!(review.refusals[0].contains("ResourceInterpreterCustomization(first)"));
        // Its own older version is no conflict.
        let again = customization(
            "first",
            health("function InterpretHealth(obj) return false end"),
        );
        assert!(review_customization(&again, std::slice::from_ref(&known), &linter).allowed());
        // A shadow of the same rule is no conflict either way.
        let mut shadow = second.clone();
        shadow["metadata"]["annotations"] =
            json!({karmada_interpreter_core::api::SHADOW_ANNOTATION: "true"});
        assert!(review_customization(&shadow, std::slice::from_ref(&known), &linter).allowed());
        let shadow: ResourceInterpreterCustomization = serde_json::from_value(shadow).unwrap();
        assert!(review_customization(&second, &[shadow], &linter).allowed());
    }

    /// With composition on, a second customization's editing rule for a
    /// target composes (allowed); a second reading rule still conflicts.
    #[test]
    fn composition_allows_a_second_editing_rule_only() {
        let retain = |name: &str| {
            customization(
                name,
                json!({"retention": {"luaScript": "local kube = require('kube')\nfunction Retain(desiredObj, observedObj)\n  return kube.below()\nend\n"}}),
            )
        };
        let known: ResourceInterpreterCustomization =
            serde_json::from_value(retain("first")).unwrap();
        let karmada = Linter::new().unwrap();
        let review =
            review_customization(&retain("second"), std::slice::from_ref(&known), &karmada);
        assert_eq!(review.refusals.len(), 1, "{review:?}");
        assert!(
            review
                .warnings
                .iter()
                .any(|w| w.contains("exists only with composition on")),
            "{review:?}"
        );
        let composing = Linter::new().unwrap().with_composition(true);
        let review =
            review_customization(&retain("second"), std::slice::from_ref(&known), &composing);
        assert!(review.allowed() && review.warnings.is_empty(), "{review:?}");
        // A reading rule: only the first in order would answer.
        let known: ResourceInterpreterCustomization = serde_json::from_value(customization(
            "first",
            health("function InterpretHealth(obj) return true end"),
        ))
        .unwrap();
        let second = customization(
            "second",
            health("function InterpretHealth(obj) return false end"),
        );
        assert!(!review_customization(&second, &[known], &composing).allowed());
    }
}
