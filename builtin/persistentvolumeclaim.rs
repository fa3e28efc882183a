//! v1 PersistentVolumeClaim: Retain (§6.5), InterpretHealth (§9).

use serde_json::Value;

use crate::k8s::field;
use crate::k8s::normalize::schema::PERSISTENT_VOLUME_CLAIM;
use super::workload::{check, retain_args};
use crate::k8s::field::get;
use super::Edit;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Keeps the member's bound `spec.volumeName` when non-empty.
pub(crate) fn retain(edit: Edit<'_>) -> Result<Outcome> {
    let (desired, observed) = retain_args(edit)?;
    let volume = field::get_str(observed, &["spec", "volumeName"])?;
    let mut retained = desired.into_owned();
    if let Some(volume) = volume.filter(|v| !v.is_empty()) {
        field::set(&mut retained, &["spec", "volumeName"], Value::from(volume))?;
    }
    Ok(Outcome::Retained(retained))
}

/// Healthy iff `status.phase` is `Bound`.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &PERSISTENT_VOLUME_CLAIM)?;
    let phase = get(object, &["status", "phase"]).and_then(Value::as_str);
    Ok(Outcome::Healthy(phase == Some("Bound")))
}
