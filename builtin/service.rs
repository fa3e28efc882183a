//! v1 Service: Retain (§6.3), InterpretHealth (§9).

use serde_json::Value;

use crate::k8s::field;
use super::ingress::has_load_balancer_address;
use crate::k8s::normalize::schema::SERVICE;
use super::workload::{check, retain_args};
use crate::k8s::field::get;
use super::Edit;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Keeps the member's `spec.healthCheckNodePort` (when > 0) and
/// `spec.clusterIP` (when non-empty); nothing else.
pub(crate) fn retain(edit: Edit<'_>) -> Result<Outcome> {
    let (desired, observed) = retain_args(edit)?;
    let node_port = field::get_int(observed, &["spec", "healthCheckNodePort"])?;
    let cluster_ip = field::get_str(observed, &["spec", "clusterIP"])?;
    let mut retained = desired.into_owned();
    if let Some(port) = node_port.filter(|p| *p > 0) {
        field::set(
            &mut retained,
            &["spec", "healthCheckNodePort"],
            Value::from(port),
        )?;
    }
    if let Some(ip) = cluster_ip.filter(|ip| !ip.is_empty()) {
        field::set(&mut retained, &["spec", "clusterIP"], Value::from(ip))?;
    }
    Ok(Outcome::Retained(retained))
}

/// Healthy unless a LoadBalancer has no ingress with an IP or hostname yet.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let svc = request.object();
    check(svc, &SERVICE)?;
    let is_lb = get(svc, &["spec", "type"]).and_then(Value::as_str) == Some("LoadBalancer");
    Ok(Outcome::Healthy(!is_lb || has_load_balancer_address(svc)))
}
