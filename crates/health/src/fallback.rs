//! An honest generic health, opt-in: kstatus-style rules for kinds no
//! other layer interprets.
//!
//! Karmada calls a kind without a health interpreter Healthy, silently.
//! This layer (last in the chain, off by default) answers `InterpretHealth`
//! for every kind from the generic rules of kstatus (the status library of
//! `sigs.k8s.io/cli-utils`, used by Flux), in kstatus's order:
//!
//! 1. `metadata.deletionTimestamp` set: *Terminating*, unhealthy;
//! 2. `status.observedGeneration` present and different from
//!    `metadata.generation`: *InProgress*, unhealthy (the controller has not
//!    seen the latest spec);
//! 3. a `Reconciling` condition `True`: *InProgress*, unhealthy; a `Stalled`
//!    condition `True`: *Failed*, unhealthy (first such condition wins);
//! 4. a `Ready` condition: `True` is *Current*, healthy; `False` or
//!    `Unknown` is *InProgress*, unhealthy;
//! 5. none of these: *Current*, healthy — kstatus's own assumption, made
//!    explicit: the verdict says no generic signal was found.
//!
//! Every verdict ([`Verdict`]) carries its kstatus status and the reason.

use serde_json::Value;

use karmada_interpreter_core::api::InterpreterOperation;
use karmada_interpreter_core::interpreter::{
    CatalogEntry, Layer, LayerKind, Outcome, Request, Route, Source, TypeRef,
};
use karmada_interpreter_core::k8s::field::type_phrase;
use karmada_interpreter_core::{Error, Result};

use crate::FALLBACK;

/// The source name the fallback's answers carry.
pub const SOURCE_NAME: &str = "kstatus generic rules";

/// kstatus's status words the rules give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Status {
    /// Deletion in progress.
    Terminating,
    /// Not yet reconciled.
    InProgress,
    /// The controller gave up (`Stalled`).
    Failed,
    /// Reconciled (or no generic signal at all).
    Current,
}

impl Status {
    /// kstatus' word for the status.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Terminating => "Terminating",
            Status::InProgress => "InProgress",
            Status::Failed => "Failed",
            Status::Current => "Current",
        }
    }
}

/// The fallback's verdict on one object: health, kstatus status, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Verdict {
    /// Karmada's boolean: only `Current` is healthy.
    pub healthy: bool,
    /// kstatus's status.
    pub status: Status,
    /// Which rule decided, and with what.
    pub reason: String,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({:?}): {}",
            if self.healthy { "healthy" } else { "unhealthy" },
            self.status,
            self.reason
        )
    }
}

fn verdict(status: Status, reason: String) -> Verdict {
    Verdict {
        // The one table (`crate::meaning`): only Current is healthy.
        healthy: crate::meaning::from_kstatus(status.as_str()) == Some(true),
        status,
        reason,
    }
}

/// `field` of `object` as an integer; a present field of another type is an
/// error naming it (kstatus fails such an object too).
fn int_field(object: &Value, parent: &str, field: &str) -> Result<Option<i64>> {
    let Some(v) = object.get(parent).and_then(|p| p.get(field)) else {
        return Ok(None);
    };
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Ok(Some(i)),
            None => match n.as_f64() {
                Some(f) if f.fract() == 0.0 => Ok(Some(f as i64)),
                _ => Err(invalid(
                    object,
                    &format!("{parent}.{field}"),
                    "not an integer",
                )),
            },
        },
        other => Err(invalid(
            object,
            &format!("{parent}.{field}"),
            &format!("expected an integer, got {}", type_phrase(other)),
        )),
    }
}

fn invalid(object: &Value, field: &str, reason: &str) -> Error {
    Error::InvalidField {
        object: karmada_interpreter_core::interpreter::describe(object),
        field: field.to_owned(),
        reason: reason.to_owned(),
    }
}

fn text<'a>(condition: &'a Value, key: &str) -> &'a str {
    condition.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Applies the rules (see the module documentation) to `object`.
pub fn evaluate(object: &Value) -> Result<Verdict> {
    let deleting = object
        .get("metadata")
        .and_then(|m| m.get("deletionTimestamp"))
        .and_then(Value::as_str)
        .is_some_and(|t| !t.is_empty());
    if deleting {
        return Ok(verdict(
            Status::Terminating,
            "deletion in progress (metadata.deletionTimestamp is set)".into(),
        ));
    }
    if let (Some(generation), Some(observed)) = (
        int_field(object, "metadata", "generation")?,
        int_field(object, "status", "observedGeneration")?,
    ) {
        if generation != observed {
            return Ok(verdict(
                Status::InProgress,
                format!(
                    "metadata.generation is {generation}, but status.observedGeneration is {observed}: the latest spec is not observed yet"
                ),
            ));
        }
    }
    let conditions = match object.get("status").and_then(|s| s.get("conditions")) {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(list)) => list.as_slice(),
        Some(other) => {
            return Err(invalid(
                object,
                "status.conditions",
                &format!("expected a list, got {}", type_phrase(other)),
            ))
        }
    };
    let describe_condition = |c: &Value| {
        let (reason, message) = (text(c, "reason"), text(c, "message"));
        match (reason.is_empty(), message.is_empty()) {
            (true, true) => String::new(),
            (false, true) => format!(" (reason {reason})"),
            (true, false) => format!(": {message}"),
            (false, false) => format!(" (reason {reason}): {message}"),
        }
    };
    for c in conditions {
        match (text(c, "type"), text(c, "status")) {
            ("Reconciling", "True") => {
                return Ok(verdict(
                    Status::InProgress,
                    format!("condition Reconciling is True{}", describe_condition(c)),
                ))
            }
            ("Stalled", "True") => {
                return Ok(verdict(
                    Status::Failed,
                    format!("condition Stalled is True{}", describe_condition(c)),
                ))
            }
            _ => {}
        }
    }
    for c in conditions {
        match (text(c, "type"), text(c, "status")) {
            ("Ready", "True") => {
                return Ok(verdict(
                    Status::Current,
                    format!("condition Ready is True{}", describe_condition(c)),
                ))
            }
            ("Ready", status @ ("False" | "Unknown")) => {
                return Ok(verdict(
                    Status::InProgress,
                    format!("condition Ready is {status}{}", describe_condition(c)),
                ))
            }
            _ => {}
        }
    }
    Ok(verdict(
        Status::Current,
        "no generic signal (no deletion, generation observed or not reported, no Ready, Reconciling or Stalled condition): assumed current, as kstatus does".into(),
    ))
}

/// The fallback layer: `InterpretHealth` for every kind.
#[derive(Debug, Clone, Copy, Default)]
pub struct HealthFallback;

impl Layer for HealthFallback {
    fn kind(&self) -> LayerKind {
        FALLBACK
    }

    /// Every kind's `InterpretHealth`: nothing to look up (the route has no
    /// entry of its own).
    fn route(&self, _: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
        (operation == InterpreterOperation::InterpretHealth).then(|| {
            Route::from(Source {
                layer: FALLBACK,
                name: SOURCE_NAME.into(),
            })
        })
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        match request {
            Request::InterpretHealth { object } => {
                evaluate(object).map(|v| Outcome::Healthy(v.healthy))
            }
            other => Err(Error::not_served(other.object(), other.operation())),
        }
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        vec![CatalogEntry {
            api_version: "*".into(),
            kind: "*".into(),
            operation: InterpreterOperation::InterpretHealth,
            source: Source {
                layer: FALLBACK,
                name: SOURCE_NAME.into(),
            },
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    #[rstest]
    #[case::deleting(json!({"metadata": {"deletionTimestamp": "2024-01-01T00:00:00Z", "generation": 2},
        "status": {"observedGeneration": 1}}), Status::Terminating)]
    #[case::generation_behind(json!({"metadata": {"generation": 3},
        "status": {"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "True"}]}}), Status::InProgress)]
    #[case::generation_without_observed(json!({"metadata": {"generation": 3}}), Status::Current)]
    #[case::stalled_before_ready(json!({"status": {"conditions": [
        {"type": "Ready", "status": "True"}, {"type": "Stalled", "status": "True", "reason": "X"}]}}), Status::Failed)]
    #[case::reconciling(json!({"status": {"conditions": [{"type": "Reconciling", "status": "True"}]}}), Status::InProgress)]
    #[case::reconciling_false(json!({"status": {"conditions": [{"type": "Reconciling", "status": "False"}]}}), Status::Current)]
    #[case::ready_false(json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}}), Status::InProgress)]
    #[case::ready_unknown(json!({"status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}}), Status::InProgress)]
    #[case::ready_true(json!({"metadata": {"generation": 2}, "status": {"observedGeneration": 2,
        "conditions": [{"type": "Ready", "status": "True"}]}}), Status::Current)]
    fn rules_follow_kstatus(#[case] object: Value, #[case] expected: Status) {
        let v = evaluate(&object).unwrap();
        assert_eq!(v.status, expected, "{v}");
        assert_eq!(v.healthy, expected == Status::Current);
    }

    #[test]
    fn malformed_fields_are_typed_errors_naming_the_field() {
        let e = evaluate(
            &json!({"kind": "W", "metadata": {"name": "w", "generation": "2"},
                                 "status": {"observedGeneration": 1}}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("metadata.generation"), "{e}");
        let e = evaluate(&json!({"kind": "W", "status": {"conditions": {}}})).unwrap_err();
        assert!(e.to_string().contains("status.conditions"), "{e}");
    }
}
