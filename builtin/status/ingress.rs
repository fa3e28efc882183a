//! networking.k8s.io/v1 Ingress: AggregateStatus (§7.3). InterpretStatus is
//! the whole-status reflection (§8.6).

use serde_json::{Map, Value};

use super::{
    aggregate_inputs, decode_item, list, loadbalancer, object, template_status, unchanged,
    with_status,
};
use crate::builtin::normalize::schema;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// The members' load-balancer ingress entries, merged and sorted.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, &schema::INGRESS_STATUS)?;
    let decoded: Vec<_> = items
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .map(|(i, item)| decode_item(template, i, item, &schema::INGRESS_STATUS))
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
        Value::Array(loadbalancer::merge(entries, false)),
    );
    let mut new = Map::new();
    new.insert("loadBalancer".into(), Value::Object(lb));
    if new == old {
        return unchanged(template, &schema::INGRESS);
    }
    with_status(template, &schema::INGRESS, new, &schema::INGRESS_STATUS)
}
