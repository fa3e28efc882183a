//! The chain consults its layers in Karmada's order, at most one answers,
//! errors do not fall through, and every answer names its layer.

use std::sync::Arc;

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::interpreter::{
    CatalogEntry, Layer, LayerKind, Outcome, Request, Route, Source, TypeRef,
};
use karmada_interpreter::{Error, Interpreter, Result};
use kube::core::GroupVersionKind;
use serde_json::json;

/// A layer serving InterpretHealth and InterpretStatus for `example.io/v1 Thing`.
struct Fake {
    kind: LayerKind,
    healthy: std::result::Result<bool, &'static str>,
}

impl Layer for Fake {
    fn kind(&self) -> LayerKind {
        self.kind
    }
    fn route(&self, ty: TypeRef<'_>, op: Op) -> Option<Route> {
        let served = ty.group == "example.io" && ty.kind == "Thing";
        (served && matches!(op, Op::InterpretHealth | Op::InterpretStatus)).then(|| {
            Route::from(Source {
                layer: self.kind,
                name: "fake".into(),
            })
        })
    }
    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        match request.operation() {
            Op::InterpretHealth => {
                self.healthy
                    .map(Outcome::Healthy)
                    .map_err(|m| Error::InvalidInput {
                        operation: Op::InterpretHealth,
                        reason: m.into(),
                    })
            }
            _ => Ok(Outcome::Status(Some(json!({"from": "fake"})))),
        }
    }
    fn catalog(&self) -> Vec<CatalogEntry> {
        vec![CatalogEntry {
            api_version: "example.io/v1".into(),
            kind: "Thing".into(),
            operation: Op::InterpretHealth,
            source: Source {
                layer: self.kind,
                name: "fake".into(),
            },
        }]
    }
}

fn thing() -> serde_json::Value {
    json!({"apiVersion": "example.io/v1", "kind": "Thing", "metadata": {"name": "t"}, "status": {"x": 1}})
}

#[test]
fn an_earlier_layer_wins_and_says_so() {
    // A user's own layer names itself: it need not pose as one of Karmada's.
    const MINE: LayerKind = LayerKind::Other("mine");
    let chain = Interpreter::builder()
        .declarative_layer(Arc::new(Fake {
            kind: MINE,
            healthy: Ok(false),
        }))
        .build()
        .unwrap();
    let answer = chain.interpret_health(&thing()).unwrap();
    assert!(!answer.value);
    assert_eq!(answer.served_by.layer, MINE);
    assert_eq!(answer.served_by.to_string(), "mine (fake)");
    // InterpretStatus is also served natively for every kind, but the earlier layer answers.
    let status = chain.reflect_status(&thing()).unwrap();
    assert_eq!(status.value, Some(json!({"from": "fake"})));
    assert_eq!(status.served_by.layer, MINE);
}

#[test]
fn errors_do_not_fall_through() {
    let chain = Interpreter::builder()
        .declarative_layer(Arc::new(Fake {
            kind: LayerKind::Declarative,
            healthy: Err("boom"),
        }))
        .webhook_layer(Arc::new(Fake {
            kind: LayerKind::Webhook,
            healthy: Ok(true),
        }))
        .build()
        .unwrap();
    let err = chain.interpret_health(&thing()).unwrap_err();
    assert!(err.to_string().contains("boom"), "{err}");
}

#[test]
fn unserved_pairs_are_reported_and_hooks_enabled_is_exact() {
    let chain = Interpreter::builder().thirdparty(false).build().unwrap();
    let err = chain.interpret_health(&thing()).unwrap_err();
    assert!(matches!(err, Error::NotServed { .. }), "{err}");
    assert!(err.to_string().contains("example.io/v1"), "{err}");
    let gvk = GroupVersionKind::gvk("example.io", "v1", "Thing");
    assert!(!chain.hook_enabled(&gvk, Op::InterpretHealth));
    assert!(chain.hook_enabled(&gvk, Op::InterpretStatus)); // whole-status reflection
    assert!(!chain.hook_enabled(&gvk, Op::InterpretComponent));
}

#[test]
fn objects_must_be_json_objects() {
    let chain = Interpreter::default();
    let err = chain.reflect_status(&json!([1, 2])).unwrap_err();
    assert!(err.to_string().contains("an array"), "{err}");
}

#[test]
fn the_catalog_hides_pairs_served_by_an_earlier_layer() {
    let chain = Interpreter::builder()
        .declarative_layer(Arc::new(Fake {
            kind: LayerKind::Declarative,
            healthy: Ok(true),
        }))
        .webhook_layer(Arc::new(Fake {
            kind: LayerKind::Webhook,
            healthy: Ok(true),
        }))
        .build()
        .unwrap();
    let things: Vec<_> = chain
        .catalog()
        .into_iter()
        .filter(|e| e.kind == "Thing")
        .collect();
    assert_eq!(things.len(), 1);
    assert_eq!(things[0].source.layer, LayerKind::Declarative);
}

#[test]
fn typed_and_dynamic_objects_are_accepted() {
    use k8s_openapi::api::core::v1::Pod;
    let chain = Interpreter::default();
    let mut pod = Pod::default();
    pod.metadata.name = Some("p".into());
    pod.status = Some(Default::default());
    let value = karmada_interpreter::interpreter::from_resource(&pod).unwrap();
    let answer = chain.reflect_status(&value).unwrap();
    assert_eq!(answer.served_by.layer, LayerKind::Native);
    let dynamic: kube::core::DynamicObject = serde_json::from_value(thing()).unwrap();
    let value = karmada_interpreter::interpreter::from_dynamic(&dynamic).unwrap();
    assert_eq!(
        chain.reflect_status(&value).unwrap().value,
        Some(json!({"x": 1}))
    );
}

/// A layer serving ReviseReplica for `example.io/v1 Thing` through the
/// trait's defaults, answering with the revised object, or
/// (`wrong_outcome`) with it as another operation's outcome.
struct Reviser {
    wrong_outcome: bool,
}

impl Layer for Reviser {
    fn kind(&self) -> LayerKind {
        LayerKind::Declarative
    }
    fn route(&self, ty: TypeRef<'_>, op: Op) -> Option<Route> {
        let served = ty.group == "example.io" && ty.kind == "Thing";
        (served && op == Op::ReviseReplica).then(|| {
            Route::from(Source {
                layer: LayerKind::Declarative,
                name: "reviser".into(),
            })
        })
    }
    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let Request::ReviseReplica { object, replicas } = *request else {
            unreachable!("routed ReviseReplica only");
        };
        let mut revised = object.clone();
        revised["spec"] = json!({ "replicas": replicas });
        Ok(if self.wrong_outcome {
            Outcome::Retained(revised)
        } else {
            Outcome::Revised(revised)
        })
    }
    fn catalog(&self) -> Vec<CatalogEntry> {
        Vec::new()
    }
}

#[rstest::rstest]
#[case::by_the_defaults(false)]
#[case::by_a_layer_answering_another_operation(true)]
fn an_edit_in_place_is_stored_or_refused_and_never_half_done(#[case] wrong_outcome: bool) {
    let chain = Interpreter::builder()
        .declarative_layer(Arc::new(Reviser { wrong_outcome }))
        .build()
        .unwrap();
    let mut object = thing();
    let lent = chain.revise_replica(&object, 3);
    let edited = chain.revise_replica(&mut object, 3);
    if wrong_outcome {
        for error in [lent.unwrap_err(), edited.unwrap_err()] {
            let error = error.to_string();
            assert!(error.contains("answered Retain instead"), "{error}");
        }
        assert_eq!(
            object,
            thing(),
            "a refused edit leaves the object as it was"
        );
    } else {
        let lent = lent.unwrap();
        assert_eq!(lent.value["spec"]["replicas"], 3);
        assert_eq!(lent.served_by.layer, LayerKind::Declarative);
        assert_eq!(edited.unwrap().served_by.layer, LayerKind::Declarative);
        assert_eq!(object, lent.value);
    }
}

/// The builder's Lua limits reach the bundled customizations too (`--timeout`
/// on every command): with no memory to spare, a bundled script fails,
/// while the default limits answer.
#[test]
fn lua_limits_reach_the_bundled_layer() {
    use karmada_interpreter::declarative::{Limits, ScriptFailure};
    let cloneset = json!({"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
                          "metadata": {"name": "c", "namespace": "n"}, "spec": {"replicas": 2}});
    let answer = Interpreter::default().get_replicas(&cloneset).unwrap();
    assert_eq!(answer.served_by.layer, LayerKind::Thirdparty);
    let starved = Interpreter::builder()
        .lua_limits(Limits {
            memory: 1,
            ..Limits::default()
        })
        .build()
        .unwrap();
    let err = starved.get_replicas(&cloneset).unwrap_err();
    assert!(err.source_of::<ScriptFailure>().is_some(), "{err:?}");
    assert!(
        err.to_string()
            .contains("memory limit of the Lua state reached"),
        "{err}"
    );
    // The native layer runs no script: its answers do not depend on the limits.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}});
    assert!(starved.get_replicas(&pod).is_ok());
}
