//! Karmada-shaped documents decode into the API types and encode back to the
//! same JSON: same member names, same optional members, same omissions.
//! One document per file under `tests/api/`; the file name's prefix picks the type.

use std::path::PathBuf;

use karmada_interpreter::api::*;
use rstest::rstest;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

fn round_trip<T: DeserializeOwned + Serialize>(original: &Value) -> Value {
    let typed: T = serde_json::from_value(original.clone()).expect("decodes");
    serde_json::to_value(&typed).expect("encodes")
}

#[rstest]
fn documents_round_trip(#[files("tests/api/*")] path: PathBuf) {
    let text = std::fs::read_to_string(&path).unwrap();
    let original = karmada_interpreter::yaml::from_str(&text).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap();
    let prefix = name.split('-').next().unwrap();
    let back = match prefix {
        "context" => round_trip::<ResourceInterpreterContext>(&original),
        "customization" => round_trip::<ResourceInterpreterCustomization>(&original),
        "webhookconfig" => round_trip::<ResourceInterpreterWebhookConfiguration>(&original),
        "statusitems" => round_trip::<Vec<AggregatedStatusItem>>(&original),
        "requirements" => round_trip::<ReplicaRequirements>(&original),
        "components" => round_trip::<Vec<Component>>(&original),
        "dependencies" => round_trip::<Vec<DependentObjectReference>>(&original),
        other => panic!("{name}: no type for prefix {other:?}"),
    };
    assert_eq!(back, original, "{name} changed in a round trip");
}

#[test]
fn request_example_decodes_to_the_documented_values() {
    let text = crate::support::read("tests/api/context-a-request.json");
    let ctx: ResourceInterpreterContext = serde_json::from_str(&text).unwrap();
    let req = ctx.request.unwrap();
    assert_eq!(req.operation, InterpreterOperation::InterpretReplica);
    assert_eq!(req.kind.group, "workload.example.io");
    assert_eq!(req.namespace, "shop");
    assert_eq!(req.replicas, 0);
    assert_eq!(req.object["spec"]["replicas"], 6);
}

#[test]
fn patch_is_base64_of_the_json_patch() {
    let text = crate::support::read("tests/api/context-b-response.json");
    let ctx: ResourceInterpreterContext = serde_json::from_str(&text).unwrap();
    let resp = ctx.response.unwrap();
    let patch: Value = serde_json::from_slice(&resp.patch.unwrap().0).unwrap();
    assert_eq!(
        patch,
        json!([{"op": "replace", "path": "/spec/replicas", "value": 2}])
    );
    assert_eq!(resp.patch_type, Some(PatchType::JsonPatch));
}

#[test]
fn failure_answer_keeps_message_and_code() {
    let text = crate::support::read("tests/api/context-d-response-failure.json");
    let resp = serde_json::from_str::<ResourceInterpreterContext>(&text)
        .unwrap()
        .response
        .unwrap();
    assert!(!resp.successful);
    let status = resp.status.unwrap();
    assert_eq!(
        (status.message.as_str(), status.code),
        ("spec.template is missing", 422)
    );
}

#[test]
fn empty_members_are_omitted_as_karmada_omits_them() {
    let item = AggregatedStatusItem {
        cluster_name: "m1".into(),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&item).unwrap(),
        json!({"clusterName": "m1"})
    );
    let resp = ResourceInterpreterResponse {
        uid: "u".into(),
        successful: true,
        status: Some(RequestStatus::default()),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&resp).unwrap(),
        json!({"uid": "u", "successful": true, "status": {}})
    );
    let comp = Component {
        name: "c".into(),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&comp).unwrap(),
        json!({"name": "c", "replicas": 0})
    );
    let req = ResourceInterpreterRequest {
        uid: "u".into(),
        kind: kube::core::GroupVersionKind::gvk("", "v1", "Pod"),
        name: String::new(),
        namespace: String::new(),
        operation: InterpreterOperation::InterpretHealth,
        object: json!({}),
        observed_object: None,
        replicas: 0,
        aggregated_status: vec![],
        #[cfg(feature = "karmada-next")]
        components: vec![],
    };
    assert_eq!(
        serde_json::to_value(&req).unwrap(),
        json!({"uid": "u", "kind": {"group": "", "version": "v1", "kind": "Pod"}, "name": "",
               "operation": "InterpretHealth", "object": {}, "replicas": 0})
    );
}

#[test]
fn wire_rules_are_enforced() {
    // Integers must be integers in int32 range.
    for bad in [json!(3.5), json!(3.0), json!(1u64 << 40)] {
        let r = serde_json::from_value::<ResourceInterpreterResponse>(
            json!({"uid": "u", "replicas": bad}),
        );
        assert!(r.is_err(), "{bad} accepted as replicas");
    }
    // Member names are case-sensitive; unknown members are ignored.
    let r: ResourceInterpreterResponse =
        serde_json::from_value(json!({"UID": "x", "uid": "u", "extra": 1})).unwrap();
    assert_eq!(r.uid, "u");
    // `null` is the same as absent.
    let r: ResourceInterpreterResponse =
        serde_json::from_value(json!({"uid": "u", "healthy": null, "rawStatus": null})).unwrap();
    assert_eq!((r.healthy, r.raw_status), (None, None));
    // The patch must be valid base64; any patchType string is kept for the client to judge.
    assert!(
        serde_json::from_value::<ResourceInterpreterResponse>(json!({"patch": "not base64!"}))
            .is_err()
    );
    let r: ResourceInterpreterResponse =
        serde_json::from_value(json!({"patchType": "MergePatch"})).unwrap();
    assert_eq!(r.patch_type, Some(PatchType::Other("MergePatch".into())));
    // Quantities may arrive as bare numbers.
    let r: ReplicaRequirements =
        serde_json::from_value(json!({"resourceRequest": {"cpu": 0.5}})).unwrap();
    assert_eq!(r.resource_request["cpu"].0, "0.5");
    assert!(serde_json::from_value::<ReplicaRequirements>(
        json!({"resourceRequest": {"cpu": true}})
    )
    .is_err());
}

#[test]
fn customization_scripts_by_operation() {
    let text = crate::support::read("tests/api/customization-all-rules.yaml");
    let docs = karmada_interpreter::load::customizations_from_str(&text, "test").unwrap();
    let c = &docs[0];
    // The file holds Karmada's released rules (no karmada-next profile's).
    for op in InterpreterOperation::ALL
        .into_iter()
        .filter(|op| !op.is_next())
    {
        let script = c.script(op).unwrap_or_else(|| panic!("{op} missing"));
        assert!(script.contains(op.lua_function()), "{op}: {script}");
    }
}

#[test]
fn webhook_config_example_decodes() {
    let text = crate::support::read("tests/api/webhookconfig-shop.yaml");
    let docs = karmada_interpreter::load::webhook_configurations_from_str(&text, "test").unwrap();
    let hooks = &docs[0].webhooks;
    assert_eq!(hooks.len(), 2);
    let svc = hooks[0].client_config.service.as_ref().unwrap();
    assert_eq!(
        (svc.name.as_str(), svc.port),
        ("workload-interpreter", Some(8443))
    );
    assert_eq!(hooks[0].timeout_seconds, Some(5));
    assert!(hooks[0]
        .client_config
        .ca_bundle
        .as_ref()
        .unwrap()
        .0
        .starts_with(b"-----BEGIN"));
    assert_eq!(
        hooks[1].interpreter_context_versions,
        vec!["v1beta9", "v1alpha1"]
    );
    assert!(hooks[1].rules[0].matches(
        "messaging.example.io",
        "v1",
        "Queue",
        InterpreterOperation::InterpretComponent
    ));
}

#[test]
fn loading_rejects_documents_of_another_kind() {
    let err = karmada_interpreter::load::customizations_from_str(
        "kind: ConfigMap\napiVersion: v1\n",
        "f.yaml",
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("f.yaml") && err.to_string().contains("ConfigMap"),
        "{err}"
    );
}
