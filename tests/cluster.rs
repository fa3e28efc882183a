//! The cluster-backed chain against an in-process API server: a real
//! `kube::Client` lists and watches both configuration kinds, and every
//! change is checked through interpreter calls.

use crate::cli_support::mock_apiserver;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use karmada_interpreter::interpreter::LayerKind;
use karmada_interpreter::{Error, Interpreter};
use karmada_interpreter_cluster::{ClusterConfig, ClusterError, ClusterOptions};
use mock_apiserver::{widget, widget_customization, MockApiServer, CUSTOMIZATIONS, WEBHOOKS};
use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(10);

fn replicas(n: i32) -> String {
    format!("function GetReplicas(obj) return {n} end")
}

/// Starts the watchers with a fast back-off and an error log.
async fn start(server: &MockApiServer) -> (ClusterConfig, Errors) {
    let errors: Errors = Arc::default();
    let sink = errors.clone();
    let options = ClusterOptions {
        min_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(200),
        on_error: Some(Arc::new(move |e: &ClusterError| {
            sink.lock().unwrap().push(e.to_string())
        })),
        ..ClusterOptions::default()
    };
    let cluster = ClusterConfig::start_with(server.client(), options);
    cluster.wait_synced(WAIT).await.expect("first list");
    (cluster, errors)
}

/// The replica count the chain answers for a Widget of `kind`, or the error.
fn answer(chain: &Interpreter, kind: &str) -> Result<(i32, LayerKind), String> {
    chain
        .get_replicas(&widget(kind))
        .map(|a| (a.value.replicas, a.served_by.layer))
        .map_err(|e| e.to_string())
}

/// Polls the chain until `kind` answers `expected` (the watch is asynchronous).
async fn eventually(chain: &Interpreter, kind: &str, expected: Result<(i32, LayerKind), ()>) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let got = answer(chain, kind);
        if got.as_ref().map_err(|_| ()) == expected.as_ref().map_err(|_| ()) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{kind}: expected {expected:?}, still {got:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

const CUSTOM: LayerKind = LayerKind::Declarative;

type Errors = Arc<Mutex<Vec<String>>>;

/// A cluster holding customization `a` (Widget: 2 replicas), followed.
async fn widget_a_serving_2() -> (MockApiServer, ClusterConfig, Errors, Interpreter) {
    let server = MockApiServer::start().await;
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("a", "Widget", &replicas(2)),
    );
    let (cluster, errors) = start(&server).await;
    let chain = cluster.interpreter().unwrap();
    (server, cluster, errors, chain)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initial_list_add_modify_delete() {
    let (server, cluster, errors, chain) = widget_a_serving_2().await;
    // Initial list.
    assert_eq!(answer(&chain, "Widget"), Ok((2, CUSTOM)));
    assert!(answer(&chain, "Gadget").unwrap_err().contains("not served"));

    // Added.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("b", "Gadget", &replicas(5)),
    );
    eventually(&chain, "Gadget", Ok((5, CUSTOM))).await;
    // Modified.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("a", "Widget", &replicas(3)),
    );
    eventually(&chain, "Widget", Ok((3, CUSTOM))).await;
    // Deleted.
    server.delete(CUSTOMIZATIONS, "a");
    eventually(&chain, "Widget", Err(())).await;
    assert_eq!(answer(&chain, "Gadget"), Ok((5, CUSTOM)));
    let status = cluster.status();
    assert_eq!(status.customizations.serving, ["b"]);
    assert!(status.customizations.connected && status.webhooks.synced);
    assert!(errors.lock().unwrap().is_empty(), "{errors:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_objects_are_rejected_and_never_replace_good_ones() {
    let server = MockApiServer::start().await;
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("good", "Widget", &replicas(2)),
    );
    server.apply(
        CUSTOMIZATIONS,
        widget_customization(
            "broken",
            "Gadget",
            "function GetReplicas(obj) return end end",
        ),
    );
    // Does not decode: spec.target.kind is a number.
    server.apply(
        CUSTOMIZATIONS,
        json!({"apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
               "metadata": {"name": "garbled"},
               "spec": {"target": {"apiVersion": "example.io/v1", "kind": 7}}}),
    );
    let (cluster, errors) = start(&server).await;
    let chain = cluster.interpreter().unwrap();
    // The broken one is reported; the good one serves.
    assert_eq!(answer(&chain, "Widget"), Ok((2, CUSTOM)));
    assert!(answer(&chain, "Gadget").is_err());
    let status = cluster.status();
    assert_eq!(status.customizations.serving, ["good"]);
    let rejected: Vec<&str> = status
        .customizations
        .rejected
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(rejected, ["broken", "garbled"]);
    // `check`'s verdict, at its script line.
    assert!(
        status.customizations.rejected[0].1.contains(
            "rule replicaResource (InterpretReplica), script line 1, column 40: the script does not compile"
        ),
        "{}",
        status.customizations.rejected[0].1
    );
    assert!(status.customizations.rejected[1]
        .1
        .contains("does not decode"));
    assert_eq!(errors.lock().unwrap().len(), 2);

    // An invalid update of a good customization: the old version keeps serving.
    let seen = cluster.status().customizations.events;
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("good", "Widget", "function GetReplicas(obj) return 9"),
    );
    cluster
        .wait_for(WAIT, |s| s.customizations.events > seen)
        .await
        .unwrap();
    assert_eq!(answer(&chain, "Widget"), Ok((2, CUSTOM)));
    let status = cluster.status();
    assert_eq!(status.customizations.serving, ["good"]);
    assert!(status
        .customizations
        .rejected
        .iter()
        .any(|(n, _)| n == "good"));
    // Fixing it applies, and clears the rejection.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("good", "Widget", &replicas(4)),
    );
    eventually(&chain, "Widget", Ok((4, CUSTOM))).await;
    // Fixing the broken one brings it in.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("broken", "Gadget", &replicas(6)),
    );
    eventually(&chain, "Gadget", Ok((6, CUSTOM))).await;
    // The status follows the layer it was published with.
    cluster
        .wait_for(WAIT, |s| s.customizations.rejected.len() == 1)
        .await
        .unwrap();
    let rejected = cluster.status().customizations.rejected;
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(rejected[0].0, "garbled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_watch_reconnects_and_the_last_good_state_serves_meanwhile() {
    let (server, cluster, errors, chain) = widget_a_serving_2().await;
    assert_eq!(answer(&chain, "Widget"), Ok((2, CUSTOM)));

    // The API server goes away: watches drop, the next requests fail.
    server.fail_next(6);
    server.cut_watches();
    cluster
        .wait_for(WAIT, |s| !s.customizations.connected)
        .await
        .expect("the watch error is seen");
    assert_eq!(
        answer(&chain, "Widget"),
        Ok((2, CUSTOM)),
        "last good state serves"
    );
    // A change made during the outage reaches the chain after the reconnect.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("a", "Widget", &replicas(8)),
    );
    eventually(&chain, "Widget", Ok((8, CUSTOM))).await;
    cluster
        .wait_for(WAIT, |s| s.customizations.connected)
        .await
        .expect("connected again");
    assert!(errors
        .lock()
        .unwrap()
        .iter()
        .any(|e| e.contains("watching")));

    // A watch that answers 410 Gone forces a re-list: what changed or
    // disappeared without an event is picked up from the list.
    server.apply_silently(
        CUSTOMIZATIONS,
        widget_customization("b", "Gadget", &replicas(1)),
    );
    server.delete_silently(CUSTOMIZATIONS, "a");
    server.expire_watches(true);
    server.cut_watches();
    eventually(&chain, "Gadget", Ok((1, CUSTOM))).await;
    eventually(&chain, "Widget", Err(())).await;
    server.expire_watches(false);
    let lists = server
        .requests()
        .iter()
        .filter(|r| r.contains(CUSTOMIZATIONS) && !r.contains("watch=true"))
        .count();
    assert!(lists >= 2, "the watcher listed again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_configurations_follow_the_cluster() {
    let server = MockApiServer::start().await;
    let hook = |name: &str, kinds: Value, client_config: Value| {
        json!({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterWebhookConfiguration",
            "metadata": {"name": name},
            "webhooks": [{
                "name": "widgets.example.io",
                "rules": [{"operations": ["InterpretReplica"], "apiGroups": ["example.io"],
                           "apiVersions": ["*"], "kinds": kinds}],
                "clientConfig": client_config,
                "interpreterContextVersions": ["v1alpha1"]
            }]
        })
    };
    server.apply(
        WEBHOOKS,
        hook(
            "svc",
            json!(["Widget"]),
            json!({"service": {"name": "widgets", "namespace": "interp", "port": 8443, "path": "/x"}}),
        ),
    );
    let (cluster, _errors) = start(&server).await;
    let chain = cluster.interpreter().unwrap();
    let gvk = kube::core::GroupVersionKind::gvk("example.io", "v1", "Widget");
    let op = karmada_interpreter::api::InterpreterOperation::InterpretReplica;
    let source = chain.served_by(&gvk, op).unwrap();
    assert_eq!(source.layer, LayerKind::Webhook);
    assert_eq!(source.name, "svc/widgets.example.io");

    // An invalid update (no clientConfig target) keeps the old one serving.
    let seen = cluster.status().webhooks.events;
    server.apply(WEBHOOKS, hook("svc", json!(["Gadget"]), json!({})));
    cluster
        .wait_for(WAIT, |s| s.webhooks.events > seen)
        .await
        .unwrap();
    assert!(chain.served_by(&gvk, op).is_some());
    assert_eq!(cluster.status().webhooks.rejected.len(), 1);

    // The customization layer comes first when both serve the kind.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("c", "Widget", &replicas(3)),
    );
    eventually(&chain, "Widget", Ok((3, CUSTOM))).await;

    // Deleting the configuration removes the webhook.
    server.delete(CUSTOMIZATIONS, "c");
    server.delete(WEBHOOKS, "svc");
    cluster
        .wait_for(WAIT, |s| {
            s.webhooks.serving.is_empty() && s.customizations.serving.is_empty()
        })
        .await
        .unwrap();
    assert!(chain.served_by(&gvk, op).is_none());
    match chain.get_replicas(&widget("Widget")) {
        Err(Error::NotServed { .. }) => {}
        other => panic!("expected NotServed, got {other:?}"),
    }
}

/// Every field our types write has a place in the CRD schema we ship (and
/// the schema requires nothing our types may leave out).
#[rstest::rstest]
#[case("config.karmada.io_resourceinterpretercustomizations.yaml", json!({
    "apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
    "metadata": {"name": "all"},
    "spec": {"target": {"apiVersion": "example.io/v1", "kind": "Widget"}, "customizations": {
        "retention": {"luaScript": "a"}, "replicaResource": {"luaScript": "a"},
        "componentResource": {"luaScript": "a"}, "replicaRevision": {"luaScript": "a"},
        "statusReflection": {"luaScript": "a"}, "statusAggregation": {"luaScript": "a"},
        "healthInterpretation": {"luaScript": "a"}, "dependencyInterpretation": {"luaScript": "a"}}}
}))]
#[case("config.karmada.io_resourceinterpreterwebhookconfigurations.yaml", json!({
    "apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterWebhookConfiguration",
    "metadata": {"name": "all"},
    "webhooks": [{"name": "a.example.io",
        "clientConfig": {"url": "https://x", "caBundle": "Zm9v",
                         "service": {"name": "s", "namespace": "n", "path": "/p", "port": 1}},
        "rules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "kinds": ["*"]}],
        "timeoutSeconds": 3, "interpreterContextVersions": ["v1alpha1"]}]
}))]
fn shipped_crds_cover_the_api_types(#[case] file: &str, #[case] full: Value) {
    use karmada_interpreter::api::{
        ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
    };
    // Round-trip through our type: what we would write.
    let written = if full["kind"] == "ResourceInterpreterCustomization" {
        let t: ResourceInterpreterCustomization = serde_json::from_value(full.clone()).unwrap();
        serde_json::to_value(t).unwrap()
    } else {
        let t: ResourceInterpreterWebhookConfiguration =
            serde_json::from_value(full.clone()).unwrap();
        serde_json::to_value(t).unwrap()
    };
    assert_eq!(written, full, "the sample uses every field of the type");
    let path = std::path::Path::new(crate::support::ROOT)
        .join("deploy/crds")
        .join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let crd = karmada_interpreter::yaml::documents(&text)
        .into_iter()
        .next()
        .unwrap()
        .unwrap()
        .value
        .unwrap();
    let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    fn walk(value: &Value, schema: &Value, at: &str) {
        match value {
            Value::Object(map) if !at.ends_with("metadata") => {
                assert_eq!(schema["type"], "object", "{at}");
                for (k, v) in map {
                    let sub = &schema["properties"][k];
                    assert!(sub.is_object(), "{at}.{k} is not in the schema");
                    walk(v, sub, &format!("{at}.{k}"));
                }
                for required in schema["required"].as_array().into_iter().flatten() {
                    assert!(
                        map.contains_key(required.as_str().unwrap()),
                        "{at}: {required}"
                    );
                }
            }
            Value::Array(items) => {
                assert_eq!(schema["type"], "array", "{at}");
                for v in items {
                    walk(v, &schema["items"], &format!("{at}[]"));
                }
            }
            Value::String(_) => assert_eq!(schema["type"], "string", "{at}"),
            Value::Number(_) => assert_eq!(schema["type"], "integer", "{at}"),
            _ => {}
        }
    }
    walk(&written, schema, "");
    assert_eq!(crd["spec"]["scope"], "Cluster");
    assert_eq!(crd["spec"]["names"]["kind"], full["kind"]);
}

/// With `ClusterOptions::composition`, the cluster's customizations compose
/// (docs/composition.md): two Deployment Retain rules apply in their
/// declared order, the second extending the native answer through
/// `kube.below()` from the live layer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_composition_the_clusters_customizations_compose() {
    use crate::support::customization::Customization;
    let server = MockApiServer::start().await;
    let rule = |name: &str, order: &str, script: &str| {
        let mut c = Customization::new(name, "apps/v1", "Deployment")
            .rule("retention", script)
            .json();
        c["metadata"]["annotations"] = json!({"karmada-interpreter.io/order": order});
        c
    };
    server.apply(
        CUSTOMIZATIONS,
        rule(
            "a-extends-native",
            "20",
            "local kube = require('kube')\nfunction Retain(desiredObj, observedObj)\n  local kept = kube.below()\n  kept.spec.paused = observedObj.spec.paused\n  return kept\nend",
        ),
    );
    server.apply(
        CUSTOMIZATIONS,
        rule(
            "b-labels",
            "10",
            "function Retain(desiredObj, observedObj)\n  desiredObj.metadata.labels.team = 'b'\n  return desiredObj\nend",
        ),
    );
    let options = ClusterOptions {
        composition: true,
        ..ClusterOptions::default()
    };
    let cluster = ClusterConfig::start_with(server.client(), options);
    cluster.wait_synced(WAIT).await.expect("first list");
    let chain = cluster.interpreter().unwrap();
    let deployment = |replicas: i64, paused: bool| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "namespace": "shop",
                            "labels": {"resourcetemplate.karmada.io/retain-replicas": "true"}},
               "spec": {"replicas": replicas, "paused": paused}})
    };
    let kept = chain
        .retain(&deployment(3, false), &deployment(5, true))
        .unwrap();
    assert_eq!(kept.served_by.name, "b-labels,a-extends-native");
    assert_eq!(kept.value["metadata"]["labels"]["team"], "b");
    assert_eq!(kept.value["spec"]["replicas"], 5);
    assert_eq!(kept.value["spec"]["paused"], true);
}
