//! v1 Service: Retain (§6.3), InterpretHealth (§9).

use k8s_openapi::api::core::v1::{ServiceSpec, ServiceStatus};
use serde_json::Value;

use super::access;
use super::decode::{decode, Object};
use super::workload::retain_args;
use super::Edit;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Keeps the member's `spec.healthCheckNodePort` (when > 0) and
/// `spec.clusterIP` (when non-empty); nothing else.
pub(crate) fn retain(edit: Edit<'_>) -> Result<Outcome> {
    let (desired, observed) = retain_args(edit)?;
    let node_port = access::get_int(observed, &["spec", "healthCheckNodePort"])?;
    let cluster_ip = access::get_str(observed, &["spec", "clusterIP"])?;
    let mut retained = desired.into_owned();
    if let Some(port) = node_port.filter(|p| *p > 0) {
        access::set(
            &mut retained,
            &["spec", "healthCheckNodePort"],
            Value::from(port),
        )?;
    }
    if let Some(ip) = cluster_ip.filter(|ip| !ip.is_empty()) {
        access::set(&mut retained, &["spec", "clusterIP"], Value::from(ip))?;
    }
    Ok(Outcome::Retained(retained))
}

/// Healthy unless a LoadBalancer has no ingress with an IP or hostname yet.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let svc: Object<ServiceSpec, ServiceStatus> = decode(request.object())?;
    let is_lb = svc.spec.as_ref().and_then(|s| s.type_.as_deref()) == Some("LoadBalancer");
    if !is_lb {
        return Ok(Outcome::Healthy(true));
    }
    let healthy = svc
        .status
        .and_then(|s| s.load_balancer)
        .and_then(|lb| lb.ingress)
        .unwrap_or_default()
        .iter()
        .any(|i| {
            i.ip.as_deref().is_some_and(|s| !s.is_empty())
                || i.hostname.as_deref().is_some_and(|s| !s.is_empty())
        });
    Ok(Outcome::Healthy(healthy))
}
