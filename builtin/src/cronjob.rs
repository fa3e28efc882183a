//! batch/v1 CronJob: InterpretDependency (the job template's pod spec).
//!
//! Status: AggregateStatus. InterpretStatus is the
//! whole-status reflection.

use super::status::{
    aggregate_inputs, decode_item, list, template_status, unchanged, with_status, Aggregated,
};
use super::workload::{check, dependencies_of, NAMESPACE, TEMPLATE_DEPENDENCIES};
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{Outcome, Request};
use karmada_interpreter_core::k8s::field::get;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema::CRON_JOB;
use karmada_interpreter_core::k8s::normalize::{parse_time, schema, Time};
use serde_json::{Map, Value};

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the job template's pods,
/// What InterpretDependency reads: the job template's pod template.
const DEPENDENCY_READS: Keep = Keep::Members(&[
    NAMESPACE,
    (
        "spec",
        Keep::Members(&[(
            "jobTemplate",
            Keep::Members(&[(
                "spec",
                Keep::Members(&[("template", TEMPLATE_DEPENDENCIES)]),
            )]),
        )]),
    ),
]);

/// in the CronJob's namespace.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &CRON_JOB, DEPENDENCY_READS)?;
    let pod = get(object, &["spec", "jobTemplate", "spec", "template", "spec"]);
    let deps = dependencies_of(object, pod)?;
    Ok(Outcome::Dependencies(deps))
}

/// Concatenates the members' active jobs; latest schedule and success times.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, &schema::CRON_JOB_STATUS)?;
    let mut active: Vec<Value> = Vec::new();
    let mut last_schedule = None::<Time>;
    let mut last_success = None::<Time>;
    for (i, item) in items.unwrap_or(&[]).iter().enumerate() {
        let Some(m) = decode_item(template, i, item, &schema::CRON_JOB_STATUS)? else {
            continue;
        };
        active.extend(list(&m, "active").iter().cloned());
        let latest = |acc: Option<Time>, key: &str| match m
            .get(key)
            .and_then(Value::as_str)
            .and_then(parse_time)
        {
            Some(t) => Some(acc.map_or(t, |a| a.max(t))),
            None => acc,
        };
        last_schedule = latest(last_schedule, "lastScheduleTime");
        last_success = latest(last_success, "lastSuccessfulTime");
    }
    let mut new = Map::new();
    if !active.is_empty() {
        new.insert("active".into(), Value::Array(active));
    }
    if let Some(t) = last_schedule {
        new.insert(
            "lastScheduleTime".into(),
            Value::String(t.to_exact_string()),
        );
    }
    if let Some(t) = last_success {
        new.insert(
            "lastSuccessfulTime".into(),
            Value::String(t.to_exact_string()),
        );
    }
    if new == old {
        return unchanged(template, &schema::CRON_JOB);
    }
    with_status(template, &schema::CRON_JOB, new, &schema::CRON_JOB_STATUS)
}
