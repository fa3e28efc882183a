//! Composition (`docs/composition.md`): off by default (Karmada's answers),
//! and with it on, several customizations for one kind and editing
//! operation apply in their declared order, and `kube.below()` gives a
//! script the answer of the layers below.

use karmada_interpreter::api::{InterpreterOperation as Op, ResourceInterpreterCustomization};
use karmada_interpreter::interpreter::{JsonInputs, LayerKind, Outcome};
use karmada_interpreter::{load, Interpreter};
use kube::core::GroupVersionKind;
use serde_json::{json, Value};

/// A customization of `target` (`apiVersion kind`) named `name`, with an
/// order annotation when `order` is given and the rules in `rules` (YAML
/// under `customizations:`, indented by four).
fn customization(
    name: &str,
    order: Option<&str>,
    target: (&str, &str),
    rules: &str,
) -> ResourceInterpreterCustomization {
    let annotations = order
        .map(|o| format!("\n  annotations: {{karmada-interpreter.io/order: \"{o}\"}}"))
        .unwrap_or_default();
    let yaml = format!(
        "apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: {name}{annotations}
spec:
  target: {{apiVersion: {}, kind: {}}}
  customizations:
{rules}",
        target.0, target.1
    );
    load::customizations_from_str(&yaml, name)
        .expect("customization")
        .remove(0)
}

/// A Secret Retain rule that records itself: appends `name` to the
/// `trail` annotation and keeps the member's label `label`.
fn secret_retain(name: &str, order: Option<&str>, label: &str) -> ResourceInterpreterCustomization {
    let rules = format!(
        r#"    retention:
      luaScript: |
        function Retain(desired, observed)
          desired.metadata.annotations = desired.metadata.annotations or {{}}
          local trail = desired.metadata.annotations.trail
          desired.metadata.annotations.trail = (trail and trail .. "," or "") .. "{name}"
          desired.metadata.labels = desired.metadata.labels or {{}}
          desired.metadata.labels["{label}"] = observed.metadata.labels["{label}"]
          return desired
        end
"#
    );
    customization(name, order, ("v1", "Secret"), &rules)
}

fn secret(labels: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "n", "labels": labels}})
}

fn chain(items: Vec<ResourceInterpreterCustomization>, composition: bool) -> Interpreter {
    Interpreter::builder()
        .customizations(items)
        .composition(composition)
        .build()
        .expect("chain")
}

#[test]
fn two_retain_customizations_both_apply_in_their_declared_order() {
    // By name a-team comes first; the annotations put b-team first.
    let items = vec![
        secret_retain("a-team", Some("20"), "a"),
        secret_retain("b-team", Some("10"), "b"),
    ];
    let chain = chain(items, true);
    let desired = secret(json!({"own": "yes"}));
    let observed = secret(json!({"a": "1", "b": "2", "c": "3"}));
    let answer = chain.retain(&desired, &observed).unwrap();
    let kept = &answer.value;
    assert_eq!(kept["metadata"]["annotations"]["trail"], "b-team,a-team");
    assert_eq!(
        kept["metadata"]["labels"],
        json!({"own": "yes", "a": "1", "b": "2"})
    );
    // The answer names both, in the order they ran.
    assert_eq!(answer.served_by.layer, LayerKind::Declarative);
    assert_eq!(answer.served_by.name, "b-team,a-team");

    // Every way of calling Retain composes: in place, handed over, as JSON.
    let mut in_place = desired.clone();
    chain.retain(&mut in_place, &observed).unwrap();
    assert_eq!(&in_place, kept);
    assert_eq!(
        &chain.retain(desired.clone(), &observed).unwrap().value,
        kept
    );
    let (d, o) = (desired.to_string(), observed.to_string());
    let inputs = JsonInputs {
        desired: Some(d.as_bytes()),
        observed: Some(o.as_bytes()),
        ..JsonInputs::default()
    };
    let Outcome::Retained(from_json) = chain.interpret_json(Op::Retain, inputs).unwrap().value
    else {
        panic!("not a Retain answer")
    };
    assert_eq!(&from_json, kept);
}

#[test]
fn without_an_order_annotation_the_names_order_them_and_equal_orders_too() {
    let items = vec![
        secret_retain("b", None, "b"),
        secret_retain("c", Some("0"), "c"),
        secret_retain("a", None, "a"),
        secret_retain("z", Some("-1"), "z"),
    ];
    let kept = chain(items, true)
        .retain(&secret(json!({})), &secret(json!({"a": "1"})))
        .unwrap()
        .value;
    assert_eq!(kept["metadata"]["annotations"]["trail"], "z,a,b,c");
}

#[test]
fn with_composition_off_the_answers_are_karmadas_first_by_name() {
    let items = vec![
        secret_retain("a-team", Some("20"), "a"),
        secret_retain("b-team", Some("10"), "b"),
    ];
    let chain = chain(items, false);
    let answer = chain
        .retain(&secret(json!({})), &secret(json!({"a": "1", "b": "2"})))
        .unwrap();
    // Only the first by name ran; the order annotation is not read.
    assert_eq!(answer.value["metadata"]["annotations"]["trail"], "a-team");
    assert_eq!(answer.value["metadata"]["labels"], json!({"a": "1"}));
    assert_eq!(answer.served_by.name, "a-team");
}

#[test]
fn a_malformed_order_is_an_error_naming_the_customization_only_with_composition() {
    let items = vec![secret_retain("a-team", Some("first"), "a")];
    let error = Interpreter::builder()
        .customizations(items.clone())
        .composition(true)
        .build()
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("\"a-team\"")
            && text.contains("karmada-interpreter.io/order")
            && text.contains("\"first\" is not an integer"),
        "{text}"
    );
    // Karmada does not read the annotation.
    assert!(chain(items, false)
        .retain(&secret(json!({})), &secret(json!({"a": "1"})))
        .is_ok());
}

/// A Deployment Retain rule that extends the native answer.
fn deployment_extending_native() -> ResourceInterpreterCustomization {
    customization(
        "keep-paused",
        None,
        ("apps/v1", "Deployment"),
        r#"    retention:
      luaScript: |
        local kube = require("kube")
        function Retain(desired, observed)
          local kept = kube.below()
          kept.spec.paused = observed.spec.paused
          return kept
        end
"#,
    )
}

fn deployment(replicas: i64, paused: bool) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web", "namespace": "shop",
                        "labels": {"resourcetemplate.karmada.io/retain-replicas": "true"}},
           "spec": {"replicas": replicas, "paused": paused}})
}

#[test]
fn a_script_extends_the_native_answer_with_kube_below() {
    let chain = chain(vec![deployment_extending_native()], true);
    let kept = chain
        .retain(&deployment(3, false), &deployment(5, true))
        .unwrap();
    // The native Retain kept the member's replicas (the label opts in),
    // and the script added what it keeps.
    assert_eq!(kept.value["spec"]["replicas"], 5);
    assert_eq!(kept.value["spec"]["paused"], true);
    assert_eq!(kept.served_by.name, "keep-paused");
    // The same as the native answer plus the one field.
    let native = Interpreter::builder()
        .thirdparty(false)
        .build()
        .unwrap()
        .retain(&deployment(3, false), &deployment(5, true))
        .unwrap()
        .value;
    let mut expected = native;
    expected["spec"]["paused"] = json!(true);
    assert_eq!(kept.value, expected);
}

#[test]
fn with_composition_off_kube_below_is_absent_as_in_karmada() {
    let probe = customization(
        "probe",
        None,
        ("apps/v1", "Deployment"),
        r#"    healthInterpretation:
      luaScript: |
        local kube = require("kube")
        function InterpretHealth(observed)
          return kube.below == nil
        end
"#,
    );
    let off = chain(vec![probe.clone()], false);
    assert!(off.interpret_health(&deployment(1, false)).unwrap().value);
    let on = chain(vec![probe], true);
    assert!(!on.interpret_health(&deployment(1, false)).unwrap().value);

    // Calling it fails the script, with Lua's own words for a missing field.
    let off = chain(vec![deployment_extending_native()], false);
    let error = off
        .retain(&deployment(3, false), &deployment(5, true))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("keep-paused") && error.contains("attempt to call a non-function object"),
        "{error}"
    );
}

#[test]
fn kube_below_answers_every_operation_as_its_entry_function_returns() {
    let rules = r#"    replicaResource:
      luaScript: |
        local kube = require("kube")
        function GetReplicas(obj)
          local replicas, requires = kube.below()
          return replicas + 1, requires
        end
    healthInterpretation:
      luaScript: |
        local kube = require("kube")
        function InterpretHealth(obj)
          return not kube.below()
        end
    dependencyInterpretation:
      luaScript: |
        local kube = require("kube")
        function GetDependencies(obj)
          local deps = kube.below()
          table.insert(deps, {apiVersion = "v1", kind = "Secret", namespace = obj.metadata.namespace, name = "extra"})
          return deps
        end
    statusReflection:
      luaScript: |
        local kube = require("kube")
        function ReflectStatus(obj)
          local status = kube.below()
          status.reflected = true
          return status
        end
"#;
    let items = vec![customization(
        "extend",
        None,
        ("apps/v1", "Deployment"),
        rules,
    )];
    let composed = chain(items, true);
    let native = Interpreter::builder().thirdparty(false).build().unwrap();
    let object = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "generation": 1,
                     "annotations": {"resourcetemplate.karmada.io/generation": "1"}},
        "spec": {"replicas": 2, "template": {"spec": {
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}},
                            "envFrom": [{"configMapRef": {"name": "cm"}}]}]}}},
        "status": {"replicas": 2, "readyReplicas": 2, "updatedReplicas": 2,
                   "availableReplicas": 2, "observedGeneration": 1}});

    let mine = composed.get_replicas(&object).unwrap().value;
    let theirs = native.get_replicas(&object).unwrap().value;
    assert_eq!(mine.replicas, theirs.replicas + 1);
    assert_eq!(mine.requirements, theirs.requirements);

    let healthy = native.interpret_health(&object).unwrap().value;
    assert_eq!(composed.interpret_health(&object).unwrap().value, !healthy);

    let mut deps = native.get_dependencies(&object).unwrap().value;
    assert!(!deps.is_empty(), "the native answer names the ConfigMap");
    let mine = composed.get_dependencies(&object).unwrap().value;
    deps.push(
        serde_json::from_value(
            json!({"apiVersion": "v1", "kind": "Secret", "namespace": "shop", "name": "extra"}),
        )
        .unwrap(),
    );
    deps.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    assert_eq!(mine, deps);

    let mut status = native.reflect_status(&object).unwrap().value.unwrap();
    status["reflected"] = json!(true);
    assert_eq!(
        composed.reflect_status(&object).unwrap().value,
        Some(status)
    );
}

#[test]
fn kube_below_refuses_arguments_and_says_when_nothing_below_serves() {
    let rule = |name: &str, call: &str| {
        customization(
            name,
            None,
            ("example.io/v1", "Widget"),
            &format!(
                r#"    healthInterpretation:
      luaScript: |
        local kube = require("kube")
        function InterpretHealth(obj)
          return {call}
        end
"#
            ),
        )
    };
    let widget =
        json!({"apiVersion": "example.io/v1", "kind": "Widget", "metadata": {"name": "w"}});
    let error = chain(vec![rule("args", "kube.below(obj)")], true)
        .interpret_health(&widget)
        .unwrap_err()
        .to_string();
    assert!(error.contains("kube.below takes no arguments"), "{error}");
    let error = chain(vec![rule("none", "kube.below()")], true)
        .interpret_health(&widget)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("kube.below: no layer below serves InterpretHealth for Widget"),
        "{error}"
    );
    // A script can catch it and fall back.
    let answer = chain(vec![rule("fallback", "not pcall(kube.below)")], true)
        .interpret_health(&widget)
        .unwrap();
    assert!(answer.value);
}

/// The layer below runs Lua too (a bundled customization): the script's
/// own arguments, untouched before the call, are still whole after it.
#[test]
fn kube_below_over_a_lua_layer_leaves_the_running_scripts_arguments_whole() {
    let items = vec![customization(
        "label-entrypoint",
        None,
        ("argoproj.io/v1alpha1", "Workflow"),
        r#"    retention:
      luaScript: |
        local kube = require("kube")
        function Retain(desired, observed)
          local kept = kube.below()
          kept.metadata.labels = {entry = desired.spec.entrypoint .. "/" .. observed.spec.entrypoint}
          return kept
        end
"#,
    )];
    let composed = chain(items, true);
    let workflow = |suspend: bool| {
        json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
               "metadata": {"name": "w", "namespace": "n"},
               "spec": {"entrypoint": "main", "suspend": suspend}})
    };
    let kept = composed.retain(&workflow(false), &workflow(true)).unwrap();
    // The bundled Retain kept `suspend`; the script then read both arguments.
    assert_eq!(kept.value["spec"]["suspend"], true);
    assert_eq!(kept.value["metadata"]["labels"]["entry"], "main/main");
    assert_eq!(
        Interpreter::default()
            .served_by(
                &GroupVersionKind::gvk("argoproj.io", "v1alpha1", "Workflow"),
                Op::Retain
            )
            .unwrap()
            .layer,
        LayerKind::Thirdparty
    );
}

/// The layers below run within what is left of the script's deadline.
#[test]
fn the_deadline_still_applies_across_kube_below() {
    let items = vec![customization(
        "loop",
        None,
        ("apps/v1", "Deployment"),
        r#"    retention:
      luaScript: |
        local kube = require("kube")
        function Retain(desired, observed)
          while true do
            desired = kube.below()
          end
        end
"#,
    )];
    let chain = Interpreter::builder()
        .customizations(items)
        .composition(true)
        .lua_limits(karmada_interpreter::declarative::Limits {
            timeout: std::time::Duration::from_millis(200),
            ..Default::default()
        })
        .build()
        .unwrap();
    let error = chain
        .retain(&deployment(3, false), &deployment(5, true))
        .unwrap_err()
        .to_string();
    assert!(error.contains("deadline"), "{error}");
}

#[test]
fn reading_operations_take_the_first_in_order_and_explain_names_every_composed_one() {
    let health = |name: &str, order: &str, healthy: bool| {
        customization(
            name,
            Some(order),
            ("v1", "Secret"),
            &format!(
                "    healthInterpretation:\n      luaScript: 'function InterpretHealth(o) return {healthy} end'\n"
            ),
        )
    };
    let mut items = vec![health("a", "5", true), health("b", "1", false)];
    items.push(secret_retain("r1", Some("2"), "x"));
    items.push(secret_retain("r2", Some("1"), "y"));
    let on = chain(items.clone(), true);
    let off = chain(items, false);
    let s = secret(json!({}));
    assert!(!on.interpret_health(&s).unwrap().value);
    assert!(off.interpret_health(&s).unwrap().value);

    let gvk = GroupVersionKind::gvk("", "v1", "Secret");
    let decided = on.decisions(&gvk, Op::Retain);
    let last = decided.last().unwrap();
    assert_eq!(last.reason, "serves it (r2,r1)");
    assert_eq!(
        on.decisions(&gvk, Op::InterpretHealth)[0].reason,
        "serves it (b)"
    );
    assert_eq!(off.decisions(&gvk, Op::Retain)[0].reason, "serves it (r1)");
}

#[test]
fn revise_replica_and_aggregate_status_compose_too() {
    let revise = |name: &str, order: &str, field: &str| {
        customization(
            name,
            Some(order),
            ("example.io/v1", "Widget"),
            &format!(
                r#"    replicaRevision:
      luaScript: |
        function ReviseReplica(obj, desiredReplica)
          obj.spec.{field} = desiredReplica
          obj.spec.trail = (obj.spec.trail or "") .. "{name}"
          return obj
        end
    statusAggregation:
      luaScript: |
        function AggregateStatus(desiredObj, statusItems)
          desiredObj.status = desiredObj.status or {{}}
          desiredObj.status.{field} = #statusItems
          desiredObj.status.trail = (desiredObj.status.trail or "") .. "{name}"
          return desiredObj
        end
"#
            ),
        )
    };
    let items = vec![revise("p", "2", "replicas"), revise("q", "1", "workers")];
    let widget = json!({"apiVersion": "example.io/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {}});
    let on = chain(items.clone(), true);
    let revised = on.revise_replica(&widget, 4).unwrap();
    assert_eq!(
        revised.value["spec"],
        json!({"replicas": 4, "workers": 4, "trail": "qp"})
    );
    assert_eq!(revised.served_by.name, "q,p");
    let status: Vec<karmada_interpreter::api::AggregatedStatusItem> = serde_json::from_value(
        json!([{"clusterName": "m1", "status": {}}, {"clusterName": "m2", "status": {}}]),
    )
    .unwrap();
    let aggregated = on.aggregate_status(&widget, Some(&status)).unwrap().value;
    assert_eq!(
        aggregated["status"],
        json!({"replicas": 2, "workers": 2, "trail": "qp"})
    );

    let off = chain(items, false);
    let revised = off.revise_replica(&widget, 4).unwrap();
    assert_eq!(revised.value["spec"], json!({"replicas": 4, "trail": "p"}));
}
