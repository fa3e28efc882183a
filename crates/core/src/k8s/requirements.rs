//! Per-replica requirements of a pod spec.
//!
//! **Shared entry points.** The native `InterpretReplica` handlers and the
//! Lua `kube` module (`kube.accuratePodRequirements`, `kube.resourceAdd`)
//! use exactly this code:
//!
//! - [`pod_spec_requirements`]: requirements of a typed [`PodSpec`];
//! - [`pod_template_requirements`]: the same from a pod template as JSON
//!   (`{"metadata": …, "spec": …}`), typed-decoded first;
//! - [`resource_add`]: exact quantity sum with `kube.resourceAdd`'s format rule.
//!
//! ```
//! use karmada_interpreter::k8s::requirements::{pod_template_requirements, RequirementsOptions};
//!
//! let template = serde_json::json!({"spec": {
//!     "containers": [
//!         {"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
//!         {"name": "b", "resources": {"limits": {"cpu": "1", "memory": "128Mi"}}},
//!     ],
//!     "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "2", "memory": "32Mi"}}}],
//!     "overhead": {"cpu": "100m", "memory": "10Mi"},
//! }});
//! let r = pod_template_requirements(&template, RequirementsOptions::default()).unwrap().unwrap();
//! assert_eq!(r.resource_request["cpu"].0, "2100m");
//! assert_eq!(r.resource_request["memory"].0, "202Mi");
//! assert!(r.node_claim.is_none());
//! ```

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodSpec;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use serde_json::Value;

use super::error::{ObjectError, Result};
use super::field::{at, list, map};
use super::keep::Keep;
use super::normalize::{self, schema, Ty};
use super::object::describe;
use super::path::FieldPath;
use super::quantity::{Format, Quantity, QuantityError};
use super::validation::{is_dns1123_subdomain, is_qualified_name};
use crate::api::{NodeClaim, ReplicaRequirements};

/// Switches that change the requirements computed (Karmada feature gates).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequirementsOptions {
    /// Karmada's `ResourceQuotaEstimate` feature gate (default off): when on,
    /// `priorityClassName` is copied from the pod spec.
    pub resource_quota_estimate: bool,
}

/// How a resource is measured and rendered: CPU in millicores, byte sizes in
/// binary units, everything else as whole decimal counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measure {
    /// CPU: millicores, rendered decimal from millis.
    Milli,
    /// Bytes (memory, ephemeral storage, hugepages): whole units, binary format.
    Binary,
    /// Counts and other scalar resources: whole units, decimal format.
    Decimal,
}

fn measure_of(name: &str) -> Option<Measure> {
    match name {
        "cpu" => Some(Measure::Milli),
        "memory" | "ephemeral-storage" => Some(Measure::Binary),
        "pods" => Some(Measure::Decimal),
        _ if name.starts_with("hugepages-") => Some(Measure::Binary),
        _ if is_scalar_resource_name(name) => Some(Measure::Decimal),
        _ => None,
    }
}

/// Kubernetes' scalar resource names: hugepages, attachable volumes,
/// `kubernetes.io/`-prefixed names and extended resources.
fn is_scalar_resource_name(name: &str) -> bool {
    name.starts_with("hugepages-")
        || name.starts_with("attachable-volumes-")
        || name.contains("kubernetes.io/")
        || is_extended_resource_name(name)
}

fn is_extended_resource_name(name: &str) -> bool {
    if !name.contains('/') || name.contains("kubernetes.io/") || name.starts_with("requests.") {
        return false;
    }
    // `requests.<name>` must be a qualified name; "requests" is itself a
    // valid DNS label, so only the rest needs checking (without allocating).
    match name.split_once('/') {
        Some((prefix, rest)) => {
            "requests.".len() + prefix.len() <= 253
                && is_dns1123_subdomain(prefix)
                && !rest.contains('/')
                && is_qualified_name(rest)
        }
        None => false,
    }
}

/// Where the pod spec sits in the object, for error messages.
struct Ctx<'a> {
    object: &'a Value,
    prefix: &'a str,
}

impl Ctx<'_> {
    fn measure(&self, field: FieldPath<'_>, q: &Value, m: Measure) -> Result<i64> {
        // A `null` quantity is Go's zero value.
        if q.is_null() {
            return Ok(0);
        }
        let q = Quantity::from_json(q).map_err(|source| ObjectError::Quantity {
            object: describe(self.object),
            field: field.to_string(),
            source,
        })?;
        // Go's MilliValue()/Value(), as Karmada's `util.Resource` reads a
        // request: a value beyond the 64-bit range is 0 or wrapped, as Go
        // gives it.
        Ok(match m {
            Measure::Milli => q.milli_value(),
            Measure::Binary | Measure::Decimal => q.value(),
        })
    }

    /// Effective per-container requests: requests, plus limits for names
    /// without a request; only measured names, as (name, measure, value).
    fn container_requests<'r>(
        &self,
        at_path: FieldPath<'_>,
        r: Option<&'r Value>,
        out: &mut Vec<(&'r str, Measure, i64)>,
    ) -> Result<()> {
        out.clear();
        let requested = map(r, "requests");
        let requests = at_path.key("requests");
        for (name, q) in requested.into_iter().flatten() {
            if let Some(m) = measure_of(name) {
                out.push((name, m, self.measure(requests.key(name), q, m)?));
            }
        }
        let limits = at_path.key("limits");
        for (name, q) in map(r, "limits").into_iter().flatten() {
            if requested.is_some_and(|req| req.contains_key(name)) {
                continue;
            }
            if let Some(m) = measure_of(name) {
                out.push((name, m, self.measure(limits.key(name), q, m)?));
            }
        }
        Ok(())
    }

    fn resource_request(&self, spec: Option<&Value>) -> Result<BTreeMap<String, K8sQuantity>> {
        let root = FieldPath::root(self.prefix);
        let mut totals: BTreeMap<&str, (Measure, i64)> = BTreeMap::new();
        let mut scratch = Vec::new();
        // Regular containers add up; each init container raises a total to
        // its own request when that is larger. As in Karmada's
        // `util.Resource`, totals are Go int64s: a sum beyond the range
        // wraps, and a total that is not positive is left out below.
        for (key, sum) in [("containers", true), ("initContainers", false)] {
            let base = root.key(key);
            for (i, c) in list(spec, key).iter().enumerate() {
                let path = base.index(i);
                self.container_requests(
                    path.key("resources"),
                    at(Some(c), "resources"),
                    &mut scratch,
                )?;
                for &(name, m, v) in &scratch {
                    let slot = totals.entry(name).or_insert((m, 0));
                    slot.1 = if sum {
                        slot.1.wrapping_add(v)
                    } else {
                        slot.1.max(v)
                    };
                }
            }
        }
        let overhead = root.key("overhead");
        for (name, q) in map(spec, "overhead").into_iter().flatten() {
            if let Some(m) = measure_of(name) {
                let v = self.measure(overhead.key(name), q, m)?;
                let slot = totals.entry(name).or_insert((m, 0));
                slot.1 = slot.1.wrapping_add(v);
            }
        }
        Ok(totals
            .into_iter()
            .filter(|(_, (_, v))| *v > 0)
            .map(|(name, (m, v))| {
                let q = match m {
                    Measure::Milli => Quantity::from_milli(v, Format::DecimalSI),
                    Measure::Binary => Quantity::from_int(v, Format::BinarySI),
                    Measure::Decimal => Quantity::from_int(v, Format::DecimalSI),
                };
                (name.to_owned(), K8sQuantity(q.to_canonical_string()))
            })
            .collect())
    }

    /// A part of the pod spec as its typed value (Go's decoding: nulls and
    /// unknown keys dropped). The path is rendered only for an error.
    fn typed<T: serde::de::DeserializeOwned>(
        &self,
        path: &FieldPath<'_>,
        value: &Value,
        ty: &'static Ty,
    ) -> Result<T> {
        let decoded = normalize::decode_at(self.object, *path, value, ty, false)?;
        // Read where it is (a decode that changed nothing borrows the input).
        T::deserialize(&*decoded)
            .map_err(|e| ObjectError::field(self.object, path.to_string(), e.to_string()))
    }

    fn node_claim(&self, spec: Option<&Value>) -> Result<Option<NodeClaim>> {
        let selector = map(spec, "nodeSelector");
        let hard = at(
            at(at(spec, "affinity"), "nodeAffinity"),
            "requiredDuringSchedulingIgnoredDuringExecution",
        );
        let tolerations = list(spec, "tolerations");
        if selector.is_none() && hard.is_none() && tolerations.is_empty() {
            return Ok(None);
        }
        let root = FieldPath::root(self.prefix);
        let hard_node_affinity = match hard {
            Some(h) => {
                let affinity = root.key("affinity");
                let node = affinity.key("nodeAffinity");
                let path = node.key("requiredDuringSchedulingIgnoredDuringExecution");
                Some(self.typed(&path, h, &schema::NODE_SELECTOR)?)
            }
            None => None,
        };
        let mut typed_tolerations = Vec::with_capacity(tolerations.len());
        let at_tolerations = root.key("tolerations");
        for (i, t) in tolerations.iter().enumerate() {
            typed_tolerations.push(self.typed(&at_tolerations.index(i), t, &schema::TOLERATION)?);
        }
        Ok(Some(NodeClaim {
            hard_node_affinity,
            // A `null` value is Go's zero value, the empty string.
            node_selector: selector
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect(),
            tolerations: typed_tolerations,
        }))
    }
}

/// What [`requirements_at`] reads of a pod spec: the containers' and init
/// containers' requests and limits, the overhead, the node claim (node
/// selector, required node affinity, tolerations) and the priority class.
/// A handler checks exactly these with [`normalize::check_reads`].
pub const POD_SPEC_REQUIREMENT_READS: Keep = Keep::Members(&[
    (
        "affinity",
        Keep::Members(&[(
            "nodeAffinity",
            Keep::Members(&[("requiredDuringSchedulingIgnoredDuringExecution", Keep::All)]),
        )]),
    ),
    ("containers", CONTAINER_RESOURCES),
    ("initContainers", CONTAINER_RESOURCES),
    ("nodeSelector", Keep::All),
    ("overhead", Keep::All),
    ("priorityClassName", Keep::All),
    ("tolerations", Keep::All),
]);

const CONTAINER_RESOURCES: Keep = Keep::Members(&[(
    "resources",
    Keep::Members(&[("limits", Keep::All), ("requests", Keep::All)]),
)]);

/// Requirements of the pod spec `spec` (JSON, absent = empty) found at
/// `prefix` in `object` (for errors). The spec must have passed
/// [`normalize::check_reads`] with [`POD_SPEC_REQUIREMENT_READS`] (or a
/// whole check): field types are not checked again, only quantities are
/// parsed.
pub fn requirements_at(
    object: &Value,
    prefix: &str,
    spec: Option<&Value>,
    options: RequirementsOptions,
) -> Result<Option<ReplicaRequirements>> {
    let ctx = Ctx { object, prefix };
    let resource_request = ctx.resource_request(spec)?;
    let node_claim = ctx.node_claim(spec)?;
    if node_claim.is_none() && resource_request.is_empty() {
        return Ok(None);
    }
    Ok(Some(ReplicaRequirements {
        node_claim,
        resource_request,
        namespace: String::new(),
        priority_class_name: if options.resource_quota_estimate {
            at(spec, "priorityClassName")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        } else {
            String::new()
        },
    }))
}

/// What one replica of a pod with this spec needs: the node claim
/// (node selector, required node affinity, tolerations) and the resource
/// request (containers summed, init containers maxed, limits standing in for
/// missing requests, overhead added). `None` when there is neither.
///
/// Errors name the field (`containers[0].resources.requests.cpu`) of a
/// quantity that does not parse.
pub fn pod_spec_requirements(
    spec: &PodSpec,
    options: RequirementsOptions,
) -> Result<Option<ReplicaRequirements>> {
    let object = serde_json::json!({"kind": "PodSpec"});
    let spec = serde_json::to_value(spec)
        .map_err(|e| ObjectError::field(&object, "spec", e.to_string()))?;
    requirements_at(&object, "spec", Some(&spec), options)
}

/// [`pod_spec_requirements`] of a pod template given as JSON
/// (`{"metadata": …, "spec": …}`; only `spec` matters). The template is
/// typed-checked first; an error names the field.
pub fn pod_template_requirements(
    template: &Value,
    options: RequirementsOptions,
) -> Result<Option<ReplicaRequirements>> {
    let object = serde_json::json!({"kind": "PodTemplateSpec"});
    normalize::check(&object, "", template, &schema::POD_TEMPLATE_SPEC)?;
    requirements_at(&object, "spec", template.get("spec"), options)
}

/// The exact sum of quantities, `None` counting as zero, rendered
/// canonically (`kube.resourceAdd`). The sum takes
/// the format of the argument added while the running total was exactly
/// zero; no arguments (or only `None`) give `"0"`.
///
/// ```
/// use karmada_interpreter::k8s::requirements::resource_add;
///
/// assert_eq!(resource_add([Some("1"), Some("500m")]).unwrap(), "1500m");
/// assert_eq!(resource_add([Some("1Gi"), Some("512Mi")]).unwrap(), "1536Mi");
/// assert_eq!(resource_add([Some("0"), Some("4Gi")]).unwrap(), "4Gi");
/// assert_eq!(resource_add([None, Some("2")]).unwrap(), "2");
/// ```
pub fn resource_add<'a>(
    quantities: impl IntoIterator<Item = Option<&'a str>>,
) -> std::result::Result<String, QuantityError> {
    let mut total = Quantity::zero();
    for q in quantities.into_iter().flatten() {
        // Go `Add`: a zero total takes the format of what is added to it.
        total = &total + &Quantity::parse(q)?;
    }
    Ok(total.to_canonical_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reqs(spec: Value) -> Option<ReplicaRequirements> {
        pod_template_requirements(&json!({ "spec": spec }), RequirementsOptions::default()).unwrap()
    }

    #[test]
    fn resource_names_are_classified_like_kubernetes() {
        assert!(is_extended_resource_name("nvidia.com/gpu"));
        assert!(is_extended_resource_name("example.com/foo"));
        assert!(!is_extended_resource_name("Example.com/gpu"));
        assert!(!is_extended_resource_name("foo"));
        assert!(!is_extended_resource_name("kubernetes.io/foo"));
        assert!(!is_extended_resource_name("a/b/c"));
        assert!(!is_extended_resource_name("/gpu"));
        assert!(!is_extended_resource_name("example.com/"));
        assert!(!is_extended_resource_name("requests.example.com/x"));
        assert_eq!(
            is_extended_resource_name("example.com/x"),
            is_qualified_name("requests.example.com/x")
        );
        assert_eq!(measure_of("storage"), None);
        assert_eq!(measure_of("hugepages-2Mi"), Some(Measure::Binary));
        assert_eq!(
            measure_of("attachable-volumes-aws-ebs"),
            Some(Measure::Decimal)
        );
        assert_eq!(
            measure_of("example.kubernetes.io/x"),
            Some(Measure::Decimal)
        );
    }

    #[test]
    fn spec_example_with_init_containers_and_overhead() {
        let r = reqs(json!({
            "containers": [
                {"name": "c1", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}},
                {"name": "c2", "resources": {"limits": {"cpu": "1", "memory": "128Mi"}}}],
            "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "2", "memory": "32Mi"}}}],
            "overhead": {"cpu": "100m", "memory": "10Mi"}}))
        .unwrap();
        assert_eq!(r.resource_request["cpu"].0, "2100m");
        assert_eq!(r.resource_request["memory"].0, "202Mi");
    }

    #[test]
    fn node_claim_nullness() {
        assert_eq!(reqs(json!({"containers": [], "tolerations": []})), None);
        let r = reqs(json!({"containers": [], "nodeSelector": {}})).unwrap();
        assert_eq!(r.node_claim, Some(NodeClaim::default()));
        let r = reqs(json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}}}))
            .unwrap();
        assert!(r.node_claim.unwrap().hard_node_affinity.is_some());
    }

    #[test]
    fn zero_and_negative_totals_are_dropped_and_bad_quantities_named() {
        assert_eq!(
            reqs(
                json!({"containers": [{"name": "a", "resources": {"requests": {"cpu": "0", "memory": "-1"}}}]})
            ),
            None
        );
        let err = pod_template_requirements(
            &json!({"spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "x"}}}]}}),
            RequirementsOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("spec.containers[0].resources.limits.cpu"),
            "{err}"
        );
    }

    #[test]
    fn priority_class_only_with_the_gate() {
        let t = json!({"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}], "priorityClassName": "high"}});
        let off = pod_template_requirements(&t, RequirementsOptions::default())
            .unwrap()
            .unwrap();
        assert_eq!(off.priority_class_name, "");
        let on = pod_template_requirements(
            &t,
            RequirementsOptions {
                resource_quota_estimate: true,
            },
        )
        .unwrap()
        .unwrap();
        assert_eq!(on.priority_class_name, "high");
    }
}
