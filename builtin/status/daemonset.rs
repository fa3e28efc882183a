//! apps/v1 DaemonSet: AggregateStatus (§7.1) and InterpretStatus (§8.4).

use super::{aggregate_workload, reflect_workload, Workload};
use crate::k8s::normalize::schema;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

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
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    aggregate_workload(request, &WORKLOAD)
}

/// The counters (first four always) and generations.
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    reflect_workload(request, &WORKLOAD)
}
