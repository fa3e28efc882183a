//! v1 Service: AggregateStatus (§7.2) and InterpretStatus (§8.5).

use serde_json::{Map, Value};

use super::{aggregate_inputs, aggregate_load_balancer, reflected_status, unchanged};
use crate::k8s::normalize::{self, schema};
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

fn is_load_balancer(object: &Value) -> bool {
    object
        .get("spec")
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        == Some("LoadBalancer")
}

/// LoadBalancer services: the members' load-balancer ingress entries,
/// merged and sorted. Other services are returned unchanged.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    if !is_load_balancer(request.object()) {
        let (template, _) = aggregate_inputs(request)?;
        return unchanged(template, &schema::SERVICE);
    }
    aggregate_load_balancer(request, &schema::SERVICE, &schema::SERVICE_STATUS, true)
}

/// `{"loadBalancer": ...}` of LoadBalancer services; `null` for other types.
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    if !is_load_balancer(object) {
        return Ok(Outcome::Status(None));
    }
    let Some(status) = reflected_status(object)? else {
        return Ok(Outcome::Status(None));
    };
    let encoded = normalize::encode_known(object, "status", status, &schema::SERVICE_STATUS)?;
    let mut out = Map::new();
    if let Some(lb) = encoded.get("loadBalancer") {
        out.insert("loadBalancer".into(), lb.clone());
    }
    Ok(Outcome::Status(Some(Value::Object(out))))
}
