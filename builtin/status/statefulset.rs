//! apps/v1 StatefulSet: AggregateStatus (§7.1) and InterpretStatus (§8.3).

use serde_json::Value;

use super::{
    aggregate_workload, copy_ints, generation_keys, generation_prefix, reflected_status, Workload,
};
use crate::builtin::normalize::{self, schema};
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
    let object = request.object();
    let Some(status) = reflected_status(object)? else {
        return Ok(Outcome::Status(None));
    };
    let (generation, template_generation) = generation_keys(object)?;
    normalize::check(object, "status", status, &schema::STATEFUL_SET_STATUS)?;
    let mut out = generation_prefix(generation, template_generation);
    copy_ints(
        &mut out,
        status,
        &[
            ("observedGeneration", false),
            ("replicas", true),
            ("readyReplicas", false),
            ("currentReplicas", false),
            ("updatedReplicas", false),
            ("availableReplicas", true),
        ],
    );
    Ok(Outcome::Status(Some(Value::Object(out))))
}
