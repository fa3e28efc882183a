//! Pod-template helpers shared by the workload kinds: where the pod spec of
//! each kind lives, and the quantity checks typed decoding implies.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    DownwardAPIVolumeFile, EnvVar, PersistentVolumeClaimSpec, PodSpec, ResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::interpreter::describe;
use crate::quantity::Quantity;

/// Parses one quantity of a decoded object, naming `field` on failure.
pub(crate) fn parse_quantity(object: &Value, field: &str, q: &K8sQuantity) -> Result<Quantity> {
    Quantity::parse(&q.0).map_err(|e| Error::InvalidField {
        object: describe(object),
        field: field.to_owned(),
        reason: e.to_string(),
    })
}

fn check_list(
    object: &Value,
    prefix: &str,
    list: Option<&BTreeMap<String, K8sQuantity>>,
) -> Result<()> {
    for (name, q) in list.into_iter().flatten() {
        parse_quantity(object, &format!("{prefix}.{name}"), q)?;
    }
    Ok(())
}

fn check_resources(object: &Value, prefix: &str, r: Option<&ResourceRequirements>) -> Result<()> {
    if let Some(r) = r {
        check_list(object, &format!("{prefix}.requests"), r.requests.as_ref())?;
        check_list(object, &format!("{prefix}.limits"), r.limits.as_ref())?;
    }
    Ok(())
}

fn check_env(object: &Value, prefix: &str, env: Option<&Vec<EnvVar>>) -> Result<()> {
    for (i, e) in env.into_iter().flatten().enumerate() {
        let divisor = e
            .value_from
            .as_ref()
            .and_then(|v| v.resource_field_ref.as_ref())
            .and_then(|r| r.divisor.as_ref());
        if let Some(d) = divisor {
            let field = format!("{prefix}.env[{i}].valueFrom.resourceFieldRef.divisor");
            parse_quantity(object, &field, d)?;
        }
    }
    Ok(())
}

fn check_downward(
    object: &Value,
    prefix: &str,
    items: Option<&Vec<DownwardAPIVolumeFile>>,
) -> Result<()> {
    for (i, item) in items.into_iter().flatten().enumerate() {
        if let Some(d) = item
            .resource_field_ref
            .as_ref()
            .and_then(|r| r.divisor.as_ref())
        {
            let field = format!("{prefix}.items[{i}].resourceFieldRef.divisor");
            parse_quantity(object, &field, d)?;
        }
    }
    Ok(())
}

/// Checks the quantity-typed fields of a PVC spec at `prefix`.
pub(crate) fn check_pvc_spec_quantities(
    object: &Value,
    prefix: &str,
    spec: &PersistentVolumeClaimSpec,
) -> Result<()> {
    if let Some(r) = &spec.resources {
        check_list(
            object,
            &format!("{prefix}.resources.requests"),
            r.requests.as_ref(),
        )?;
        check_list(
            object,
            &format!("{prefix}.resources.limits"),
            r.limits.as_ref(),
        )?;
    }
    Ok(())
}

/// Checks that every quantity-typed field of a pod spec (at `prefix` in
/// `object`) holds a valid Kubernetes quantity, as the reference's typed
/// decoding does: container, init-container, ephemeral-container and pod
/// resources, overhead, `emptyDir.sizeLimit`, generic ephemeral volume
/// claims and downward-API divisors.
pub(crate) fn check_quantities(object: &Value, prefix: &str, spec: &PodSpec) -> Result<()> {
    for (i, c) in spec.containers.iter().enumerate() {
        let p = format!("{prefix}.containers[{i}]");
        check_resources(object, &format!("{p}.resources"), c.resources.as_ref())?;
        check_env(object, &p, c.env.as_ref())?;
    }
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        let p = format!("{prefix}.initContainers[{i}]");
        check_resources(object, &format!("{p}.resources"), c.resources.as_ref())?;
        check_env(object, &p, c.env.as_ref())?;
    }
    for (i, c) in spec.ephemeral_containers.iter().flatten().enumerate() {
        let p = format!("{prefix}.ephemeralContainers[{i}]");
        check_resources(object, &format!("{p}.resources"), c.resources.as_ref())?;
        check_env(object, &p, c.env.as_ref())?;
    }
    check_list(
        object,
        &format!("{prefix}.overhead"),
        spec.overhead.as_ref(),
    )?;
    check_resources(
        object,
        &format!("{prefix}.resources"),
        spec.resources.as_ref(),
    )?;
    for (i, v) in spec.volumes.iter().flatten().enumerate() {
        let p = format!("{prefix}.volumes[{i}]");
        if let Some(limit) = v.empty_dir.as_ref().and_then(|e| e.size_limit.as_ref()) {
            parse_quantity(object, &format!("{p}.emptyDir.sizeLimit"), limit)?;
        }
        if let Some(t) = v
            .ephemeral
            .as_ref()
            .and_then(|e| e.volume_claim_template.as_ref())
        {
            check_pvc_spec_quantities(
                object,
                &format!("{p}.ephemeral.volumeClaimTemplate.spec"),
                &t.spec,
            )?;
        }
        if let Some(d) = &v.downward_api {
            check_downward(object, &format!("{p}.downwardAPI"), d.items.as_ref())?;
        }
        for (j, s) in v
            .projected
            .iter()
            .flat_map(|p| p.sources.iter().flatten())
            .enumerate()
        {
            if let Some(d) = &s.downward_api {
                let q = format!("{p}.projected.sources[{j}].downwardAPI");
                check_downward(object, &q, d.items.as_ref())?;
            }
        }
    }
    Ok(())
}
