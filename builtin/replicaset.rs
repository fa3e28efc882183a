//! apps/v1 ReplicaSet: InterpretReplica (§3), ReviseReplica (§5),
//! InterpretHealth (§9), InterpretDependency (§10.1).

use crate::k8s::normalize::schema::REPLICA_SET;
use super::workload::{check, dependencies_of, revise_int_field, spec_replicas};
use crate::k8s::field::{generation, get, int};
use super::Edit;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

const POD_SPEC: [&str; 3] = ["spec", "template", "spec"];

/// `spec.replicas` (absent → 0) of the pod template's requirements.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    spec_replicas(request, &REPLICA_SET)
}

/// Writes `spec.replicas`.
pub(crate) fn revise_replica(edit: Edit<'_>) -> Result<Outcome> {
    revise_int_field(edit, &["spec", "replicas"])
}

/// Observed generation current and enough available replicas.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let rs = request.object();
    check(rs, &REPLICA_SET)?;
    let available = int(rs, &["status", "availableReplicas"]).unwrap_or(0);
    let healthy = int(rs, &["status", "observedGeneration"]).unwrap_or(0) == generation(rs)
        && int(rs, &["spec", "replicas"]).is_none_or(|wanted| available >= wanted);
    Ok(Outcome::Healthy(healthy))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &REPLICA_SET)?;
    let deps = dependencies_of(object, get(object, &POD_SPEC))?;
    Ok(Outcome::Dependencies(deps))
}
