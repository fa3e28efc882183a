//! What `cluster` mode writes back with a real `kube::Client` against the
//! in-process API server: each object's observed status (the status
//! annotation, merge-patched), Events (events.k8s.io/v1) on change, script
//! failures counted and reported at most once per interval, and shadow
//! customizations compared with the live ones.

use crate::cli_support::mock_apiserver;

use std::time::Duration;

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter_cluster::{
    ClusterConfig, ClusterOptions, ObjectStatus, Reporting, ShadowResult, SHADOW_ANNOTATION,
    STATUS_ANNOTATION,
};
use mock_apiserver::{widget, widget_customization, MockApiServer, CUSTOMIZATIONS};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(10);
const RIC: &str = "ResourceInterpreterCustomization";

fn replicas(n: i32) -> String {
    format!("function GetReplicas(obj) return {n} end")
}

/// Follows `server` writing status and Events (at most one rate-limited
/// Event per object an hour: the tests see exactly the first).
async fn start(server: &MockApiServer) -> ClusterConfig {
    let options = ClusterOptions {
        min_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(200),
        reporting: Some(Reporting {
            event_interval: Duration::from_secs(3600),
            ..Reporting::default()
        }),
        ..ClusterOptions::default()
    };
    let cluster = ClusterConfig::start_with(server.client(), options);
    cluster.wait_synced(WAIT).await.expect("first list");
    cluster
}

/// Polls `f` until it gives `Some` (the watch and the writer are asynchronous).
async fn until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(tokio::time::Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The status annotation stored on customization `name`.
fn annotation(server: &MockApiServer, name: &str) -> Option<ObjectStatus> {
    let object = server.object(CUSTOMIZATIONS, name)?;
    let text = object["metadata"]["annotations"][STATUS_ANNOTATION].as_str()?;
    Some(serde_json::from_str(text).unwrap())
}

/// The Events about `name` with `reason`.
fn events(server: &MockApiServer, name: &str, reason: &str) -> Vec<Value> {
    server
        .events()
        .into_iter()
        .filter(|e| e["regarding"]["name"] == name && e["reason"] == reason)
        .collect()
}

fn replicas_of(cluster: &ClusterConfig, kind: &str) -> Option<i32> {
    let chain = cluster.interpreter().unwrap();
    chain
        .get_replicas(&widget(kind))
        .ok()
        .map(|a| a.value.replicas)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_customization_is_rejected_at_its_line_and_fixing_it_flips_the_condition() {
    let server = MockApiServer::start().await;
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("a", "Widget", &replicas(2)),
    );
    let cluster = start(&server).await;
    let status = until("the first status", || annotation(&server, "a")).await;
    assert!(status.is_accepted(), "{status:?}");
    assert_eq!(status.active_rules, ["InterpretReplica"]);
    assert!(
        server.events().is_empty(),
        "no Event for an object first seen accepted"
    );

    // Broken at script line 2: the last good version keeps answering.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization(
            "a",
            "Widget",
            "function GetReplicas(obj)\n  return obj.spec.replicas +\nend",
        ),
    );
    let rejected = until("the Rejected condition", || {
        annotation(&server, "a").filter(|s| !s.is_accepted())
    })
    .await;
    let condition = rejected.accepted().unwrap();
    assert_eq!(condition.reason, "Rejected");
    assert!(
        condition.message.contains("script line 3")
            && condition
                .message
                .ends_with("the last accepted version keeps serving"),
        "{}",
        condition.message
    );
    assert_eq!(replicas_of(&cluster, "Widget"), Some(2));
    let event = until("the Rejected Event", || {
        events(&server, "a", "Rejected").pop()
    })
    .await;
    assert_eq!(event["type"], "Warning");
    assert_eq!(event["regarding"]["kind"], RIC);
    assert_eq!(event["metadata"]["namespace"], "default");
    assert_eq!(event["note"], condition.message.as_str());

    // Fixed: the condition flips, an Event says so.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("a", "Widget", &replicas(4)),
    );
    until("the Accepted condition again", || {
        annotation(&server, "a").filter(ObjectStatus::is_accepted)
    })
    .await;
    let accepted = until("the Accepted Event", || {
        events(&server, "a", "Accepted").pop()
    })
    .await;
    assert_eq!(accepted["type"], "Normal");
    assert_eq!(replicas_of(&cluster, "Widget"), Some(4));
    // One write per change: writing the status is not a change (no loop).
    assert_eq!(server.patches().len(), 3, "{:?}", server.patches());
    assert_eq!(server.events().len(), 2);
    assert_eq!(
        cluster.object_status(RIC, "a").as_ref(),
        annotation(&server, "a").as_ref()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_by_name_answers_and_the_status_of_the_other_says_so() {
    let server = MockApiServer::start().await;
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("a", "Widget", &replicas(2)),
    );
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("b", "Widget", &replicas(3)),
    );
    let cluster = start(&server).await;
    let b = until("b's status", || annotation(&server, "b")).await;
    assert!(b.is_accepted());
    assert!(b.active_rules.is_empty());
    assert_eq!(b.overridden[0].rule, "InterpretReplica");
    assert_eq!(b.overridden[0].by, "a");
    assert_eq!(replicas_of(&cluster, "Widget"), Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn script_failures_are_counted_per_rule_and_reported_once_per_interval() {
    let server = MockApiServer::start().await;
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("a", "Widget", "function GetReplicas(obj) error('boom') end"),
    );
    let cluster = start(&server).await;
    for _ in 0..3 {
        assert_eq!(replicas_of(&cluster, "Widget"), None);
    }
    let failures = cluster.failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(
        (
            failures[0].customization.as_str(),
            failures[0].operation,
            failures[0].count
        ),
        ("a", Op::InterpretReplica, 3)
    );
    let event = until("the failure Event", || {
        events(&server, "a", "InterpretationFailed").pop()
    })
    .await;
    assert_eq!(event["type"], "Warning");
    assert!(event["note"].as_str().unwrap().contains("boom"), "{event}");
    // The calls have returned: the two later failures were only counted.
    assert_eq!(events(&server, "a", "InterpretationFailed").len(), 1);
}

fn shadow(name: &str, script: &str) -> Value {
    let mut c = widget_customization(name, "Widget", script);
    c["metadata"]["annotations"] = serde_json::json!({SHADOW_ANNOTATION: "true"});
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shadow_runs_beside_the_live_customization_and_its_differences_are_reported() {
    let server = MockApiServer::start().await;
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("b-live", "Widget", &replicas(2)),
    );
    server.apply(CUSTOMIZATIONS, shadow("a-next", &replicas(3)));
    let cluster = start(&server).await;
    let status = until("the shadow's status", || annotation(&server, "a-next")).await;
    let condition = &status.conditions[1];
    assert_eq!(
        (condition.type_.as_str(), condition.reason.as_str()),
        ("Shadow", "ShadowRun")
    );
    assert_eq!(
        condition.message,
        "does not answer; runs InterpretReplica beside b-live"
    );
    // The live one answers, though the shadow sorts first.
    assert_eq!(replicas_of(&cluster, "Widget"), Some(2));
    let report = until("the comparison", || {
        let r = cluster.shadow_report();
        (!r.counts.is_empty()).then_some(r)
    })
    .await;
    let key = (
        "a-next".to_owned(),
        Op::InterpretReplica,
        ShadowResult::AnswerDiffers,
    );
    assert_eq!(report.counts.get(&key), Some(&1), "{report:?}");
    let example = &report.examples[0];
    assert_eq!(example.object, "default/w");
    assert!(example.live.contains("replicas: 2"), "{example:?}");
    assert!(example.shadow_answer.contains("replicas: 3"), "{example:?}");
    let event = until("the ShadowDiffers Event", || {
        events(&server, "a-next", "ShadowDiffers").pop()
    })
    .await;
    assert!(event["note"].as_str().unwrap().contains("answer_differs"));
    let summary = until("the shadow summary in the status", || {
        annotation(&server, "a-next").and_then(|s| s.shadow)
    })
    .await;
    assert_eq!((summary.compared, summary.differing), (1, 1));

    // A failing shadow never changes the live answer (called until the
    // new version runs: the watch is asynchronous).
    server.apply(
        CUSTOMIZATIONS,
        shadow(
            "a-next",
            "function GetReplicas(obj) error('shadow boom') end",
        ),
    );
    let failed = (
        "a-next".to_owned(),
        Op::InterpretReplica,
        ShadowResult::ShadowFailed,
    );
    until("the shadow failure", || {
        assert_eq!(replicas_of(&cluster, "Widget"), Some(2));
        cluster.shadow_report().counts.get(&failed).copied()
    })
    .await;
    assert!(
        cluster.failures().is_empty(),
        "a shadow's failure is not a live one"
    );

    // Promoted: the annotation removed (and the old one gone), it answers.
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("a-next", "Widget", &replicas(3)),
    );
    server.delete(CUSTOMIZATIONS, "b-live");
    until("the promoted customization answers", || {
        (replicas_of(&cluster, "Widget") == Some(3)).then_some(())
    })
    .await;
    until("the Promoted Event", || {
        events(&server, "a-next", "Promoted").pop()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shadow_of_a_kind_no_customization_serves_is_compared_with_the_layers_below() {
    let server = MockApiServer::start().await;
    let mut replace =
        crate::support::customization::Customization::new("deploy-next", "apps/v1", "Deployment")
            .rule("replicaResource", &replicas(7))
            .json();
    replace["metadata"]["annotations"] = serde_json::json!({SHADOW_ANNOTATION: "true"});
    server.apply(CUSTOMIZATIONS, replace);
    let cluster = start(&server).await;
    let status = until("the shadow's status", || {
        cluster.object_status(RIC, "deploy-next")
    })
    .await;
    assert_eq!(
        status.conditions[1].message,
        "does not answer; runs InterpretReplica beside the layers below"
    );
    let chain = cluster.interpreter().unwrap();
    let deployment = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 3, "template": {"spec": {"containers": []}}}});
    // The native answer, as without the shadow.
    let answer = chain.get_replicas(&deployment).unwrap();
    assert_eq!(answer.value.replicas, 3);
    assert_eq!(
        answer.served_by.layer,
        karmada_interpreter::interpreter::LayerKind::Native
    );
    let key = (
        "deploy-next".to_owned(),
        Op::InterpretReplica,
        ShadowResult::AnswerDiffers,
    );
    until("the comparison", || {
        cluster.shadow_report().counts.get(&key).copied()
    })
    .await;
    let example = &cluster.shadow_report().examples[0];
    assert_eq!(example.object, "default/web");
    assert!(example.shadow_answer.contains("replicas: 7"), "{example:?}");
    // A chain attached without a baseline does not route the kind here.
    let plain = cluster
        .attach(karmada_interpreter::Interpreter::builder())
        .build()
        .unwrap();
    assert_eq!(plain.get_replicas(&deployment).unwrap().value.replicas, 3);
    assert_eq!(cluster.shadow_report().counts.get(&key), Some(&1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_without_its_entry_function_serves_as_in_karmada_and_its_status_says_why() {
    let server = MockApiServer::start().await;
    server.apply(
        CUSTOMIZATIONS,
        widget_customization("a", "Widget", "function Replicas(obj) return 2 end"),
    );
    let cluster = start(&server).await;
    let status = until("the status", || annotation(&server, "a")).await;
    let condition = status.accepted().unwrap();
    assert_eq!(
        (condition.status.as_str(), condition.reason.as_str()),
        ("True", "AcceptedWithProblems")
    );
    assert!(
        condition
            .message
            .contains("script line 1, column 1: function GetReplicas is not defined"),
        "{}",
        condition.message
    );
    let event = until("the Event", || {
        events(&server, "a", "AcceptedWithProblems").pop()
    })
    .await;
    assert_eq!(event["type"], "Warning");
    // Karmada runs it: the call fails (and is counted), nothing below answers instead.
    assert_eq!(replicas_of(&cluster, "Widget"), None);
    assert_eq!(cluster.failures().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_another_one_answers_for_is_overridden_in_its_status() {
    let server = MockApiServer::start().await;
    let hook = |name: &str| {
        serde_json::json!({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterWebhookConfiguration",
            "metadata": {"name": name},
            "webhooks": [{
                "name": "widgets.example.io",
                "rules": [{"operations": ["InterpretReplica"], "apiGroups": ["example.io"],
                           "apiVersions": ["v1"], "kinds": ["Widget"]}],
                "clientConfig": {"url": format!("https://{name}.example/x")},
                "interpreterContextVersions": ["v1alpha1"]
            }]
        })
    };
    server.apply(mock_apiserver::WEBHOOKS, hook("a"));
    server.apply(mock_apiserver::WEBHOOKS, hook("b"));
    let cluster = start(&server).await;
    let kind = "ResourceInterpreterWebhookConfiguration";
    let status = |name| {
        let cluster = cluster.clone();
        async move { until("the status", || cluster.object_status(kind, name)).await }
    };
    let (a, b) = (status("a").await, status("b").await);
    let chain = cluster.interpreter().unwrap();
    let gvk = kube::core::GroupVersionKind::gvk("example.io", "v1", "Widget");
    let answers = chain.served_by(&gvk, Op::InterpretReplica).unwrap().name;
    let (winner, loser) = if answers == "a/widgets.example.io" {
        (a, b)
    } else {
        (b, a)
    };
    assert!(winner.overridden.is_empty(), "{winner:?}");
    assert_eq!(winner.active_rules, ["widgets.example.io"]);
    assert_eq!(loser.overridden.len(), 1, "{loser:?}");
    assert_eq!(loser.overridden[0].by, answers);
    assert_eq!(
        loser.overridden[0].rule,
        "widgets.example.io InterpretReplica example.io/v1/Widget"
    );
}
