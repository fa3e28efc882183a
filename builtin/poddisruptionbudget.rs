//! policy/v1 PodDisruptionBudget: InterpretHealth (§9).

use crate::k8s::normalize::schema::POD_DISRUPTION_BUDGET;
use super::workload::check;
use crate::k8s::field::int;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Healthy iff `currentHealthy >= desiredHealthy`.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let pdb = request.object();
    check(pdb, &POD_DISRUPTION_BUDGET)?;
    let status = |field: &str| int(pdb, &["status", field]).unwrap_or(0);
    let healthy = status("currentHealthy") >= status("desiredHealthy");
    Ok(Outcome::Healthy(healthy))
}
