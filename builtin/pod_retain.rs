//! v1 Pod Retain (`native-builtins.md` §6.2): typed, normalized output.

use serde_json::{Map, Value};

use crate::k8s::normalize::{self, schema};
use crate::error::{Error, Result};
use crate::interpreter::{Outcome, Request};

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
