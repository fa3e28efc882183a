//! apps/v1 ReplicaSet: InterpretReplica, ReviseReplica,
//! InterpretHealth, InterpretDependency.
//!
//! Status: AggregateStatus and InterpretStatus.

use super::status::{aggregate_workload, reflect_workload, Aggregated, Workload};
use super::workload::{
    check, dependencies_of, revise_int_field, spec_replicas, GENERATION, SPEC_TEMPLATE_DEPENDENCIES,
};
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{InPlaceRequest, Outcome, Request};
use karmada_interpreter_core::k8s::field::{generation, get, int};
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema;
use karmada_interpreter_core::k8s::normalize::schema::REPLICA_SET;
use karmada_interpreter_core::k8s::written::Written;

/// What InterpretHealth reads.
const HEALTH_READS: Keep = Keep::Members(&[
    GENERATION,
    ("spec", Keep::Members(&[("replicas", Keep::All)])),
    (
        "status",
        Keep::Members(&[
            ("availableReplicas", Keep::All),
            ("observedGeneration", Keep::All),
        ]),
    ),
]);

const POD_SPEC: [&str; 3] = ["spec", "template", "spec"];

/// `spec.replicas` (absent → 0) of the pod template's requirements.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    spec_replicas(request, &REPLICA_SET)
}

/// Writes `spec.replicas`.
pub(crate) fn revise_replica(edit: InPlaceRequest<'_>) -> Result<Written> {
    revise_int_field(edit, &["spec", "replicas"])
}

/// Observed generation current and enough available replicas.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let rs = request.object();
    check(rs, &REPLICA_SET, HEALTH_READS)?;
    let available = int(rs, &["status", "availableReplicas"]).unwrap_or(0);
    let healthy = int(rs, &["status", "observedGeneration"]).unwrap_or(0) == generation(rs)
        && int(rs, &["spec", "replicas"]).is_none_or(|wanted| available >= wanted);
    Ok(Outcome::Healthy(healthy))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &REPLICA_SET, SPEC_TEMPLATE_DEPENDENCIES)?;
    let deps = dependencies_of(object, get(object, &POD_SPEC))?;
    Ok(Outcome::Dependencies(deps))
}

const WORKLOAD: Workload = Workload {
    root: &schema::REPLICA_SET,
    status: &schema::REPLICA_SET_STATUS,
    wrapped: &schema::WRAPPED_REPLICA_SET_STATUS,
    counters: &["replicas", "readyReplicas", "availableReplicas"],
    reflected: &[
        ("replicas", true),
        ("readyReplicas", false),
        ("availableReplicas", false),
        ("observedGeneration", false),
    ],
    annotation_first: false,
    empty_is_null: false,
    whole_status_compare: false,
};

/// Sums the members' counters; `observedGeneration` follows the template
/// once every member is fresh.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    aggregate_workload(request, &WORKLOAD)
}

/// The counters and generations (`replicas` always).
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    reflect_workload(request, &WORKLOAD)
}
