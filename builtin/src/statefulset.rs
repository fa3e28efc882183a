//! apps/v1 StatefulSet: InterpretReplica, ReviseReplica,
//! InterpretHealth, InterpretDependency (minus claims created
//! from `volumeClaimTemplates`).
//!
//! Status: AggregateStatus and InterpretStatus.

use super::deployment::HEALTH_READS;
use super::status::{aggregate_workload, reflect_workload, Aggregated, Workload};
use super::workload::{
    check, dependencies_of, revise_int_field, spec_replicas, NAMESPACE, TEMPLATE_DEPENDENCIES,
};
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{InPlaceRequest, Outcome, Request};
use karmada_interpreter_core::k8s::field::{generation, get, int};
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema;
use karmada_interpreter_core::k8s::normalize::schema::STATEFUL_SET;
use karmada_interpreter_core::k8s::written::Written;
use serde_json::Value;

/// What InterpretDependency reads: the pod template and the claim
/// templates' names.
const DEPENDENCY_READS: Keep = Keep::Members(&[
    NAMESPACE,
    (
        "spec",
        Keep::Members(&[
            ("template", TEMPLATE_DEPENDENCIES),
            (
                "volumeClaimTemplates",
                Keep::Members(&[("metadata", Keep::Members(&[("name", Keep::All)]))]),
            ),
        ]),
    ),
]);

const POD_SPEC: [&str; 3] = ["spec", "template", "spec"];

/// `spec.replicas` (absent → 0) of the pod template's requirements.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    spec_replicas(request, &STATEFUL_SET)
}

/// Writes `spec.replicas`.
pub(crate) fn revise_replica(edit: InPlaceRequest<'_>) -> Result<Written> {
    revise_int_field(edit, &["spec", "replicas"])
}

/// The Deployment rules on the StatefulSet status fields.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let sts = request.object();
    check(sts, &STATEFUL_SET, HEALTH_READS)?;
    let status = |field: &str| int(sts, &["status", field]);
    let updated = status("updatedReplicas").unwrap_or(0);
    let healthy = status("observedGeneration").unwrap_or(0) == generation(sts)
        && int(sts, &["spec", "replicas"]).is_none_or(|wanted| updated >= wanted)
        && status("availableReplicas").unwrap_or(0) >= updated;
    Ok(Outcome::Healthy(healthy))
}

/// Pod-template dependencies, without the claims the StatefulSet creates
/// itself (names of `spec.volumeClaimTemplates[].metadata.name`).
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &STATEFUL_SET, DEPENDENCY_READS)?;
    let mut deps = dependencies_of(object, get(object, &POD_SPEC))?;
    let templates: Vec<&str> = get(object, &["spec", "volumeClaimTemplates"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| get(t, &["metadata", "name"]).and_then(Value::as_str))
        .collect();
    deps.retain(|d| !(d.kind == "PersistentVolumeClaim" && templates.contains(&d.name.as_str())));
    Ok(Outcome::Dependencies(deps))
}

const WORKLOAD: Workload = Workload {
    root: &schema::STATEFUL_SET,
    status: &schema::STATEFUL_SET_STATUS,
    wrapped: &schema::WRAPPED_STATEFUL_SET_STATUS,
    counters: &[
        "availableReplicas",
        "currentReplicas",
        "readyReplicas",
        "replicas",
        "updatedReplicas",
    ],
    reflected: &[
        ("observedGeneration", false),
        ("replicas", true),
        ("readyReplicas", false),
        ("currentReplicas", false),
        ("updatedReplicas", false),
        ("availableReplicas", true),
    ],
    annotation_first: true,
    empty_is_null: false,
    whole_status_compare: false,
};

/// Sums the members' counters; `observedGeneration` follows the template
/// once every member is fresh (the same test as Deployment, see
/// COMPATIBILITY.md).
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    aggregate_workload(request, &WORKLOAD)
}

/// The counters and generations (`replicas`, `availableReplicas` always),
/// and `observedGeneration` (which Karmada omits, see COMPATIBILITY.md).
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    reflect_workload(request, &WORKLOAD)
}
