//! networking.k8s.io/v1 Ingress: InterpretHealth (§9), InterpretDependency (§10.2).

use k8s_openapi::api::networking::v1::{IngressSpec, IngressStatus};

use super::decode::{decode, namespace_of, Object};
use super::dependencies::validate_dependencies;
use crate::api::DependentObjectReference;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// Healthy once some load-balancer ingress has an IP or hostname.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let ing: Object<IngressSpec, IngressStatus> = decode(request.object())?;
    let healthy = ing
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

/// One Secret per `spec.tls[]` entry, in order, not de-duplicated; an entry
/// without `secretName` fails validation.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let ing: Object<IngressSpec, IngressStatus> = decode(object)?;
    let namespace = namespace_of(&ing.metadata);
    let deps: Vec<DependentObjectReference> = ing
        .spec
        .iter()
        .flat_map(|s| s.tls.iter().flatten())
        .map(|tls| {
            let name = tls.secret_name.as_deref().unwrap_or("");
            DependentObjectReference::named("v1", "Secret", namespace, name)
        })
        .collect();
    validate_dependencies(object, &deps)?;
    Ok(Outcome::Dependencies(deps))
}
