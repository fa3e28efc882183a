//! v1 PersistentVolume: Retain (§6.6).

use super::access;
use super::workload::retain_args;
use super::Edit;
use crate::error::Result;
use crate::interpreter::Outcome;

/// Keeps the member's `spec.claimRef` whenever the member has the key
/// (even `null`).
pub(crate) fn retain(edit: Edit<'_>) -> Result<Outcome> {
    let (desired, observed) = retain_args(edit)?;
    let claim = access::get_any(observed, observed, &["spec", "claimRef"])?;
    let mut retained = desired.into_owned();
    if let Some(claim) = claim {
        access::set(&mut retained, &["spec", "claimRef"], claim.clone())?;
    }
    Ok(Outcome::Retained(retained))
}
