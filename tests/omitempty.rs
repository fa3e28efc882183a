//! Typed results are written as Karmada's Go types write them: a member
//! tagged `omitempty` is left out when empty (`""`, `0`, `false`, an empty
//! list or map, absent), the others are always written.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Toleration,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
use karmada_interpreter::api::{
    AggregatedStatusItem, Component, ComponentReplicaRequirements, DependentObjectReference,
    NodeClaim, ReplicaRequirements, RequestStatus, ResourceHealth, ResourceInterpreterResponse,
};
use karmada_interpreter::{load, Interpreter};
use rstest::rstest;
use serde_json::{json, Value};

/// A toleration whose every text member is the empty string.
fn empty_toleration() -> Toleration {
    Toleration {
        key: Some(String::new()),
        operator: Some(String::new()),
        value: Some(String::new()),
        effect: Some(String::new()),
        toleration_seconds: None,
    }
}

/// A node selector with one term whose lists are present but empty, and
/// one requirement with empty `values`.
fn empty_node_selector() -> NodeSelector {
    NodeSelector {
        node_selector_terms: vec![
            NodeSelectorTerm {
                match_expressions: Some(Vec::new()),
                match_fields: Some(Vec::new()),
            },
            NodeSelectorTerm {
                match_expressions: Some(vec![NodeSelectorRequirement {
                    key: String::new(),
                    operator: String::new(),
                    values: Some(Vec::new()),
                }]),
                match_fields: None,
            },
        ],
    }
}

fn empty_node_claim() -> NodeClaim {
    NodeClaim {
        hard_node_affinity: Some(empty_node_selector()),
        node_selector: BTreeMap::new(),
        tolerations: vec![empty_toleration()],
    }
}

fn to_json<T: serde::Serialize>(v: T) -> Value {
    serde_json::to_value(v).unwrap()
}

#[rstest]
#[case::replica_requirements_all_empty(to_json(ReplicaRequirements::default()), json!({}))]
#[case::replica_requirements_empty_members(
    to_json(ReplicaRequirements { node_claim: Some(empty_node_claim()), ..Default::default() }),
    // nodeSelectorTerms has no omitempty; key/operator of a requirement neither.
    json!({"nodeClaim": {
        "hardNodeAffinity": {"nodeSelectorTerms": [{}, {"matchExpressions": [{"key": "", "operator": ""}]}]},
        "tolerations": [{}],
    }})
)]
#[case::node_claim_empty(to_json(NodeClaim::default()), json!({}))]
#[case::toleration_seconds_zero_is_written(
    to_json(NodeClaim {
        tolerations: vec![Toleration { toleration_seconds: Some(0), operator: Some("Exists".into()), ..empty_toleration() }],
        ..Default::default()
    }),
    json!({"tolerations": [{"operator": "Exists", "tolerationSeconds": 0}]})
)]
#[case::component_name_and_replicas_always(to_json(Component::default()), json!({"name": "", "replicas": 0}))]
#[case::component_requirements_empty(
    to_json(Component {
        replica_requirements: Some(ComponentReplicaRequirements { node_claim: Some(NodeClaim::default()), ..Default::default() }),
        ..Default::default()
    }),
    json!({"name": "", "replicas": 0, "replicaRequirements": {"nodeClaim": {}}})
)]
#[case::dependency_empty(
    to_json(DependentObjectReference::default()),
    json!({"apiVersion": "", "kind": ""})
)]
#[case::dependency_empty_label_selector(
    to_json(DependentObjectReference {
        label_selector: Some(LabelSelector {
            match_labels: Some(BTreeMap::new()),
            match_expressions: Some(vec![LabelSelectorRequirement { key: "app".into(), operator: "Exists".into(), values: Some(Vec::new()) }]),
        }),
        ..Default::default()
    }),
    json!({"apiVersion": "", "kind": "", "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}})
)]
#[case::dependency_label_selector_without_members(
    to_json(DependentObjectReference {
        label_selector: Some(LabelSelector { match_labels: Some(BTreeMap::new()), match_expressions: Some(Vec::new()) }),
        ..Default::default()
    }),
    json!({"apiVersion": "", "kind": "", "labelSelector": {}})
)]
#[case::status_item_empty(
    to_json(AggregatedStatusItem { health: Some(ResourceHealth::Other(String::new())), ..Default::default() }),
    json!({"clusterName": ""})
)]
#[case::response_empty_lists(
    to_json(ResourceInterpreterResponse { components: Some(Vec::new()), dependencies: Some(Vec::new()), ..Default::default() }),
    json!({"uid": "", "successful": false})
)]
#[case::response_status_empty(to_json(RequestStatus::default()), json!({}))]
fn typed_results_omit_what_go_omits(#[case] written: Value, #[case] expected: Value) {
    assert_eq!(written, expected);
}

/// A toleration decoded from `operator: ""` keeps no `operator` when it
/// comes back written (decoding and writing agree).
#[test]
fn empty_members_read_back_are_not_written() {
    let claim: NodeClaim = serde_json::from_value(json!({
        "tolerations": [{"key": "k", "operator": "", "effect": "NoSchedule", "value": ""}]
    }))
    .unwrap();
    assert_eq!(
        to_json(claim),
        json!({"tolerations": [{"key": "k", "effect": "NoSchedule"}]})
    );
}

fn workload(tolerations: Value) -> Value {
    json!({
        "apiVersion": "workload.example.io/v1alpha1", "kind": "Workload",
        "metadata": {"name": "w", "namespace": "shop"},
        "spec": {"replicas": 2, "template": {"spec": {
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}],
            "tolerations": tolerations,
        }}},
    })
}

/// `kube.accuratePodRequirements` hands the script tolerations as Karmada
/// does: an empty `operator` is no member at all (`nil` in Lua).
#[test]
fn accurate_pod_requirements_omits_empty_toleration_members() {
    let customizations = load::customizations_from_str(
        r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: workload}
spec:
  target: {apiVersion: workload.example.io/v1alpha1, kind: Workload}
  customizations:
    statusReflection:
      luaScript: |
        local kube = require("kube")
        function ReflectStatus(obj)
          local r = kube.accuratePodRequirements(obj.spec.template)
          local t = r.nodeClaim.tolerations[1]
          return {operatorIsNil = t.operator == nil, valueIsNil = t.value == nil, toleration = t}
        end
"#,
        "workload.yaml",
    )
    .unwrap();
    let chain = Interpreter::builder()
        .customizations(customizations)
        .build()
        .unwrap();
    let object =
        workload(json!([{"key": "k", "operator": "", "value": "", "effect": "NoSchedule"}]));
    let status = chain.reflect_status(&object).unwrap().value.unwrap();
    assert_eq!(
        status,
        json!({"operatorIsNil": true, "valueIsNil": true, "toleration": {"key": "k", "effect": "NoSchedule"}})
    );
}

/// The native InterpretReplica of a Deployment writes its tolerations the
/// same way.
#[test]
fn native_replica_requirements_omit_empty_toleration_members() {
    let mut deployment = workload(json!([{"key": "k", "operator": "", "effect": ""}]));
    deployment["apiVersion"] = json!("apps/v1");
    deployment["kind"] = json!("Deployment");
    let answer = Interpreter::default().get_replicas(&deployment).unwrap();
    let written = to_json(answer.value.requirements.unwrap());
    assert_eq!(written["nodeClaim"], json!({"tolerations": [{"key": "k"}]}));
}
