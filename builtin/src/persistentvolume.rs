//! v1 PersistentVolume: Retain.
//!
//! Status: AggregateStatus. InterpretStatus is the
//! whole-status reflection.

use super::status::{
    aggregate_inputs, decode_item, string, template_status, unchanged, with_status, Aggregated,
};
use super::workload::retain_args;
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{InPlaceRequest, Request};
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema;
use karmada_interpreter_core::k8s::written::Written;
use serde_json::{Map, Value};

/// What Retain reads of the member's object.
pub(crate) const RETAIN_KEEPS: Keep =
    Keep::Members(&[("spec", Keep::Members(&[("claimRef", Keep::All)]))]);

/// Keeps the member's `spec.claimRef` whenever the member has the key
/// (even `null`).
pub(crate) fn retain(edit: InPlaceRequest<'_>) -> Result<Written> {
    let (desired, observed) = retain_args(edit)?;
    let mut written = Written::new();
    let claim = field::get_any(observed, observed, &["spec", "claimRef"])?;
    if let Some(claim) = claim {
        written.set(desired, &["spec", "claimRef"], claim.clone())?;
    }
    Ok(written)
}

/// Phase by precedence: Failed, Pending (also for members without status),
/// Available, Bound, Released.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, &schema::PERSISTENT_VOLUME_STATUS)?;
    let mut phases: Vec<String> = Vec::new();
    for (i, item) in items.unwrap_or(&[]).iter().enumerate() {
        match decode_item(template, i, item, &schema::PERSISTENT_VOLUME_STATUS)? {
            None => phases.push("Pending".to_owned()),
            Some(m) => phases.push(string(&m, "phase").to_owned()),
        }
    }
    let phase = ["Failed", "Pending", "Available", "Bound", "Released"]
        .into_iter()
        .find(|p| phases.iter().any(|q| q == p));
    let mut new = Map::new();
    if let Some(phase) = phase {
        new.insert("phase".into(), Value::from(phase));
    }
    if new == old {
        return unchanged(template, &schema::PERSISTENT_VOLUME);
    }
    with_status(
        template,
        &schema::PERSISTENT_VOLUME,
        new,
        &schema::PERSISTENT_VOLUME_STATUS,
    )
}
