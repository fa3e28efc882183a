//! policy/v1 PodDisruptionBudget: InterpretHealth (§9).

use k8s_openapi::api::policy::v1::{PodDisruptionBudgetSpec, PodDisruptionBudgetStatus};

use super::decode::{decode, Object};
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Healthy iff `currentHealthy >= desiredHealthy`.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let pdb: Object<PodDisruptionBudgetSpec, PodDisruptionBudgetStatus> = decode(request.object())?;
    let status = pdb.status.unwrap_or_default();
    let healthy = status.current_healthy.unwrap_or(0) >= status.desired_healthy.unwrap_or(0);
    Ok(Outcome::Healthy(healthy))
}
