//! Objects a pod spec depends on and the
//! validation of dependency lists (Karmada's dependency validation).
//!
//! **Shared entry points.** The native `InterpretDependency` handlers and the
//! Lua `kube.getPodDependencies` use exactly this
//! code: [`pod_spec_dependencies`] on a typed [`PodSpec`],
//! [`pod_template_dependencies`] on a pod template given as JSON.
//!
//! ```
//! use karmada_interpreter::k8s::dependencies::pod_template_dependencies;
//!
//! let template = serde_json::json!({"spec": {
//!     "containers": [{"name": "a", "envFrom": [{"configMapRef": {"name": "settings"}}]}],
//!     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
//!     "serviceAccountName": "default",
//! }});
//! let deps = pod_template_dependencies(&template, "shop").unwrap();
//! let names: Vec<_> = deps.iter().map(|d| (d.kind.as_str(), d.name.as_str())).collect();
//! assert_eq!(names, [("ConfigMap", "settings"), ("PersistentVolumeClaim", "data")]);
//! assert!(deps.iter().all(|d| d.namespace == "shop"));
//! ```

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::PodSpec;
use serde_json::Value;

use super::error::{ObjectError, Result};
use super::field::{at, list, text};
use super::keep::Keep;
use super::normalize::{self, schema};
use super::object::describe;
use super::validation;
use crate::api::DependentObjectReference;

/// Names collected per group; sets give de-duplication and ascending order.
#[derive(Default)]
struct Names<'a> {
    config_maps: BTreeSet<&'a str>,
    secrets: BTreeSet<&'a str>,
    service_accounts: BTreeSet<&'a str>,
    claims: BTreeSet<&'a str>,
}

fn insert<'a>(set: &mut BTreeSet<&'a str>, name: &'a str) {
    if !name.is_empty() {
        set.insert(name);
    }
}

/// `name` of the reference object at `key` of `v`.
fn ref_name<'v>(v: Option<&'v Value>, key: &str) -> Option<&'v str> {
    at(v, key).map(|r| text(Some(r), "name"))
}

fn from_container<'a>(names: &mut Names<'a>, c: &'a Value) {
    let c = Some(c);
    for e in list(c, "envFrom") {
        if let Some(name) = ref_name(Some(e), "configMapRef") {
            insert(&mut names.config_maps, name);
        }
        if let Some(name) = ref_name(Some(e), "secretRef") {
            insert(&mut names.secrets, name);
        }
    }
    for e in list(c, "env") {
        let from = at(Some(e), "valueFrom");
        if let Some(name) = ref_name(from, "configMapKeyRef") {
            insert(&mut names.config_maps, name);
        }
        if let Some(name) = ref_name(from, "secretKeyRef") {
            insert(&mut names.secrets, name);
        }
    }
}

/// The secret a volume refers to: only the first present source among the
/// secret-bearing ones is examined.
fn volume_secrets<'a>(names: &mut Names<'a>, v: &'a Value) {
    let v = Some(v);
    let source = |key: &str| at(v, key).map(Some);
    let single: Option<&'a str> = if let Some(s) = source("azureFile") {
        Some(text(s, "secretName"))
    } else if let Some(s) = source("cephfs") {
        ref_name(s, "secretRef")
    } else if let Some(s) = source("cinder") {
        ref_name(s, "secretRef")
    } else if let Some(s) = source("flexVolume") {
        ref_name(s, "secretRef")
    } else if let Some(p) = source("projected") {
        for s in list(p, "sources") {
            if let Some(name) = ref_name(Some(s), "secret") {
                insert(&mut names.secrets, name);
            }
        }
        None
    } else if let Some(s) = source("rbd") {
        ref_name(s, "secretRef")
    } else if let Some(s) = source("secret") {
        at(s, "secretName").and_then(Value::as_str)
    } else if let Some(s) = source("scaleIO") {
        Some(ref_name(s, "secretRef").unwrap_or_default())
    } else if let Some(s) = source("iscsi") {
        ref_name(s, "secretRef")
    } else if let Some(s) = source("storageos") {
        ref_name(s, "secretRef")
    } else if let Some(s) = source("csi") {
        ref_name(s, "nodePublishSecretRef")
    } else {
        None
    };
    if let Some(name) = single {
        insert(&mut names.secrets, name);
    }
}

fn collect(spec: Option<&Value>) -> Names<'_> {
    let mut names = Names::default();
    for c in list(spec, "initContainers")
        .iter()
        .chain(list(spec, "containers"))
        .chain(list(spec, "ephemeralContainers"))
    {
        from_container(&mut names, c);
    }
    for r in list(spec, "imagePullSecrets") {
        insert(&mut names.secrets, text(Some(r), "name"));
    }
    for v in list(spec, "volumes") {
        if let Some(p) = at(Some(v), "projected") {
            for s in list(Some(p), "sources") {
                if let Some(name) = ref_name(Some(s), "configMap") {
                    insert(&mut names.config_maps, name);
                }
            }
        } else if let Some(name) = ref_name(Some(v), "configMap") {
            insert(&mut names.config_maps, name);
        }
        volume_secrets(&mut names, v);
        if let Some(pvc) = at(Some(v), "persistentVolumeClaim") {
            insert(&mut names.claims, text(Some(pvc), "claimName"));
        }
    }
    let sa = text(spec, "serviceAccountName");
    if sa != "default" {
        insert(&mut names.service_accounts, sa);
    }
    names
}

/// What [`dependencies_at`] reads of a pod spec: the containers'
/// `env`/`envFrom` references, image pull secrets, the volume sources that
/// name a ConfigMap, Secret or claim, and the service account. A handler
/// checks exactly these with [`normalize::check_reads`].
pub const POD_SPEC_DEPENDENCY_READS: Keep = Keep::Members(&[
    ("containers", CONTAINER_REFERENCES),
    ("ephemeralContainers", CONTAINER_REFERENCES),
    ("imagePullSecrets", NAME),
    ("initContainers", CONTAINER_REFERENCES),
    ("serviceAccountName", Keep::All),
    (
        "volumes",
        Keep::Members(&[
            ("azureFile", Keep::Members(&[("secretName", Keep::All)])),
            ("cephfs", SECRET_REF),
            ("cinder", SECRET_REF),
            ("configMap", NAME),
            ("csi", Keep::Members(&[("nodePublishSecretRef", NAME)])),
            ("flexVolume", SECRET_REF),
            ("iscsi", SECRET_REF),
            (
                "persistentVolumeClaim",
                Keep::Members(&[("claimName", Keep::All)]),
            ),
            (
                "projected",
                Keep::Members(&[(
                    "sources",
                    Keep::Members(&[("configMap", NAME), ("secret", NAME)]),
                )]),
            ),
            ("rbd", SECRET_REF),
            ("scaleIO", SECRET_REF),
            ("secret", Keep::Members(&[("secretName", Keep::All)])),
            ("storageos", SECRET_REF),
        ]),
    ),
]);

/// `name` of a reference.
const NAME: Keep = Keep::Members(&[("name", Keep::All)]);

/// `secretRef.name`.
const SECRET_REF: Keep = Keep::Members(&[("secretRef", NAME)]);

const CONTAINER_REFERENCES: Keep = Keep::Members(&[
    (
        "env",
        Keep::Members(&[(
            "valueFrom",
            Keep::Members(&[("configMapKeyRef", NAME), ("secretKeyRef", NAME)]),
        )]),
    ),
    (
        "envFrom",
        Keep::Members(&[("configMapRef", NAME), ("secretRef", NAME)]),
    ),
]);

/// Everything a pod with this spec (JSON; absent = empty) depends on, in
/// the namespace given. The spec must have passed
/// [`normalize::check_reads`] with [`POD_SPEC_DEPENDENCY_READS`] (or a whole
/// check): field types are not checked again.
pub fn dependencies_at(spec: Option<&Value>, namespace: &str) -> Vec<DependentObjectReference> {
    let names = collect(spec);
    let groups = [
        ("ConfigMap", &names.config_maps),
        ("Secret", &names.secrets),
        ("ServiceAccount", &names.service_accounts),
        ("PersistentVolumeClaim", &names.claims),
    ];
    groups
        .into_iter()
        .flat_map(|(kind, set)| {
            set.iter()
                .map(move |name| DependentObjectReference::named("v1", kind, namespace, name))
        })
        .collect()
}

/// Everything a pod with this spec depends on, in the namespace given
/// (empty → references without namespace): ConfigMaps, then Secrets, then
/// the ServiceAccount, then PersistentVolumeClaims; each group de-duplicated
/// and in ascending name order.
pub fn pod_spec_dependencies(spec: &PodSpec, namespace: &str) -> Vec<DependentObjectReference> {
    let spec = serde_json::to_value(spec).unwrap_or_default();
    dependencies_at(Some(&spec), namespace)
}

/// [`pod_spec_dependencies`] of a pod template given as JSON
/// (`{"metadata": …, "spec": …}`; only `spec` matters, the template's own
/// namespace is not used). The template is typed-checked first.
pub fn pod_template_dependencies(
    template: &Value,
    namespace: &str,
) -> Result<Vec<DependentObjectReference>> {
    let object = serde_json::json!({"kind": "PodTemplateSpec"});
    normalize::check(&object, "", template, &schema::POD_TEMPLATE_SPEC)?;
    Ok(dependencies_at(template.get("spec"), namespace))
}

/// Checks every reference of a dependency result of `object` (Karmada's
/// `VerifyDependencies`, see [`validation::validate_dependencies`]).
pub fn verify_dependencies(object: &Value, deps: &[DependentObjectReference]) -> Result<()> {
    validation::validate_dependencies(deps).map_err(|source| ObjectError::Rules {
        object: describe(object),
        field: "dependencies".to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
    use serde_json::json;

    fn deps(spec: Value) -> Vec<(String, String)> {
        pod_template_dependencies(&json!({ "spec": spec }), "ns")
            .unwrap()
            .into_iter()
            .map(|d| (d.kind, d.name))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, n)| (k.to_string(), n.to_string()))
            .collect()
    }

    #[test]
    fn every_source_is_collected_once_in_group_order() {
        let got = deps(json!({
        "initContainers": [{"name": "i", "env": [{"name": "A", "valueFrom": {"secretKeyRef": {"name": "s-env", "key": "k"}}}]}],
        "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "cm-b"}}, {"secretRef": {"name": "s-from"}}],
            "env": [{"name": "B", "valueFrom": {"configMapKeyRef": {"name": "cm-a", "key": "k"}}}]}],
        "ephemeralContainers": [{"name": "e", "envFrom": [{"configMapRef": {"name": "cm-b"}}]}],
        "imagePullSecrets": [{"name": "pull"}, {"name": ""}],
        "serviceAccountName": "robot",
        "volumes": [
            {"name": "v1", "configMap": {"name": "cm-vol"}},
            {"name": "v2", "projected": {"sources": [{"configMap": {"name": "cm-proj"}}, {"secret": {"name": "s-proj"}}]}},
            {"name": "v3", "secret": {"secretName": "s-vol"}},
            {"name": "v4", "persistentVolumeClaim": {"claimName": "data"}},
            {"name": "v5", "csi": {"driver": "d", "nodePublishSecretRef": {"name": "s-csi"}}}
        ]}));
        assert_eq!(
            got,
            pairs(&[
                ("ConfigMap", "cm-a"),
                ("ConfigMap", "cm-b"),
                ("ConfigMap", "cm-proj"),
                ("ConfigMap", "cm-vol"),
                ("Secret", "pull"),
                ("Secret", "s-csi"),
                ("Secret", "s-env"),
                ("Secret", "s-from"),
                ("Secret", "s-proj"),
                ("Secret", "s-vol"),
                ("ServiceAccount", "robot"),
                ("PersistentVolumeClaim", "data"),
            ])
        );
    }

    #[test]
    fn only_the_first_secret_source_counts_and_projected_shadows_config_map() {
        let got = deps(json!({"volumes": [
            {"name": "v", "cephfs": {"monitors": []}, "secret": {"secretName": "ignored"},
             "projected": {"sources": [{"configMap": {"name": "p"}}]}, "configMap": {"name": "shadowed"}}]}));
        assert_eq!(got, pairs(&[("ConfigMap", "p")]));
    }

    #[test]
    fn validation_rejects_empty_names_and_bad_selectors() {
        let obj = json!({"kind": "X"});
        let ok = DependentObjectReference::named("v1", "Secret", "ns", "a");
        assert!(verify_dependencies(&obj, &[ok]).is_ok());
        let empty = DependentObjectReference::named("v1", "Secret", "ns", "");
        assert!(verify_dependencies(&obj, &[empty]).is_err());
        let mut sel = DependentObjectReference::named("v1", "EndpointSlice", "ns", "");
        sel.label_selector = Some(LabelSelector {
            match_labels: Some(
                [(
                    "kubernetes.io/service-name".to_owned(),
                    "derived-".to_owned(),
                )]
                .into(),
            ),
            ..Default::default()
        });
        let e = verify_dependencies(&obj, &[sel]).unwrap_err().to_string();
        assert!(e.starts_with("X <unnamed>: field `dependencies`: dependencies[0].labelSelector.matchLabels: Invalid value: \"derived-\""), "{e}");
    }
}
