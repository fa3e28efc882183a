//! Pod-template computations shared by the native built-ins and the Lua
//! `kube` module (`lua-environment.md` §7.2–7.3, `native-builtins.md`).
//!
//! MERGE NOTE: written on the `lua` branch so the `kube` module works; the
//! native branch owns pod-template requirements/dependencies. At merge keep
//! ONE implementation behind these two signatures (the `kube` module calls
//! nothing else):
//!
//! * `accurate_pod_requirements(template: &Value) -> Result<Option<ReplicaRequirements>, String>`
//! * `pod_dependencies(template: &Value, namespace: &str) -> Result<Vec<DependentObjectReference>, String>`
//!
//! Both read a pod template (`{metadata, spec}`) as JSON, leniently (absent
//! fields are empty), and fail only on type mismatches of the fields they
//! read.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{NodeSelector, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use serde_json::Value;

use crate::api::{DependentObjectReference, NodeClaim, ReplicaRequirements};
use crate::quantity::{Format, Quantity};

fn field<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    (!cur.is_null()).then_some(cur)
}

fn list<'a>(v: Option<&'a Value>, what: &str) -> Result<&'a [Value], String> {
    match v {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(format!("{what}: expected a list, got {other}")),
    }
}

fn str_at<'a>(v: &'a Value, path: &[&str], what: &str) -> Result<&'a str, String> {
    match field(v, path) {
        None => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("{what}: expected a string, got {other}")),
    }
}

/// Whether `name` is a resource the requirement sums count (§7.2 step 2).
fn counted(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage" | "pods")
        || name.starts_with("hugepages-")
        || name.starts_with("attachable-volumes-")
        || name.contains("kubernetes.io/")
        || (name.contains('/') && is_qualified_name(&format!("requests.{name}")))
}

/// Kubernetes qualified name: `[prefix/]name`, prefix a DNS subdomain.
pub fn is_qualified_name(s: &str) -> bool {
    let (prefix, name) = match s.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, s),
    };
    if let Some(p) = prefix {
        if p.is_empty() || p.len() > 253 || !p.split('.').all(is_dns_label) {
            return false;
        }
    }
    !name.is_empty() && name.len() <= 63 && is_name_part(name)
}

fn is_dns_label(l: &str) -> bool {
    !l.is_empty()
        && l.len() <= 63
        && l.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !l.starts_with('-')
        && !l.ends_with('-')
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
pub fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(first), Some(last)) = (b.first(), b.last()) else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && last.is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

type Totals = BTreeMap<String, i64>;

fn unit_value(name: &str, q: &Quantity) -> i64 {
    if name == "cpu" {
        q.milli_value_ceil()
    } else {
        q.value_ceil()
    }
}

fn effective_requests(container: &Value, what: &str) -> Result<Totals, String> {
    let mut out = Totals::new();
    let mut read = |key: &str, only_missing: bool| -> Result<(), String> {
        let Some(map) = field(container, &["resources", key]) else {
            return Ok(());
        };
        let Value::Object(map) = map else {
            return Err(format!("{what}.resources.{key}: expected a map, got {map}"));
        };
        for (name, v) in map {
            if !counted(name) || (only_missing && out.contains_key(name)) {
                continue;
            }
            if v.is_null() {
                continue;
            }
            let q = Quantity::from_json(v).map_err(|e| e.to_string())?;
            out.insert(name.clone(), unit_value(name, &q));
        }
        Ok(())
    };
    read("requests", false)?;
    read("limits", true)?;
    Ok(out)
}

/// Per-replica requirements of a pod template: node claim and summed
/// resource requests. `None` when there is neither (§7.2).
pub fn accurate_pod_requirements(template: &Value) -> Result<Option<ReplicaRequirements>, String> {
    let spec = field(template, &["spec"]).unwrap_or(&Value::Null);

    // node claim
    let node_selector: BTreeMap<String, String> = match field(spec, &["nodeSelector"]) {
        None => BTreeMap::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("nodeSelector: {e}"))?,
    };
    let tolerations: Vec<Toleration> = match field(spec, &["tolerations"]) {
        None => Vec::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("tolerations: {e}"))?,
    };
    let hard: Option<NodeSelector> = match field(
        spec,
        &[
            "affinity",
            "nodeAffinity",
            "requiredDuringSchedulingIgnoredDuringExecution",
        ],
    ) {
        None => None,
        Some(v) => Some(
            serde_json::from_value(v.clone()).map_err(|e| format!("affinity.nodeAffinity: {e}"))?,
        ),
    };
    let node_claim = (!node_selector.is_empty() || !tolerations.is_empty() || hard.is_some())
        .then_some(NodeClaim {
            hard_node_affinity: hard,
            node_selector,
            tolerations,
        });

    // requests
    let mut totals = Totals::new();
    for (i, c) in list(field(spec, &["containers"]), "containers")?
        .iter()
        .enumerate()
    {
        for (name, v) in effective_requests(c, &format!("containers[{i}]"))? {
            let t = totals.entry(name).or_insert(0);
            *t = t.saturating_add(v);
        }
    }
    for (i, c) in list(field(spec, &["initContainers"]), "initContainers")?
        .iter()
        .enumerate()
    {
        for (name, v) in effective_requests(c, &format!("initContainers[{i}]"))? {
            let t = totals.entry(name).or_insert(0);
            *t = (*t).max(v);
        }
    }
    if let Some(Value::Object(overhead)) = field(spec, &["overhead"]) {
        for (name, v) in overhead {
            if !counted(name) || v.is_null() {
                continue;
            }
            let q = Quantity::from_json(v).map_err(|e| e.to_string())?;
            let t = totals.entry(name.clone()).or_insert(0);
            *t = t.saturating_add(unit_value(name, &q));
        }
    }
    let mut resource_request = BTreeMap::new();
    for (name, total) in totals {
        if total <= 0 {
            continue;
        }
        let q = match name.as_str() {
            "cpu" => Quantity::from_milli(total, Format::DecimalSI),
            "memory" | "ephemeral-storage" => Quantity::from_int(total, Format::BinarySI),
            n if n.starts_with("hugepages-") => Quantity::from_int(total, Format::BinarySI),
            _ => Quantity::from_int(total, Format::DecimalSI),
        };
        resource_request.insert(name, K8sQuantity(q.to_canonical_string()));
    }
    if node_claim.is_none() && resource_request.is_empty() {
        return Ok(None);
    }
    Ok(Some(ReplicaRequirements {
        node_claim,
        resource_request,
        namespace: String::new(),
        priority_class_name: String::new(),
    }))
}

const SECRET_VOLUME_SOURCES: &[(&str, &[&str])] = &[
    ("azureFile", &["secretName"]),
    ("cephfs", &["secretRef", "name"]),
    ("cinder", &["secretRef", "name"]),
    ("flexVolume", &["secretRef", "name"]),
    ("projected", &[]),
    ("rbd", &["secretRef", "name"]),
    ("secret", &["secretName"]),
    ("scaleIO", &["secretRef", "name"]),
    ("iscsi", &["secretRef", "name"]),
    ("storageos", &["secretRef", "name"]),
    ("csi", &["nodePublishSecretRef", "name"]),
];

/// The ConfigMaps, Secrets, ServiceAccount and PersistentVolumeClaims a pod
/// template refers to (§7.3), kinds in that order, names sorted within a kind.
pub fn pod_dependencies(
    template: &Value,
    namespace: &str,
) -> Result<Vec<DependentObjectReference>, String> {
    let spec = field(template, &["spec"]).unwrap_or(&Value::Null);
    let mut config_maps = BTreeSet::new();
    let mut secrets = BTreeSet::new();
    let mut pvcs = BTreeSet::new();

    for kind in ["containers", "initContainers", "ephemeralContainers"] {
        for c in list(field(spec, &[kind]), kind)? {
            for e in list(field(c, &["envFrom"]), "envFrom")? {
                config_maps.insert(str_at(e, &["configMapRef", "name"], "envFrom")?.to_owned());
                secrets.insert(str_at(e, &["secretRef", "name"], "envFrom")?.to_owned());
            }
            for e in list(field(c, &["env"]), "env")? {
                config_maps.insert(
                    str_at(e, &["valueFrom", "configMapKeyRef", "name"], "env")?.to_owned(),
                );
                secrets
                    .insert(str_at(e, &["valueFrom", "secretKeyRef", "name"], "env")?.to_owned());
            }
        }
    }
    for s in list(field(spec, &["imagePullSecrets"]), "imagePullSecrets")? {
        secrets.insert(str_at(s, &["name"], "imagePullSecrets")?.to_owned());
    }
    for v in list(field(spec, &["volumes"]), "volumes")? {
        config_maps.insert(str_at(v, &["configMap", "name"], "volumes")?.to_owned());
        for src in list(field(v, &["projected", "sources"]), "projected.sources")? {
            config_maps.insert(str_at(src, &["configMap", "name"], "projected")?.to_owned());
        }
        if let Some((source, path)) = SECRET_VOLUME_SOURCES
            .iter()
            .find(|(source, _)| field(v, &[source]).is_some())
        {
            if *source == "projected" {
                for src in list(field(v, &["projected", "sources"]), "projected.sources")? {
                    secrets.insert(str_at(src, &["secret", "name"], "projected")?.to_owned());
                }
            } else {
                let mut full = vec![*source];
                full.extend_from_slice(path);
                secrets.insert(str_at(v, &full, "volumes")?.to_owned());
            }
        }
        pvcs.insert(str_at(v, &["persistentVolumeClaim", "claimName"], "volumes")?.to_owned());
    }
    let sa = str_at(spec, &["serviceAccountName"], "serviceAccountName")?;

    let mut out = Vec::new();
    let mut push = |kind: &str, name: &str| {
        if !name.is_empty() {
            out.push(DependentObjectReference::named("v1", kind, namespace, name));
        }
    };
    for n in &config_maps {
        push("ConfigMap", n);
    }
    for n in &secrets {
        push("Secret", n);
    }
    if sa != "default" {
        push("ServiceAccount", sa);
    }
    for n in &pvcs {
        push("PersistentVolumeClaim", n);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requirements_sum_containers_and_max_init() {
        let t = json!({"spec": {
            "nodeSelector": {"zone": "a"},
            "containers": [
                {"name": "a", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}},
                {"name": "b", "resources": {"limits": {"cpu": "1200m", "foo": "3", "nvidia.com/gpu": "1"}}}
            ],
            "initContainers": [{"name": "i", "resources": {"requests": {"memory": "1Gi"}}}]
        }});
        let r = accurate_pod_requirements(&t).unwrap().unwrap();
        let got: BTreeMap<_, _> = r
            .resource_request
            .iter()
            .map(|(k, v)| (k.as_str(), v.0.as_str()))
            .collect();
        assert_eq!(
            got,
            BTreeMap::from([("cpu", "1300m"), ("memory", "1Gi"), ("nvidia.com/gpu", "1")])
        );
        assert_eq!(r.node_claim.unwrap().node_selector["zone"], "a");
    }

    #[test]
    fn requirements_none_for_empty_template() {
        assert_eq!(
            accurate_pod_requirements(&json!({"spec": {"containers": [{"name": "x"}]}})).unwrap(),
            None
        );
    }

    #[test]
    fn dependencies_by_kind() {
        let t = json!({"spec": {
            "serviceAccountName": "sa",
            "imagePullSecrets": [{"name": "pull"}],
            "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "cm"}}],
                            "env": [{"name": "x", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}],
            "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "pvc"}},
                        {"name": "w", "secret": {"secretName": "s2"}}]
        }});
        let deps = pod_dependencies(&t, "ns").unwrap();
        let got: Vec<(String, String)> = deps.into_iter().map(|d| (d.kind, d.name)).collect();
        let want: Vec<(String, String)> = [
            ("ConfigMap", "cm"),
            ("Secret", "pull"),
            ("Secret", "s"),
            ("Secret", "s2"),
            ("ServiceAccount", "sa"),
            ("PersistentVolumeClaim", "pvc"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(got, want);
    }
}
