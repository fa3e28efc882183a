//! v1 PersistentVolumeClaim: Retain, InterpretHealth.
//!
//! Status: AggregateStatus. InterpretStatus is the
//! whole-status reflection.

use super::status::{
    aggregate_inputs, decode_item, string, template_status, unchanged, with_status, Aggregated,
};
use super::workload::{check, retain_args};
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{InPlaceRequest, Outcome, Request};
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::field::get;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema;
use karmada_interpreter_core::k8s::normalize::schema::PERSISTENT_VOLUME_CLAIM;
use karmada_interpreter_core::k8s::written::Written;
use serde_json::{Map, Value};

/// What Retain reads of the member's object.
pub(crate) const RETAIN_KEEPS: Keep =
    Keep::Members(&[("spec", Keep::Members(&[("volumeName", Keep::All)]))]);

/// Keeps the member's bound `spec.volumeName` when non-empty.
pub(crate) fn retain(edit: InPlaceRequest<'_>) -> Result<Written> {
    let (desired, observed) = retain_args(edit)?;
    let mut written = Written::new();
    let volume = field::get_str(observed, &["spec", "volumeName"])?;
    if let Some(volume) = volume.filter(|v| !v.is_empty()) {
        written.set(desired, &["spec", "volumeName"], Value::from(volume))?;
    }
    Ok(written)
}

/// What InterpretHealth reads.
const HEALTH_READS: Keep = Keep::Members(&[("status", Keep::Members(&[("phase", Keep::All)]))]);

/// Healthy iff `status.phase` is `Bound`.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &PERSISTENT_VOLUME_CLAIM, HEALTH_READS)?;
    let phase = get(object, &["status", "phase"]).and_then(Value::as_str);
    Ok(Outcome::Healthy(phase == Some("Bound")))
}

/// `Bound` unless a member reports otherwise: `Lost` wins at once, else the
/// last non-Bound phase (Karmada's rule, even an empty one).
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, &schema::PERSISTENT_VOLUME_CLAIM_STATUS)?;
    let mut phase = "Bound".to_owned();
    for (i, item) in items.unwrap_or(&[]).iter().enumerate() {
        let Some(m) = decode_item(template, i, item, &schema::PERSISTENT_VOLUME_CLAIM_STATUS)?
        else {
            continue;
        };
        let p = string(&m, "phase");
        if p == "Lost" {
            phase = p.to_owned();
            break;
        }
        if p != "Bound" {
            phase = p.to_owned();
        }
    }
    let mut new = Map::new();
    if !phase.is_empty() {
        new.insert("phase".into(), Value::from(phase));
    }
    if new == old {
        return unchanged(template, &schema::PERSISTENT_VOLUME_CLAIM);
    }
    with_status(
        template,
        &schema::PERSISTENT_VOLUME_CLAIM,
        new,
        &schema::PERSISTENT_VOLUME_CLAIM_STATUS,
    )
}
