//! apps/v1 Deployment: InterpretReplica, ReviseReplica, Retain,
//! InterpretHealth, InterpretDependency.
//!
//! Status: AggregateStatus and InterpretStatus.

use super::status::{aggregate_workload, reflect_workload, Aggregated, Workload};
use super::workload::{
    check, dependencies_of, retain_args, revise_int_field, spec_replicas, GENERATION,
    SPEC_TEMPLATE_DEPENDENCIES,
};
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{InPlaceRequest, Outcome, Request};
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::field::{generation, get, int};
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema;
use karmada_interpreter_core::k8s::normalize::schema::DEPLOYMENT;
use karmada_interpreter_core::k8s::written::Written;
use serde_json::Value;

/// What Retain reads of the member's object.
pub(crate) const RETAIN_KEEPS: Keep =
    Keep::Members(&[("spec", Keep::Members(&[("replicas", Keep::All)]))]);

/// Opt-in label: keep the member's replica count.
pub(crate) const RETAIN_REPLICAS_LABEL: &str = "resourcetemplate.karmada.io/retain-replicas";

/// `spec.replicas` (absent → 0) of the pod template's requirements.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    spec_replicas(request, &DEPLOYMENT)
}

/// Writes `spec.replicas`.
pub(crate) fn revise_replica(edit: InPlaceRequest<'_>) -> Result<Written> {
    revise_int_field(edit, &["spec", "replicas"])
}

/// Keeps the member's `spec.replicas` when the desired object carries the
/// retain-replicas label with value `"true"`.
pub(crate) fn retain(edit: InPlaceRequest<'_>) -> Result<Written> {
    let (desired, observed) = retain_args(edit)?;
    let mut written = Written::new();
    let labels = field::get_string_map(desired, &["metadata", "labels"])?;
    let opted_in = labels
        .and_then(|l| field::member(l, RETAIN_REPLICAS_LABEL))
        .and_then(Value::as_str)
        == Some("true");
    if opted_in {
        let replicas = field::get_int(observed, &["spec", "replicas"])?.ok_or_else(|| {
            field::invalid(
                observed,
                "spec.replicas",
                "absent in the member object; cannot retain replicas",
            )
        })?;
        written.set(desired, &["spec", "replicas"], Value::from(replicas))?;
    }
    Ok(written)
}

/// What InterpretHealth reads (Deployment and StatefulSet alike).
pub(crate) const HEALTH_READS: Keep = Keep::Members(&[
    GENERATION,
    ("spec", Keep::Members(&[("replicas", Keep::All)])),
    (
        "status",
        Keep::Members(&[
            ("availableReplicas", Keep::All),
            ("observedGeneration", Keep::All),
            ("updatedReplicas", Keep::All),
        ]),
    ),
]);

/// Observed generation current, enough updated replicas, all updated available.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let d = request.object();
    check(d, &DEPLOYMENT, HEALTH_READS)?;
    let status = |field: &str| int(d, &["status", field]);
    let updated = status("updatedReplicas").unwrap_or(0);
    let healthy = status("observedGeneration").unwrap_or(0) == generation(d)
        && int(d, &["spec", "replicas"]).is_none_or(|wanted| updated >= wanted)
        && status("availableReplicas").unwrap_or(0) >= updated;
    Ok(Outcome::Healthy(healthy))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &DEPLOYMENT, SPEC_TEMPLATE_DEPENDENCIES)?;
    let deps = dependencies_of(object, get(object, &["spec", "template", "spec"]))?;
    Ok(Outcome::Dependencies(deps))
}

const WORKLOAD: Workload = Workload {
    root: &schema::DEPLOYMENT,
    status: &schema::DEPLOYMENT_STATUS,
    wrapped: &schema::WRAPPED_DEPLOYMENT_STATUS,
    counters: &[
        "replicas",
        "readyReplicas",
        "updatedReplicas",
        "availableReplicas",
        "unavailableReplicas",
    ],
    reflected: &[
        ("observedGeneration", false),
        ("replicas", false),
        ("updatedReplicas", false),
        ("readyReplicas", false),
        ("availableReplicas", false),
        ("unavailableReplicas", false),
    ],
    annotation_first: false,
    empty_is_null: true,
    whole_status_compare: false,
};

/// Sums the members' counters; `observedGeneration` follows the template
/// once every member is fresh.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    aggregate_workload(request, &WORKLOAD)
}

/// The counters and generations; `null` when all are zero.
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    reflect_workload(request, &WORKLOAD)
}
