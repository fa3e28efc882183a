//! apps/v1 DaemonSet: InterpretHealth (§9), InterpretDependency (§10.1).

use crate::k8s::normalize::schema::DAEMON_SET;
use super::workload::{check, dependencies_of};
use crate::k8s::field::{generation, get, int};
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Observed generation current, every desired node updated, every updated
/// pod available.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let ds = request.object();
    check(ds, &DAEMON_SET)?;
    let status = |field: &str| int(ds, &["status", field]).unwrap_or(0);
    let updated = status("updatedNumberScheduled");
    let healthy = status("observedGeneration") == generation(ds)
        && updated >= status("desiredNumberScheduled")
        && status("numberAvailable") >= updated;
    Ok(Outcome::Healthy(healthy))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &DAEMON_SET)?;
    let deps = dependencies_of(object, get(object, &["spec", "template", "spec"]))?;
    Ok(Outcome::Dependencies(deps))
}
