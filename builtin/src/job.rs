//! batch/v1 Job: InterpretReplica, ReviseReplica (`parallelism`),
//! Retain, InterpretDependency.
//!
//! Status: AggregateStatus and InterpretStatus.

use super::status::{
    aggregate_inputs, check_int32_sum, decode_item, int, list, put_int, reflected_status, string,
    template_status, unchanged, with_status, Aggregated, Decoded,
};
use super::workload::{
    check, dependencies_of, replicas_of, retain_args, revise_int_field, SPEC_TEMPLATE_DEPENDENCIES,
    TEMPLATE_REQUIREMENTS,
};
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{InPlaceRequest, Outcome, Request};
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::field::{get, int32};
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema::JOB;
use karmada_interpreter_core::k8s::normalize::{self, parse_time, schema, Time};
use karmada_interpreter_core::k8s::written::Written;
use serde_json::{Map, Value};

/// What Retain reads of the member's object.
pub(crate) const RETAIN_KEEPS: Keep = Keep::Members(&[(
    "spec",
    Keep::Members(&[
        ("selector", Keep::Members(&[("matchLabels", Keep::All)])),
        (
            "template",
            Keep::Members(&[("metadata", Keep::Members(&[("labels", Keep::All)]))]),
        ),
    ]),
)]);

/// What InterpretReplica reads.
const REPLICA_READS: Keep = Keep::Members(&[(
    "spec",
    Keep::Members(&[
        ("completions", Keep::All),
        ("parallelism", Keep::All),
        ("template", TEMPLATE_REQUIREMENTS),
    ]),
)]);

/// `min(parallelism, completions)`, absent parallelism → 0, absent
/// completions → parallelism.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &JOB, REPLICA_READS)?;
    let parallelism = int32(object, &["spec", "parallelism"]).unwrap_or(0);
    let completions = int32(object, &["spec", "completions"]).unwrap_or(parallelism);
    replicas_of(
        object,
        "spec.template.spec",
        get(object, &["spec", "template", "spec"]),
        parallelism.min(completions),
    )
}

/// Writes `spec.parallelism`.
pub(crate) fn revise_replica(edit: InPlaceRequest<'_>) -> Result<Written> {
    revise_int_field(edit, &["spec", "parallelism"])
}

/// The member's generated selector labels and template labels replace the
/// desired ones (no merge).
pub(crate) fn retain(edit: InPlaceRequest<'_>) -> Result<Written> {
    const SELECTOR: &[&str] = &["spec", "selector", "matchLabels"];
    const LABELS: &[&str] = &["spec", "template", "metadata", "labels"];
    let (desired, observed) = retain_args(edit)?;
    let mut written = Written::new();
    let selector = field::get_string_map(observed, SELECTOR)?;
    let labels = field::get_string_map(observed, LABELS)?;
    // Both writes are possible before either is made: an error leaves the
    // object unchanged.
    if selector.is_some() {
        field::check_set(desired, SELECTOR)?;
    }
    if let Some(labels) = labels {
        written.set(desired, LABELS, Value::Object(labels.clone()))?;
    }
    if let Some(selector) = selector {
        written.set(desired, SELECTOR, Value::Object(selector.clone()))?;
    }
    Ok(written)
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &JOB, SPEC_TEMPLATE_DEPENDENCIES)?;
    let deps = dependencies_of(object, get(object, &["spec", "template", "spec"]))?;
    Ok(Outcome::Dependencies(deps))
}

/// The type of the first `Complete`/`Failed` condition whose status is "True".
fn finished_state(status: &Decoded) -> Option<&str> {
    list(status, "conditions").iter().find_map(|c| {
        let c = c.as_object()?;
        let kind = string(c, "type");
        ((kind == "Complete" || kind == "Failed") && string(c, "status") == "True").then_some(kind)
    })
}

fn has_true_condition(status: &Decoded, kind: &str) -> bool {
    list(status, "conditions").iter().any(|c| {
        c.as_object()
            .is_some_and(|c| string(c, "type") == kind && string(c, "status") == "True")
    })
}

fn time_of(status: &Decoded, key: &str) -> Option<Time> {
    status.get(key).and_then(Value::as_str).and_then(parse_time)
}

fn condition(kind: &str, reason: &str, message: String, now: &str) -> Value {
    let mut c = Map::new();
    c.insert("type".into(), kind.into());
    c.insert("status".into(), "True".into());
    c.insert("reason".into(), reason.into());
    c.insert("message".into(), message.into());
    c.insert("lastProbeTime".into(), now.into());
    c.insert("lastTransitionTime".into(), now.into());
    Value::Object(c)
}

/// Sums the members' counters and derives Failed / Complete /
/// SuccessCriteriaMet conditions; a finished template is left alone.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    aggregate_with(request, false)
}

/// [`aggregate`] as Karmada's pull request #7846 has it (the `karmada-next`
/// profile): a failure also writes `FailureTarget=True`, before `Failed`
/// and with its reason, message and times (API servers from Kubernetes 1.31
/// refuse `Failed` without it, and older members never send it).
#[cfg(feature = "karmada-next")]
pub(crate) fn aggregate_next(request: &Request<'_>) -> Result<Aggregated> {
    aggregate_with(request, true)
}

fn aggregate_with(request: &Request<'_>, failure_target: bool) -> Result<Aggregated> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, &schema::JOB_STATUS)?;
    if finished_state(&old).is_some() {
        return unchanged(template, &schema::JOB);
    }
    let items = items.unwrap_or(&[]);
    let n = items.len();
    let (mut active, mut succeeded, mut failed) = (0i64, 0i64, 0i64);
    let mut successful = 0usize;
    let mut failed_clusters: Vec<&str> = Vec::new();
    let mut criteria_met = 0usize;
    let (mut start, mut starts) = (None::<Time>, 0usize);
    let (mut completion, mut completions) = (None::<Time>, 0usize);
    for (i, item) in items.iter().enumerate() {
        let Some(m) = decode_item(template, i, item, &schema::JOB_STATUS)? else {
            continue;
        };
        active += int(&m, "active");
        succeeded += int(&m, "succeeded");
        failed += int(&m, "failed");
        match finished_state(&m) {
            Some("Complete") => successful += 1,
            Some(_) => failed_clusters.push(&item.cluster_name),
            None => {}
        }
        if has_true_condition(&m, "SuccessCriteriaMet") {
            criteria_met += 1;
        }
        if let Some(t) = time_of(&m, "startTime") {
            starts += 1;
            start = Some(start.map_or(t, |s| s.min(t)));
        }
        if let Some(t) = time_of(&m, "completionTime") {
            completions += 1;
            completion = Some(completion.map_or(t, |c| c.max(t)));
        }
    }
    for (key, sum) in [
        ("active", active),
        ("succeeded", succeeded),
        ("failed", failed),
    ] {
        check_int32_sum(template, key, sum)?;
    }
    let now = Time::now().to_exact_string();
    let mut conditions = Vec::new();
    if !failed_clusters.is_empty() {
        let message = format!(
            "Job executed failed in member clusters {}",
            failed_clusters.join(",")
        );
        if failure_target {
            conditions.push(condition(
                "FailureTarget",
                "JobFailed",
                message.clone(),
                &now,
            ));
        }
        conditions.push(condition("Failed", "JobFailed", message, &now));
    }
    if n > 0 && successful == n {
        conditions.push(condition(
            "Complete",
            "Completed",
            "Job completed".into(),
            &now,
        ));
        if criteria_met == n {
            conditions.push(condition(
                "SuccessCriteriaMet",
                "CompletionsReached",
                "All member clusters have met success criteria".into(),
                &now,
            ));
        }
    }
    let mut new = Map::new();
    put_int(&mut new, &schema::JOB_STATUS, "active", active);
    put_int(&mut new, &schema::JOB_STATUS, "succeeded", succeeded);
    put_int(&mut new, &schema::JOB_STATUS, "failed", failed);
    if !conditions.is_empty() {
        new.insert("conditions".into(), Value::Array(conditions));
    }
    let start = match old.get("startTime") {
        Some(existing) => Some(existing.clone()),
        None if n > 0 && starts == n => start.map(|t| Value::String(t.to_exact_string())),
        None => None,
    };
    if let Some(start) = start {
        new.insert("startTime".into(), start);
    }
    if n > 0 && completions == n {
        if let Some(t) = completion {
            new.insert("completionTime".into(), Value::String(t.to_exact_string()));
        }
    }
    if new == old {
        return unchanged(template, &schema::JOB);
    }
    with_status(template, &schema::JOB, new, &schema::JOB_STATUS)
}

/// Conditions, start and completion times and the pod counters.
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let Some(status) = reflected_status(object)? else {
        return Ok(Outcome::Status(None));
    };
    let encoded = normalize::encode_known(object, "status", status, &schema::JOB_STATUS)?;
    let mut out = Map::new();
    if let Value::Object(mut m) = encoded {
        for key in [
            "conditions",
            "startTime",
            "completionTime",
            "active",
            "succeeded",
            "failed",
        ] {
            if let Some(v) = m.remove(key) {
                out.insert(key.to_owned(), v);
            }
        }
    }
    Ok(Outcome::Status(Some(Value::Object(out))))
}
