//! v1 Pod: InterpretReplica (§3, always one replica), InterpretHealth (§9),
//! InterpretDependency (§10.1).

use serde_json::Value;

use crate::k8s::normalize::schema::POD;
use super::workload::{check, dependencies_of, replicas_of};
use crate::k8s::field::get;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// The string at `key` of `v`, empty when absent.
fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    get(v, &[key]).and_then(Value::as_str).unwrap_or("")
}

/// One replica with the requirements of the Pod's own spec.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &POD)?;
    replicas_of(object, "spec", get(object, &["spec"]), 1)
}

/// Succeeded, or Running with the first `Ready` condition `"True"`.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let pod = request.object();
    check(pod, &POD)?;
    let healthy = match get(pod, &["status", "phase"]).and_then(Value::as_str) {
        Some("Succeeded") => true,
        Some("Running") => get(pod, &["status", "conditions"])
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|c| text(c, "type") == "Ready")
            .is_some_and(|c| text(c, "status") == "True"),
        _ => false,
    };
    Ok(Outcome::Healthy(healthy))
}

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the Pod's spec.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &POD)?;
    let deps = dependencies_of(object, get(object, &["spec"]))?;
    Ok(Outcome::Dependencies(deps))
}
