//! v1 Pod: AggregateStatus (§7.7). InterpretStatus is the whole-status
//! reflection (§8.10); Retain lives in `builtin/pod_retain.rs`.

use serde_json::{Map, Value};

use super::{aggregate_inputs, decode_item, list, string, template_status, unchanged, with_status};
use crate::k8s::normalize::{self, schema};
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

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
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    let (template, items) = aggregate_inputs(request)?;
    let Some(items) = items else {
        // No item list at all: the normalized template, status untouched.
        return Ok(Outcome::Aggregated(normalize::encode(
            template,
            "",
            template,
            &schema::POD,
        )?));
    };
    let old = template_status(template, &schema::POD_STATUS)?;
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
