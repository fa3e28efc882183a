//! v1 PersistentVolume: Retain (§6.6).

use crate::k8s::field;
use super::workload::retain_args;
use super::Edit;
use crate::error::Result;
use crate::interpreter::Outcome;

/// Keeps the member's `spec.claimRef` whenever the member has the key
/// (even `null`).
pub(crate) fn retain(edit: Edit<'_>) -> Result<Outcome> {
    let (desired, observed) = retain_args(edit)?;
    let claim = field::get_any(observed, observed, &["spec", "claimRef"])?;
    let mut retained = desired.into_owned();
    if let Some(claim) = claim {
        field::set(&mut retained, &["spec", "claimRef"], claim.clone())?;
    }
    Ok(Outcome::Retained(retained))
}
