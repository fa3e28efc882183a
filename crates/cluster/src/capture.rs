//! Reading what `karmada-interpreter capture` turns into golden cases:
//! objects of a kind, and, from a Karmada control plane, the per-cluster
//! status items of an object's ResourceBinding (`status.aggregatedStatus`
//! of `work.karmada.io/v1alpha2` ResourceBinding, or ClusterResourceBinding
//! for a cluster-scoped object). Redacting and writing the cases is the
//! golden crate's (`karmada_interpreter_golden::capture`).

use kube::api::{Api, ApiResource, DynamicObject, ListParams};
use kube::core::GroupVersionKind;
use serde_json::Value;

use karmada_interpreter::api::AggregatedStatusItem;

use crate::ClusterError;

/// Which objects to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// `group/version`, or `v1` for the core group.
    pub api_version: String,
    /// The kind.
    pub kind: String,
    /// The resource's plural name; by default guessed from the kind as
    /// Kubernetes does for most kinds (`Deployment` → `deployments`,
    /// `Ingress` → `ingresses`, `NetworkPolicy` → `networkpolicies`).
    pub plural: Option<String>,
    /// Only this namespace (all namespaces, or a cluster-scoped kind, when
    /// `None`).
    pub namespace: Option<String>,
    /// Only these names (every object when empty).
    pub names: Vec<String>,
    /// A label selector (`app=web,tier!=db`).
    pub label_selector: Option<String>,
}

impl Selection {
    fn resource(&self) -> ApiResource {
        let (group, version) = self
            .api_version
            .split_once('/')
            .unwrap_or(("", self.api_version.as_str()));
        let gvk = GroupVersionKind::gvk(group, version, &self.kind);
        match &self.plural {
            Some(plural) => ApiResource::from_gvk_with_plural(&gvk, plural),
            None => ApiResource::from_gvk(&gvk),
        }
    }
}

/// The objects `selection` names, each with its `apiVersion` and `kind`
/// (list items come without them), in the API server's order.
pub async fn read_objects(
    client: &kube::Client,
    selection: &Selection,
) -> Result<Vec<Value>, ClusterError> {
    let resource = selection.resource();
    let api: Api<DynamicObject> = match &selection.namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    };
    let mut params = ListParams::default();
    if let Some(selector) = &selection.label_selector {
        params = params.labels(selector);
    }
    let list = api
        .list(&params)
        .await
        .map_err(|source| ClusterError::Api {
            what: format!(
                "listing {} ({} {})",
                resource.plural, selection.api_version, selection.kind
            ),
            source,
        })?;
    let mut out = Vec::new();
    for item in list.items {
        let name = item.metadata.name.clone().unwrap_or_default();
        if !selection.names.is_empty() && !selection.names.contains(&name) {
            continue;
        }
        let mut value = serde_json::to_value(&item).map_err(|source| ClusterError::Decode {
            kind: "object",
            name: name.clone(),
            source,
        })?;
        if let Some(map) = value.as_object_mut() {
            map.insert(
                "apiVersion".into(),
                Value::String(selection.api_version.clone()),
            );
            map.insert("kind".into(), Value::String(selection.kind.clone()));
        }
        out.push(value);
    }
    Ok(out)
}

/// The name Karmada gives the binding of `kind` `name`
/// (`names.GenerateBindingName`: `name-kind` in lower case, `:` as `.`).
pub fn binding_name(kind: &str, name: &str) -> String {
    format!("{}-{kind}", name.replace(':', ".")).to_lowercase()
}

/// The binding of `object` and its status items: `(namespace/name of the
/// binding, items)`, or `None` when the control plane has no such binding.
/// A binding without status items gives an empty list (Karmada still calls
/// AggregateStatus).
pub async fn binding_status_items(
    client: &kube::Client,
    object: &Value,
) -> Result<Option<(String, Vec<AggregatedStatusItem>)>, ClusterError> {
    let meta = |f: &str| {
        object
            .pointer(&format!("/metadata/{f}"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    let (namespace, name) = (meta("namespace"), binding_name(kind, &meta("name")));
    let gvk = GroupVersionKind::gvk(
        "work.karmada.io",
        "v1alpha2",
        if namespace.is_empty() {
            "ClusterResourceBinding"
        } else {
            "ResourceBinding"
        },
    );
    let resource = ApiResource::from_gvk(&gvk);
    let api: Api<DynamicObject> = if namespace.is_empty() {
        Api::all_with(client.clone(), &resource)
    } else {
        Api::namespaced_with(client.clone(), &namespace, &resource)
    };
    let shown = if namespace.is_empty() {
        name.clone()
    } else {
        format!("{namespace}/{name}")
    };
    let Some(binding) = api
        .get_opt(&name)
        .await
        .map_err(|source| ClusterError::Api {
            what: format!("reading {} {shown}", gvk.kind),
            source,
        })?
    else {
        return Ok(None);
    };
    let items = binding
        .data
        .pointer("/status/aggregatedStatus")
        .filter(|v| !v.is_null())
        .map(|v| serde_json::from_value::<Vec<AggregatedStatusItem>>(v.clone()))
        .transpose()
        .map_err(|source| ClusterError::Decode {
            kind: "ResourceBinding",
            name: shown.clone(),
            source,
        })?
        .unwrap_or_default();
    Ok(Some((format!("{} {shown}", gvk.kind), items)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_names_follow_karmada() {
        assert_eq!(binding_name("Deployment", "Web"), "web-deployment");
        assert_eq!(
            binding_name("ClusterRole", "system:controller"),
            "system.controller-clusterrole"
        );
    }

    #[test]
    fn plurals_are_guessed_or_given() {
        let s = Selection {
            api_version: "networking.k8s.io/v1".into(),
            kind: "Ingress".into(),
            ..Selection::default()
        };
        assert_eq!(s.resource().plural, "ingresses");
        assert_eq!(s.resource().group, "networking.k8s.io");
        let s = Selection {
            api_version: "v1".into(),
            kind: "Widget".into(),
            plural: Some("widgetz".into()),
            ..Selection::default()
        };
        assert_eq!(s.resource().plural, "widgetz");
        assert_eq!(s.resource().group, "");
    }
}
