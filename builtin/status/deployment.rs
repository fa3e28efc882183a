//! apps/v1 Deployment: AggregateStatus (§7.1) and InterpretStatus (§8.1).

use super::{aggregate_workload, reflect_workload, Workload};
use crate::k8s::normalize::schema;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

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
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    aggregate_workload(request, &WORKLOAD)
}

/// The counters and generations; `null` when all are zero.
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    reflect_workload(request, &WORKLOAD)
}
