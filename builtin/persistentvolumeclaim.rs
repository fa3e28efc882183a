//! v1 PersistentVolumeClaim: Retain (§6.5), InterpretHealth (§9).

use k8s_openapi::api::core::v1::{PersistentVolumeClaimSpec, PersistentVolumeClaimStatus};
use serde_json::Value;

use super::access;
use super::decode::{decode, Object};
use super::podtemplate::check_pvc_spec_quantities;
use super::workload::retain_args;
use super::Edit;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Keeps the member's bound `spec.volumeName` when non-empty.
pub(crate) fn retain(edit: Edit<'_>) -> Result<Outcome> {
    let (desired, observed) = retain_args(edit)?;
    let volume = access::get_str(observed, &["spec", "volumeName"])?;
    let mut retained = desired.into_owned();
    if let Some(volume) = volume.filter(|v| !v.is_empty()) {
        access::set(&mut retained, &["spec", "volumeName"], Value::from(volume))?;
    }
    Ok(Outcome::Retained(retained))
}

/// Healthy iff `status.phase` is `Bound`.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let pvc: Object<PersistentVolumeClaimSpec, PersistentVolumeClaimStatus> = decode(object)?;
    if let Some(spec) = &pvc.spec {
        check_pvc_spec_quantities(object, "spec", spec)?;
    }
    let phase = pvc.status.and_then(|s| s.phase);
    Ok(Outcome::Healthy(phase.as_deref() == Some("Bound")))
}
