//! apps/v1 StatefulSet: AggregateStatus (§7.1) and InterpretStatus (§8.3).

use super::{aggregate_workload, reflect_workload, Workload};
use crate::k8s::normalize::schema;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

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
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    aggregate_workload(request, &WORKLOAD)
}

/// The counters and generations (`replicas`, `availableReplicas` always),
/// and `observedGeneration` (which Karmada omits, see COMPATIBILITY.md).
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    reflect_workload(request, &WORKLOAD)
}
