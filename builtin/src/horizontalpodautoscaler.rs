//! autoscaling/v2 HorizontalPodAutoscaler: AggregateStatus and
//! InterpretStatus.

use super::status::{
    aggregate_inputs, check_int32_sum, decode_item, int, put_int, reflected_status,
    template_status, unchanged, with_status, Aggregated,
};
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{Outcome, Request};
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::normalize::{self, schema};
use serde_json::{Map, Value};

/// Sums current and desired replicas.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    let (template, items) = aggregate_inputs(request)?;
    let ty = &schema::HORIZONTAL_POD_AUTOSCALER_STATUS;
    let old = template_status(template, ty)?;
    let (mut current, mut desired) = (0i64, 0i64);
    for (i, item) in items.unwrap_or(&[]).iter().enumerate() {
        let Some(m) = decode_item(template, i, item, ty)? else {
            continue;
        };
        current += int(&m, "currentReplicas");
        desired += int(&m, "desiredReplicas");
    }
    let mut new = Map::new();
    for (key, sum) in [("currentReplicas", current), ("desiredReplicas", desired)] {
        check_int32_sum(template, key, sum)?;
        put_int(&mut new, ty, key, sum);
    }
    if new == old {
        return unchanged(template, &schema::HORIZONTAL_POD_AUTOSCALER);
    }
    with_status(template, &schema::HORIZONTAL_POD_AUTOSCALER, new, ty)
}

/// Current and desired replicas; `currentMetrics` is always `null`.
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let Some(status) = reflected_status(object)? else {
        return Ok(Outcome::Status(None));
    };
    normalize::check(
        object,
        "status",
        status,
        &schema::HORIZONTAL_POD_AUTOSCALER_STATUS,
    )?;
    let empty = Map::new();
    let status = status.as_object().unwrap_or(&empty);
    let mut out = Map::new();
    let current = field::integer(Some(status), "currentReplicas").unwrap_or(0);
    if current != 0 {
        out.insert("currentReplicas".into(), normalize::num(current));
    }
    out.insert(
        "desiredReplicas".into(),
        normalize::num(field::integer(Some(status), "desiredReplicas").unwrap_or(0)),
    );
    out.insert("currentMetrics".into(), Value::Null);
    Ok(Outcome::Status(Some(Value::Object(out))))
}
