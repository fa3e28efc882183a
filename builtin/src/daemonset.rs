//! apps/v1 DaemonSet: InterpretHealth, InterpretDependency.
//!
//! Status: AggregateStatus and InterpretStatus.

use super::status::{aggregate_workload, reflect_workload, Aggregated, Workload};
use super::workload::{check, dependencies_of, GENERATION, SPEC_TEMPLATE_DEPENDENCIES};
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{Outcome, Request};
use karmada_interpreter_core::k8s::field::{generation, get, int};
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema;
use karmada_interpreter_core::k8s::normalize::schema::DAEMON_SET;

/// Observed generation current, every desired node updated, every updated
/// pod available.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let ds = request.object();
    check(ds, &DAEMON_SET, HEALTH_READS)?;
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
    check(object, &DAEMON_SET, SPEC_TEMPLATE_DEPENDENCIES)?;
    let deps = dependencies_of(object, get(object, &["spec", "template", "spec"]))?;
    Ok(Outcome::Dependencies(deps))
}

/// What InterpretHealth reads.
const HEALTH_READS: Keep = Keep::Members(&[
    GENERATION,
    (
        "status",
        Keep::Members(&[
            ("desiredNumberScheduled", Keep::All),
            ("numberAvailable", Keep::All),
            ("observedGeneration", Keep::All),
            ("updatedNumberScheduled", Keep::All),
        ]),
    ),
]);

const WORKLOAD: Workload = Workload {
    root: &schema::DAEMON_SET,
    status: &schema::DAEMON_SET_STATUS,
    wrapped: &schema::WRAPPED_DAEMON_SET_STATUS,
    counters: &[
        "currentNumberScheduled",
        "desiredNumberScheduled",
        "numberAvailable",
        "numberMisscheduled",
        "numberReady",
        "updatedNumberScheduled",
        "numberUnavailable",
    ],
    reflected: &[
        ("currentNumberScheduled", true),
        ("numberMisscheduled", true),
        ("desiredNumberScheduled", true),
        ("numberReady", true),
        ("observedGeneration", false),
        ("updatedNumberScheduled", false),
        ("numberAvailable", false),
        ("numberUnavailable", false),
    ],
    annotation_first: false,
    empty_is_null: false,
    whole_status_compare: true,
};

/// Sums the members' counters; `observedGeneration` follows the template
/// once every member is fresh.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    aggregate_workload(request, &WORKLOAD)
}

/// The counters (first four always) and generations.
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    reflect_workload(request, &WORKLOAD)
}
