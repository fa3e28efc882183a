//! apps/v1 StatefulSet: InterpretReplica (§3), ReviseReplica (§5),
//! InterpretHealth (§9), InterpretDependency (§10.1, minus claims created
//! from `volumeClaimTemplates`).

use k8s_openapi::api::apps::v1::{StatefulSetSpec, StatefulSetStatus};
use serde_json::Value;

use super::decode::{decode, generation_of, namespace_of, Object};
use super::podtemplate::{check_pvc_spec_quantities, check_quantities};
use super::workload::{dependencies_of, replicas_of, revise_int_field};
use super::Edit;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// `spec.replicas` (absent → 0) of the pod template's requirements.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let sts = load(object)?;
    let spec = sts.spec.unwrap_or_default();
    replicas_of(
        object,
        "spec.template.spec",
        spec.template.spec.as_ref(),
        spec.replicas.unwrap_or(0),
    )
}

/// Writes `spec.replicas`.
pub(crate) fn revise_replica(edit: Edit<'_>) -> Result<Outcome> {
    revise_int_field(edit, &["spec", "replicas"])
}

/// The Deployment rules on the StatefulSet status fields.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let sts = load(request.object())?;
    let status = sts.status.unwrap_or_default();
    let updated = status.updated_replicas.unwrap_or(0);
    let healthy = status.observed_generation.unwrap_or(0) == generation_of(&sts.metadata)
        && sts
            .spec
            .and_then(|s| s.replicas)
            .is_none_or(|wanted| updated >= wanted)
        && status.available_replicas.unwrap_or(0) >= updated;
    Ok(Outcome::Healthy(healthy))
}

/// Pod-template dependencies, without the claims the StatefulSet creates
/// itself (names of `spec.volumeClaimTemplates[].metadata.name`).
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let sts = load(object)?;
    let spec = sts.spec.unwrap_or_default();
    let mut deps = dependencies_of(
        object,
        namespace_of(&sts.metadata),
        spec.template.spec.as_ref(),
    )?;
    let templates: Vec<&str> = spec
        .volume_claim_templates
        .iter()
        .flatten()
        .filter_map(|t| t.metadata.name.as_deref())
        .collect();
    deps.retain(|d| !(d.kind == "PersistentVolumeClaim" && templates.contains(&d.name.as_str())));
    Ok(Outcome::Dependencies(deps))
}

/// Typed decoding (§1.4), quantities included.
type StatefulSet = Object<StatefulSetSpec, StatefulSetStatus>;

fn load(object: &Value) -> Result<StatefulSet> {
    let typed: StatefulSet = decode(object)?;
    if let Some(spec) = &typed.spec {
        if let Some(pod) = &spec.template.spec {
            check_quantities(object, "spec.template.spec", pod)?;
        }
        for (i, t) in spec.volume_claim_templates.iter().flatten().enumerate() {
            if let Some(s) = &t.spec {
                check_pvc_spec_quantities(
                    object,
                    &format!("spec.volumeClaimTemplates[{i}].spec"),
                    s,
                )?;
            }
        }
    }
    Ok(typed)
}
