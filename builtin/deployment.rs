//! apps/v1 Deployment: InterpretReplica (§3), ReviseReplica (§5), Retain
//! (§6.1), InterpretHealth (§9), InterpretDependency (§10.1).

use k8s_openapi::api::apps::v1::{DeploymentSpec, DeploymentStatus};
use serde_json::Value;

use super::access;
use super::decode::{decode, generation_of, namespace_of, Object};
use super::podtemplate::check_quantities;
use super::workload::{dependencies_of, replicas_of, retain_args, revise_int_field};
use super::Edit;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Opt-in label: keep the member's replica count.
pub(crate) const RETAIN_REPLICAS_LABEL: &str = "resourcetemplate.karmada.io/retain-replicas";

/// `spec.replicas` (absent → 0) of the pod template's requirements.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let d: Deployment = load(object)?;
    let spec = d.spec.unwrap_or_default();
    let replicas = spec.replicas.unwrap_or(0);
    replicas_of(
        object,
        "spec.template.spec",
        spec.template.spec.as_ref(),
        replicas,
    )
}

/// Writes `spec.replicas`.
pub(crate) fn revise_replica(edit: Edit<'_>) -> Result<Outcome> {
    revise_int_field(edit, &["spec", "replicas"])
}

/// Keeps the member's `spec.replicas` when the desired object carries the
/// retain-replicas label with value `"true"`.
pub(crate) fn retain(edit: Edit<'_>) -> Result<Outcome> {
    let (desired, observed) = retain_args(edit)?;
    let labels = access::get_string_map(&desired, &["metadata", "labels"])?;
    let opted_in = labels
        .and_then(|l| l.get(RETAIN_REPLICAS_LABEL))
        .and_then(Value::as_str)
        == Some("true");
    let mut retained = desired.into_owned();
    if opted_in {
        let replicas = access::get_int(observed, &["spec", "replicas"])?.ok_or_else(|| {
            access::invalid(
                observed,
                "spec.replicas",
                "absent in the member object; cannot retain replicas",
            )
        })?;
        access::set(&mut retained, &["spec", "replicas"], Value::from(replicas))?;
    }
    Ok(Outcome::Retained(retained))
}

/// Observed generation current, enough updated replicas, all updated available.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let d: Deployment = load(request.object())?;
    let status = d.status.unwrap_or_default();
    let generation = generation_of(&d.metadata);
    let updated = status.updated_replicas.unwrap_or(0);
    let healthy = status.observed_generation.unwrap_or(0) == generation
        && d.spec
            .and_then(|s| s.replicas)
            .is_none_or(|wanted| updated >= wanted)
        && status.available_replicas.unwrap_or(0) >= updated;
    Ok(Outcome::Healthy(healthy))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let d: Deployment = load(object)?;
    let spec = d.spec.unwrap_or_default();
    let deps = dependencies_of(
        object,
        namespace_of(&d.metadata),
        spec.template.spec.as_ref(),
    )?;
    Ok(Outcome::Dependencies(deps))
}

/// Typed decoding (§1.4), quantities included.
type Deployment = Object<DeploymentSpec, DeploymentStatus>;

fn load(object: &Value) -> Result<Deployment> {
    let typed: Deployment = decode(object)?;
    if let Some(spec) = typed.spec.as_ref().and_then(|s| s.template.spec.as_ref()) {
        check_quantities(object, "spec.template.spec", spec)?;
    }
    Ok(typed)
}
