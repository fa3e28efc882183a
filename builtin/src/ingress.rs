//! networking.k8s.io/v1 Ingress: InterpretHealth, InterpretDependency.
//!
//! Status: AggregateStatus. InterpretStatus is
//! the whole-status reflection.

use super::status::{aggregate_load_balancer, Aggregated};
use super::workload::{check, NAMESPACE};
use karmada_interpreter_core::api::DependentObjectReference;
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{Outcome, Request};
use karmada_interpreter_core::k8s::dependencies::verify_dependencies;
use karmada_interpreter_core::k8s::field::{get, namespace};
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema;
use karmada_interpreter_core::k8s::normalize::schema::INGRESS;
use serde_json::Value;

/// What [`has_load_balancer_address`] reads (Ingress and Service alike).
pub(crate) const LOAD_BALANCER_READS: (&str, Keep) = (
    "status",
    Keep::Members(&[(
        "loadBalancer",
        Keep::Members(&[(
            "ingress",
            Keep::Members(&[("hostname", Keep::All), ("ip", Keep::All)]),
        )]),
    )]),
);

/// What InterpretHealth reads.
const HEALTH_READS: Keep = Keep::Members(&[LOAD_BALANCER_READS]);

/// What InterpretDependency reads.
const DEPENDENCY_READS: Keep = Keep::Members(&[
    NAMESPACE,
    (
        "spec",
        Keep::Members(&[("tls", Keep::Members(&[("secretName", Keep::All)]))]),
    ),
]);

/// Healthy once some load-balancer ingress has an IP or hostname.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let ing = request.object();
    check(ing, &INGRESS, HEALTH_READS)?;
    Ok(Outcome::Healthy(has_load_balancer_address(ing)))
}

/// One Secret per `spec.tls[]` entry, in order, not de-duplicated; an entry
/// without `secretName` fails validation.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &INGRESS, DEPENDENCY_READS)?;
    let namespace = namespace(object);
    let deps: Vec<DependentObjectReference> = get(object, &["spec", "tls"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|tls| {
            let name = get(tls, &["secretName"])
                .and_then(Value::as_str)
                .unwrap_or("");
            DependentObjectReference::named("v1", "Secret", namespace, name)
        })
        .collect();
    verify_dependencies(object, &deps)?;
    Ok(Outcome::Dependencies(deps))
}

/// Whether some `status.loadBalancer.ingress` entry of a checked object has
/// a non-empty `ip` or `hostname`.
pub(crate) fn has_load_balancer_address(object: &Value) -> bool {
    let non_empty = |entry: &Value, key: &str| {
        get(entry, &[key])
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    get(object, &["status", "loadBalancer", "ingress"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|i| non_empty(i, "ip") || non_empty(i, "hostname"))
}

/// The members' load-balancer ingress entries, merged and sorted.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    aggregate_load_balancer(request, &schema::INGRESS, &schema::INGRESS_STATUS, false)
}
