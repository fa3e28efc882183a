//! batch/v1 Job: InterpretReplica (§3), ReviseReplica (§5, `parallelism`),
//! Retain (§6.7), InterpretDependency (§10.1).

use serde_json::Value;

use crate::k8s::field;
use crate::k8s::normalize::schema::JOB;
use super::workload::{check, dependencies_of, replicas_of, retain_args, revise_int_field};
use crate::k8s::field::{get, int32};
use super::Edit;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// `min(parallelism, completions)`, absent parallelism → 0, absent
/// completions → parallelism.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &JOB)?;
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
pub(crate) fn revise_replica(edit: Edit<'_>) -> Result<Outcome> {
    revise_int_field(edit, &["spec", "parallelism"])
}

/// The member's generated selector labels and template labels replace the
/// desired ones (no merge).
pub(crate) fn retain(edit: Edit<'_>) -> Result<Outcome> {
    let (desired, observed) = retain_args(edit)?;
    let selector = field::get_string_map(observed, &["spec", "selector", "matchLabels"])?;
    let labels = field::get_string_map(observed, &["spec", "template", "metadata", "labels"])?;
    let mut retained = desired.into_owned();
    if let Some(selector) = selector {
        field::set(
            &mut retained,
            &["spec", "selector", "matchLabels"],
            Value::Object(selector.clone()),
        )?;
    }
    if let Some(labels) = labels {
        field::set(
            &mut retained,
            &["spec", "template", "metadata", "labels"],
            Value::Object(labels.clone()),
        )?;
    }
    Ok(Outcome::Retained(retained))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &JOB)?;
    let deps = dependencies_of(object, get(object, &["spec", "template", "spec"]))?;
    Ok(Outcome::Dependencies(deps))
}
