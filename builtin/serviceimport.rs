//! multicluster.x-k8s.io/v1alpha1 ServiceImport: InterpretDependency (§10.3).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::SessionAffinityConfig;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde::Deserialize;

use super::decode::decode;
use super::dependencies::validate_dependencies;
use crate::api::DependentObjectReference;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// The MCS API schema (`sigs.k8s.io/mcs-api` v1alpha1), for typed decoding.
#[derive(Deserialize)]
#[allow(dead_code)]
struct ServiceImport {
    metadata: Option<ObjectMeta>,
    spec: Option<ServiceImportSpec>,
    status: Option<ServiceImportStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ServiceImportSpec {
    ports: Option<Vec<ServicePort>>,
    ips: Option<Vec<String>>,
    #[serde(rename = "type")]
    type_: Option<String>,
    session_affinity: Option<String>,
    session_affinity_config: Option<SessionAffinityConfig>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ServicePort {
    name: Option<String>,
    protocol: Option<String>,
    app_protocol: Option<String>,
    port: Option<i32>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ServiceImportStatus {
    clusters: Option<Vec<ClusterStatus>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct ClusterStatus {
    cluster: Option<String>,
}

/// The derived Service `derived-<name>` and its EndpointSlices (selected by
/// the `kubernetes.io/service-name` label), in the import's namespace.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let import: ServiceImport = decode(object)?;
    let metadata = import.metadata.unwrap_or_default();
    let derived = format!("derived-{}", metadata.name.as_deref().unwrap_or(""));
    let namespace = metadata.namespace.as_deref().unwrap_or("");
    let mut slices =
        DependentObjectReference::named("discovery.k8s.io/v1", "EndpointSlice", namespace, "");
    slices.label_selector = Some(LabelSelector {
        match_labels: Some(BTreeMap::from([(
            "kubernetes.io/service-name".to_owned(),
            derived.clone(),
        )])),
        match_expressions: None,
    });
    let deps = vec![
        DependentObjectReference::named("v1", "Service", namespace, &derived),
        slices,
    ];
    validate_dependencies(object, &deps)?;
    Ok(Outcome::Dependencies(deps))
}
