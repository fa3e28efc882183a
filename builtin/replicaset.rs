//! apps/v1 ReplicaSet: InterpretReplica (§3), ReviseReplica (§5),
//! InterpretHealth (§9), InterpretDependency (§10.1).

use k8s_openapi::api::apps::v1::{ReplicaSetSpec, ReplicaSetStatus};
use serde_json::Value;

use super::decode::{decode, generation_of, namespace_of, Object};
use super::podtemplate::check_quantities;
use super::workload::{dependencies_of, replicas_of, revise_int_field};
use super::Edit;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// `spec.replicas` (absent → 0) of the pod template's requirements.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let rs: ReplicaSet = load(object)?;
    let spec = rs.spec.unwrap_or_default();
    let template = spec.template.as_ref().and_then(|t| t.spec.as_ref());
    replicas_of(
        object,
        "spec.template.spec",
        template,
        spec.replicas.unwrap_or(0),
    )
}

/// Writes `spec.replicas`.
pub(crate) fn revise_replica(edit: Edit<'_>) -> Result<Outcome> {
    revise_int_field(edit, &["spec", "replicas"])
}

/// Observed generation current and enough available replicas.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let rs: ReplicaSet = load(request.object())?;
    let status = rs.status.unwrap_or_default();
    let healthy = status.observed_generation.unwrap_or(0) == generation_of(&rs.metadata)
        && rs
            .spec
            .and_then(|s| s.replicas)
            .is_none_or(|wanted| status.available_replicas.unwrap_or(0) >= wanted);
    Ok(Outcome::Healthy(healthy))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let rs: ReplicaSet = load(object)?;
    let spec = rs.spec.unwrap_or_default();
    let template = spec.template.as_ref().and_then(|t| t.spec.as_ref());
    let deps = dependencies_of(object, namespace_of(&rs.metadata), template)?;
    Ok(Outcome::Dependencies(deps))
}

/// Typed decoding (§1.4), quantities included.
type ReplicaSet = Object<ReplicaSetSpec, ReplicaSetStatus>;

fn load(object: &Value) -> Result<ReplicaSet> {
    let typed: ReplicaSet = decode(object)?;
    if let Some(spec) = typed
        .spec
        .as_ref()
        .and_then(|s| s.template.as_ref()?.spec.as_ref())
    {
        check_quantities(object, "spec.template.spec", spec)?;
    }
    Ok(typed)
}
