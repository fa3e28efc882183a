//! apps/v1 ReplicaSet: AggregateStatus (§7.1) and InterpretStatus (§8.2).

use super::{aggregate_workload, reflect_workload, Workload};
use crate::k8s::normalize::schema;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

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
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    aggregate_workload(request, &WORKLOAD)
}

/// The counters and generations (`replicas` always).
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    reflect_workload(request, &WORKLOAD)
}
