//! v1 Pod: InterpretReplica (always one replica), InterpretHealth,
//! InterpretDependency.
//!
//! Retain (typed, normalized output). Status: AggregateStatus.
//! InterpretStatus is the whole-status reflection.

use super::status::{
    aggregate_inputs, decode_item, list, string, template_status, unchanged, with_status,
    Aggregated,
};
use super::workload::{check, dependencies_of, replicas_of, NAMESPACE};
use karmada_interpreter_core::error::{Error, Result};
use karmada_interpreter_core::interpreter::{Outcome, Request};
use karmada_interpreter_core::k8s::dependencies::POD_SPEC_DEPENDENCY_READS;
use karmada_interpreter_core::k8s::field::get;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema::POD;
use karmada_interpreter_core::k8s::normalize::{self, schema};
use karmada_interpreter_core::k8s::requirements::POD_SPEC_REQUIREMENT_READS;
use serde_json::{Map, Value};

/// The string at `key` of `v`, empty when absent.
fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    get(v, &[key]).and_then(Value::as_str).unwrap_or("")
}

/// What InterpretReplica reads.
const REPLICA_READS: Keep = Keep::Members(&[("spec", POD_SPEC_REQUIREMENT_READS)]);

/// What InterpretHealth reads.
const HEALTH_READS: Keep = Keep::Members(&[(
    "status",
    Keep::Members(&[
        (
            "conditions",
            Keep::Members(&[("status", Keep::All), ("type", Keep::All)]),
        ),
        ("phase", Keep::All),
    ]),
)]);

/// What InterpretDependency reads.
const DEPENDENCY_READS: Keep = Keep::Members(&[NAMESPACE, ("spec", POD_SPEC_DEPENDENCY_READS)]);

/// One replica with the requirements of the Pod's own spec.
pub(crate) fn interpret_replica(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &POD, REPLICA_READS)?;
    replicas_of(object, "spec", get(object, &["spec"]), 1)
}

/// Succeeded, or Running with the first `Ready` condition `"True"`.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let pod = request.object();
    check(pod, &POD, HEALTH_READS)?;
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
    check(object, &POD, DEPENDENCY_READS)?;
    let deps = dependencies_of(object, get(object, &["spec"]))?;
    Ok(Outcome::Dependencies(deps))
}

/// Only `ready` and `state` of a member container status.
fn container_entry(status: &Value) -> Value {
    let mut m = Map::new();
    if let Some(s) = status.as_object() {
        for key in ["ready", "state"] {
            if let Some(v) = s.get(key) {
                m.insert(key.to_owned(), v.clone());
            }
        }
    }
    Value::Object(m)
}

/// Phase by precedence (Failed, Pending, Running, Succeeded) and the
/// members' container states, concatenated.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, &schema::POD_STATUS)?;
    let Some(items) = items else {
        // No item list at all: the normalized template, its status as the
        // Go type holds it.
        return with_status(template, &schema::POD, old, &schema::POD_STATUS);
    };
    let mut phases: Vec<String> = Vec::new();
    let mut containers = Vec::new();
    let mut init_containers = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(m) = decode_item(template, i, item, &schema::POD_STATUS)? else {
            phases.push("Pending".to_owned());
            continue;
        };
        phases.push(string(&m, "phase").to_owned());
        containers.extend(list(&m, "containerStatuses").iter().map(container_entry));
        init_containers.extend(
            list(&m, "initContainerStatuses")
                .iter()
                .map(container_entry),
        );
    }
    let phase = ["Failed", "Pending", "Running", "Succeeded"]
        .into_iter()
        .find(|p| phases.iter().any(|q| q == p));
    let mut new = Map::new();
    if let Some(phase) = phase {
        new.insert("phase".into(), phase.into());
    }
    new.insert("containerStatuses".into(), Value::Array(containers));
    new.insert(
        "initContainerStatuses".into(),
        Value::Array(init_containers),
    );
    if new == old {
        return unchanged(template, &schema::POD);
    }
    with_status(template, &schema::POD, new, &schema::POD_STATUS)
}

/// Keeps what the member cluster assigned to the pod: `nodeName`,
/// `serviceAccountName`, `volumes` and each container's `volumeMounts`
/// (matched by name, init containers too). The result is the normalized
/// desired pod (keys unknown to Kubernetes 1.36 are kept).
pub(crate) fn retain(request: &Request<'_>) -> Result<Outcome> {
    let Request::Retain { desired, observed } = *request else {
        return Err(Error::InvalidInput {
            operation: request.operation(),
            reason: "not a Retain request".to_owned(),
        });
    };
    let mut out = normalize::encode(desired, "", desired, &schema::POD)?;
    let observed = normalize::encode(observed, "", observed, &schema::POD)?;
    let empty = Map::new();
    let observed_spec = observed
        .get("spec")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if let Some(Value::Object(spec)) = out.get_mut("spec") {
        for key in ["nodeName", "serviceAccountName", "volumes"] {
            match observed_spec.get(key) {
                Some(v) => spec.insert(key.to_owned(), v.clone()),
                None => spec.remove(key),
            };
        }
        for key in ["containers", "initContainers"] {
            retain_mounts(spec, observed_spec, key);
        }
    }
    Ok(Outcome::Retained(out))
}

/// For each observed container, the first desired container of the same name
/// takes the observed `volumeMounts` (or loses its own).
fn retain_mounts(spec: &mut Map<String, Value>, observed: &Map<String, Value>, key: &str) {
    let Some(Value::Array(observed_containers)) = observed.get(key) else {
        return;
    };
    let Some(Value::Array(containers)) = spec.get_mut(key) else {
        return;
    };
    for oc in observed_containers {
        let name = oc.get("name").and_then(Value::as_str).unwrap_or("");
        let target = containers
            .iter_mut()
            .filter_map(Value::as_object_mut)
            .find(|c| c.get("name").and_then(Value::as_str).unwrap_or("") == name);
        if let Some(c) = target {
            match oc.get("volumeMounts") {
                Some(m) => c.insert("volumeMounts".to_owned(), m.clone()),
                None => c.remove("volumeMounts"),
            };
        }
    }
}
