//! Pod-template helpers shared by the workload kinds: where the pod spec of
//! each kind lives, and the quantity checks typed decoding implies.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::api::core::v1::{
    DownwardAPIVolumeFile, EnvVar, PersistentVolumeClaimSpec, PodSpec, ResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::interpreter::describe;
use crate::quantity::Quantity;

/// A field path built on the stack and rendered only when an error needs it
/// (`spec.template.spec.containers[0].resources.requests.cpu`).
#[derive(Clone, Copy)]
pub(crate) struct FieldPath<'a> {
    parent: Option<&'a FieldPath<'a>>,
    segment: Segment<'a>,
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Raw(&'a str),
    Key(&'a str),
    Index(usize),
}

impl<'a> FieldPath<'a> {
    /// A path starting with `prefix` (already dotted).
    pub(crate) fn root(prefix: &'a str) -> Self {
        Self {
            parent: None,
            segment: Segment::Raw(prefix),
        }
    }

    /// `self.key`.
    pub(crate) fn key(&'a self, key: &'a str) -> FieldPath<'a> {
        FieldPath {
            parent: Some(self),
            segment: Segment::Key(key),
        }
    }

    /// `self[index]`.
    pub(crate) fn index(&'a self, index: usize) -> FieldPath<'a> {
        FieldPath {
            parent: Some(self),
            segment: Segment::Index(index),
        }
    }
}

impl fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        let empty_parent = match self.parent {
            None => true,
            Some(p) => matches!(p.segment, Segment::Raw("")) && p.parent.is_none(),
        };
        match self.segment {
            Segment::Raw(s) => f.write_str(s),
            Segment::Key(k) if empty_parent => f.write_str(k),
            Segment::Key(k) => write!(f, ".{k}"),
            Segment::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// Parses one quantity of a decoded object, naming `field` on failure.
pub(crate) fn parse_quantity(
    object: &Value,
    field: FieldPath<'_>,
    q: &K8sQuantity,
) -> Result<Quantity> {
    Quantity::parse(&q.0).map_err(|e| Error::InvalidField {
        object: describe(object),
        field: field.to_string(),
        reason: e.to_string(),
    })
}

fn check_list(
    object: &Value,
    at: FieldPath<'_>,
    list: Option<&BTreeMap<String, K8sQuantity>>,
) -> Result<()> {
    for (name, q) in list.into_iter().flatten() {
        parse_quantity(object, at.key(name), q)?;
    }
    Ok(())
}

fn check_resources(
    object: &Value,
    at: FieldPath<'_>,
    r: Option<&ResourceRequirements>,
) -> Result<()> {
    if let Some(r) = r {
        check_list(object, at.key("requests"), r.requests.as_ref())?;
        check_list(object, at.key("limits"), r.limits.as_ref())?;
    }
    Ok(())
}

fn check_env(object: &Value, at: FieldPath<'_>, env: Option<&Vec<EnvVar>>) -> Result<()> {
    let env_path = at.key("env");
    for (i, e) in env.into_iter().flatten().enumerate() {
        let divisor = e
            .value_from
            .as_ref()
            .and_then(|v| v.resource_field_ref.as_ref())
            .and_then(|r| r.divisor.as_ref());
        if let Some(d) = divisor {
            let item = env_path.index(i);
            let from = item.key("valueFrom");
            let r = from.key("resourceFieldRef");
            parse_quantity(object, r.key("divisor"), d)?;
        }
    }
    Ok(())
}

fn check_downward(
    object: &Value,
    at: FieldPath<'_>,
    items: Option<&Vec<DownwardAPIVolumeFile>>,
) -> Result<()> {
    let items_path = at.key("items");
    for (i, item) in items.into_iter().flatten().enumerate() {
        if let Some(d) = item
            .resource_field_ref
            .as_ref()
            .and_then(|r| r.divisor.as_ref())
        {
            let entry = items_path.index(i);
            let r = entry.key("resourceFieldRef");
            parse_quantity(object, r.key("divisor"), d)?;
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
    check_pvc_spec(object, FieldPath::root(prefix), spec)
}

fn check_pvc_spec(
    object: &Value,
    at: FieldPath<'_>,
    spec: &PersistentVolumeClaimSpec,
) -> Result<()> {
    if let Some(r) = &spec.resources {
        let res = at.key("resources");
        check_list(object, res.key("requests"), r.requests.as_ref())?;
        check_list(object, res.key("limits"), r.limits.as_ref())?;
    }
    Ok(())
}

/// Checks that every quantity-typed field of a pod spec (at `prefix` in
/// `object`) holds a valid Kubernetes quantity, as the reference's typed
/// decoding does: container, init-container, ephemeral-container and pod
/// resources, overhead, `emptyDir.sizeLimit`, generic ephemeral volume
/// claims and downward-API divisors.
pub(crate) fn check_quantities(object: &Value, prefix: &str, spec: &PodSpec) -> Result<()> {
    let root = FieldPath::root(prefix);
    let containers = root.key("containers");
    for (i, c) in spec.containers.iter().enumerate() {
        let p = containers.index(i);
        check_resources(object, p.key("resources"), c.resources.as_ref())?;
        check_env(object, p, c.env.as_ref())?;
    }
    let init = root.key("initContainers");
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        let p = init.index(i);
        check_resources(object, p.key("resources"), c.resources.as_ref())?;
        check_env(object, p, c.env.as_ref())?;
    }
    let ephemeral = root.key("ephemeralContainers");
    for (i, c) in spec.ephemeral_containers.iter().flatten().enumerate() {
        let p = ephemeral.index(i);
        check_resources(object, p.key("resources"), c.resources.as_ref())?;
        check_env(object, p, c.env.as_ref())?;
    }
    check_list(object, root.key("overhead"), spec.overhead.as_ref())?;
    check_resources(object, root.key("resources"), spec.resources.as_ref())?;
    let volumes = root.key("volumes");
    for (i, v) in spec.volumes.iter().flatten().enumerate() {
        let p = volumes.index(i);
        if let Some(limit) = v.empty_dir.as_ref().and_then(|e| e.size_limit.as_ref()) {
            let dir = p.key("emptyDir");
            parse_quantity(object, dir.key("sizeLimit"), limit)?;
        }
        if let Some(t) = v
            .ephemeral
            .as_ref()
            .and_then(|e| e.volume_claim_template.as_ref())
        {
            let e = p.key("ephemeral");
            let t_path = e.key("volumeClaimTemplate");
            check_pvc_spec(object, t_path.key("spec"), &t.spec)?;
        }
        if let Some(d) = &v.downward_api {
            check_downward(object, p.key("downwardAPI"), d.items.as_ref())?;
        }
        let sources = p.key("projected");
        let sources = sources.key("sources");
        for (j, s) in v
            .projected
            .iter()
            .flat_map(|p| p.sources.iter().flatten())
            .enumerate()
        {
            if let Some(d) = &s.downward_api {
                let src = sources.index(j);
                check_downward(object, src.key("downwardAPI"), d.items.as_ref())?;
            }
        }
    }
    Ok(())
}
