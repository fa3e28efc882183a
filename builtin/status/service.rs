//! v1 Service: AggregateStatus (§7.2) and InterpretStatus (§8.5).

use serde_json::{Map, Value};

use super::{
    aggregate_inputs, decode_item, list, loadbalancer, object, reflected_status, template_status,
    unchanged, with_status,
};
use crate::builtin::normalize::{self, schema};
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
    let (template, items) = aggregate_inputs(request)?;
    if !is_load_balancer(template) {
        return unchanged(template, &schema::SERVICE);
    }
    let old = template_status(template, &schema::SERVICE_STATUS)?;
    let decoded: Vec<_> = items
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .map(|(i, item)| decode_item(template, i, item, &schema::SERVICE_STATUS))
        .collect::<Result<_>>()?;
    let entries = decoded
        .iter()
        .flatten()
        .filter_map(|m| object(m, "loadBalancer"))
        .flat_map(|lb| list(lb, "ingress"))
        .filter_map(Value::as_object)
        .collect();
    let mut lb = Map::new();
    lb.insert(
        "ingress".into(),
        Value::Array(loadbalancer::merge(entries, true)),
    );
    let mut new = Map::new();
    new.insert("loadBalancer".into(), Value::Object(lb));
    if new == old {
        return unchanged(template, &schema::SERVICE);
    }
    with_status(template, &schema::SERVICE, new, &schema::SERVICE_STATUS)
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
