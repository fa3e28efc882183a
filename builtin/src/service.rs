//! v1 Service: Retain, InterpretHealth.
//!
//! Status: AggregateStatus and InterpretStatus.

use super::ingress::{has_load_balancer_address, LOAD_BALANCER_READS};
use super::status::{
    aggregate_inputs, aggregate_load_balancer, reflected_status, unchanged, Aggregated,
};
use super::workload::{check, retain_args};
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{InPlaceRequest, Outcome, Request};
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::field::get;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema::SERVICE;
use karmada_interpreter_core::k8s::normalize::{self, schema};
use karmada_interpreter_core::k8s::written::Written;
use serde_json::{Map, Value};

/// What Retain reads of the member's object.
pub(crate) const RETAIN_KEEPS: Keep = Keep::Members(&[(
    "spec",
    Keep::Members(&[("healthCheckNodePort", Keep::All), ("clusterIP", Keep::All)]),
)]);

/// Keeps the member's `spec.healthCheckNodePort` (when > 0) and
/// `spec.clusterIP` (when non-empty); nothing else.
pub(crate) fn retain(edit: InPlaceRequest<'_>) -> Result<Written> {
    let (desired, observed) = retain_args(edit)?;
    let mut written = Written::new();
    let node_port = field::get_int(observed, &["spec", "healthCheckNodePort"])?;
    let cluster_ip = field::get_str(observed, &["spec", "clusterIP"])?;
    // Both writes share their parent (`spec`): the first succeeds exactly
    // when the second does, so an error leaves the object unchanged.
    if let Some(port) = node_port.filter(|p| *p > 0) {
        written.set(desired, &["spec", "healthCheckNodePort"], Value::from(port))?;
    }
    if let Some(ip) = cluster_ip.filter(|ip| !ip.is_empty()) {
        written.set(desired, &["spec", "clusterIP"], Value::from(ip))?;
    }
    Ok(written)
}

/// What InterpretHealth reads.
const HEALTH_READS: Keep = Keep::Members(&[
    ("spec", Keep::Members(&[("type", Keep::All)])),
    LOAD_BALANCER_READS,
]);

/// Healthy unless a LoadBalancer has no ingress with an IP or hostname yet.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let svc = request.object();
    check(svc, &SERVICE, HEALTH_READS)?;
    let is_lb = get(svc, &["spec", "type"]).and_then(Value::as_str) == Some("LoadBalancer");
    Ok(Outcome::Healthy(!is_lb || has_load_balancer_address(svc)))
}

fn is_load_balancer(object: &Value) -> bool {
    object
        .get("spec")
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        == Some("LoadBalancer")
}

/// LoadBalancer services: the members' load-balancer ingress entries,
/// merged and sorted. Other services are returned unchanged.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
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
