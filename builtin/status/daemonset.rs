//! apps/v1 DaemonSet: AggregateStatus (§7.1) and InterpretStatus (§8.4).

use serde_json::Value;

use super::{
    aggregate_workload, copy_ints, generation_keys, generation_prefix, reflected_status, Workload,
};
use crate::builtin::normalize::{self, schema};
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
    whole_status_compare: true,
};

/// Sums the members' counters; `observedGeneration` follows the template
/// once every member is fresh.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    aggregate_workload(request, &WORKLOAD)
}

/// The counters (first four always) and generations.
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let Some(status) = reflected_status(object)? else {
        return Ok(Outcome::Status(None));
    };
    normalize::check(object, "status", status, &schema::DAEMON_SET_STATUS)?;
    let (generation, template_generation) = generation_keys(object)?;
    let mut out = generation_prefix(generation, template_generation);
    copy_ints(
        &mut out,
        status,
        &[
            ("currentNumberScheduled", true),
            ("numberMisscheduled", true),
            ("desiredNumberScheduled", true),
            ("numberReady", true),
            ("observedGeneration", false),
            ("updatedNumberScheduled", false),
            ("numberAvailable", false),
            ("numberUnavailable", false),
        ],
    );
    Ok(Outcome::Status(Some(Value::Object(out))))
}
