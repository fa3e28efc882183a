//! apps/v1 DaemonSet: InterpretHealth (§9), InterpretDependency (§10.1).

use k8s_openapi::api::apps::v1::{DaemonSetSpec, DaemonSetStatus};
use serde_json::Value;

use super::decode::{decode, generation_of, namespace_of, Object};
use super::podtemplate::check_quantities;
use super::workload::dependencies_of;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Observed generation current, every desired node updated, every updated
/// pod available.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let ds = load(request.object())?;
    let status = ds.status.unwrap_or_default();
    let updated = status.updated_number_scheduled.unwrap_or(0);
    let healthy = status.observed_generation.unwrap_or(0) == generation_of(&ds.metadata)
        && updated >= status.desired_number_scheduled
        && status.number_available.unwrap_or(0) >= updated;
    Ok(Outcome::Healthy(healthy))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let ds = load(object)?;
    let spec = ds.spec.unwrap_or_default();
    let deps = dependencies_of(
        object,
        namespace_of(&ds.metadata),
        spec.template.spec.as_ref(),
    )?;
    Ok(Outcome::Dependencies(deps))
}

/// Typed decoding (§1.4), quantities included.
type DaemonSet = Object<DaemonSetSpec, DaemonSetStatus>;

fn load(object: &Value) -> Result<DaemonSet> {
    let typed: DaemonSet = decode(object)?;
    if let Some(pod) = typed.spec.as_ref().and_then(|s| s.template.spec.as_ref()) {
        check_quantities(object, "spec.template.spec", pod)?;
    }
    Ok(typed)
}
