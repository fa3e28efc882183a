//! v1 Pod: InterpretReplica (§3, always one replica), InterpretHealth (§9),
//! InterpretDependency (§10.1).

use k8s_openapi::api::core::v1::{PodSpec, PodStatus};
use serde_json::Value;

use super::decode::{decode, namespace_of, Object};
use super::podtemplate::check_quantities;
use super::workload::{dependencies_of, replicas_of};
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// One replica with the requirements of the Pod's own spec.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let pod = load(object)?;
    replicas_of(object, "spec", pod.spec.as_ref(), 1)
}

/// Succeeded, or Running with the first `Ready` condition `"True"`.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let pod = load(request.object())?;
    let status = pod.status.unwrap_or_default();
    let healthy = match status.phase.as_deref() {
        Some("Succeeded") => true,
        Some("Running") => status
            .conditions
            .iter()
            .flatten()
            .find(|c| c.type_ == "Ready")
            .is_some_and(|c| c.status == "True"),
        _ => false,
    };
    Ok(Outcome::Healthy(healthy))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the Pod's spec.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let pod = load(object)?;
    let deps = dependencies_of(object, namespace_of(&pod.metadata), pod.spec.as_ref())?;
    Ok(Outcome::Dependencies(deps))
}

/// Typed decoding (§1.4), quantities of the spec included.
type Pod = Object<PodSpec, PodStatus>;

fn load(object: &Value) -> Result<Pod> {
    let typed: Pod = decode(object)?;
    if let Some(spec) = &typed.spec {
        check_quantities(object, "spec", spec)?;
    }
    Ok(typed)
}
