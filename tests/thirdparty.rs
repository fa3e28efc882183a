//! The bundled third-party layer: every bundled kind is served and listed,
//! and a user's customization overrides a bundled kind operation by operation
//! (the declarative layer comes first in the chain).

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::interpreter::LayerKind;
use karmada_interpreter::{load, thirdparty, Interpreter};
use serde_json::json;
use std::path::Path;

fn cloneset() -> serde_json::Value {
    json!({
        "apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
        "metadata": {"name": "web", "namespace": "apps", "generation": 2},
        "spec": {"replicas": 3, "template": {"spec": {"containers": [
            {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "250m"}}}]}}},
        "status": {"observedGeneration": 2, "updatedReplicas": 3, "availableReplicas": 3, "replicas": 3}
    })
}

const OVERRIDE: &str = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: my-cloneset-health
spec:
  target:
    apiVersion: apps.kruise.io/v1alpha1
    kind: CloneSet
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.metadata.annotations ~= nil and observedObj.metadata.annotations["ready"] == "yes"
        end
"#;

#[test]
fn bundled_kinds_are_served_by_the_bundled_layer() {
    let chain = Interpreter::default();
    let answer = chain.interpret_health(&cloneset()).unwrap();
    assert!(answer.value);
    assert_eq!(answer.served_by.layer, LayerKind::Thirdparty);
    let replicas = chain.get_replicas(&cloneset()).unwrap();
    assert_eq!(replicas.value.replicas, 3);
    assert_eq!(replicas.served_by.layer, LayerKind::Thirdparty);
}

#[test]
fn a_user_customization_overrides_a_bundled_kind_per_operation() {
    let customizations = load::customizations_from_str(OVERRIDE, "override.yaml").unwrap();
    let chain = Interpreter::builder()
        .customizations(customizations)
        .build()
        .unwrap();
    let health = chain.interpret_health(&cloneset()).unwrap();
    assert!(
        !health.value,
        "the user's script decides, not the bundled one"
    );
    assert_eq!(health.served_by.layer, LayerKind::Declarative);
    assert_eq!(health.served_by.name, "my-cloneset-health");
    let mut annotated = cloneset();
    annotated["metadata"]["annotations"] = json!({"ready": "yes"});
    assert!(chain.interpret_health(&annotated).unwrap().value);
    // Operations the user did not customize still come from the bundle.
    let replicas = chain.get_replicas(&cloneset()).unwrap();
    assert_eq!(replicas.served_by.layer, LayerKind::Thirdparty);
}

#[test]
fn every_bundled_kind_is_listed() {
    let chain = Interpreter::default();
    let catalog = chain.catalog();
    let kinds: Vec<&str> = thirdparty::bundled_kinds().collect();
    // Every `thirdparty/<group>/<version>/<Kind>/customizations.yaml` is
    // embedded: Karmada's 27 kinds and the ones bundled beyond its catalogue.
    let root = Path::new(crate::support::ROOT).join("thirdparty");
    let on_disk = karmada_interpreter_layout::customization_files(&root)
        .unwrap()
        .len();
    assert_eq!(kinds.len(), on_disk, "{kinds:?}");
    assert!(kinds.len() >= 27 + 24, "{kinds:?}");
    for path in kinds {
        let (api_version, kind) = path.rsplit_once('/').unwrap();
        let ops: Vec<Op> = catalog
            .iter()
            .filter(|e| e.api_version == api_version && e.kind == kind)
            .inspect(|e| {
                assert_eq!(
                    e.source.layer,
                    LayerKind::Thirdparty,
                    "{path} {}",
                    e.operation
                )
            })
            .map(|e| e.operation)
            .collect();
        assert!(!ops.is_empty(), "{path} is not listed");
    }
    // The CLI prints the same table.
    let out = crate::support::bin().arg("list").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.contains("CloneSet")
            && l.contains("InterpretHealth")
            && l.contains("thirdparty")),
        "{text}"
    );
}

/// `spec.mpiReplicaSpecs` is a map, which has no order (Karmada's own script
/// lists the components in Go's random map order): the bundled MPIJob script
/// sorts them by name, so every call gives the same list whatever order the
/// engine hands the map's keys over in. Golden cases compare components as a
/// set and cannot show this.
#[test]
fn mpijob_components_come_sorted_by_name() {
    let template = json!({"spec": {"containers": [{"name": "c", "image": "mpi"}]}});
    let object = json!({
        "apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
        "metadata": {"name": "pi", "namespace": "ml"},
        "spec": {"mpiReplicaSpecs": {
            "Worker": {"replicas": 2, "template": template},
            "Launcher": {"replicas": 1, "template": template},
            "Evaluator": {"template": template},
            "Chief": {"replicas": 1, "template": template},
            "PS": {"replicas": 1, "template": template},
            "Master": {"replicas": 1, "template": template},
            "Server": {"replicas": 1, "template": template},
            "Driver": {"replicas": 1, "template": template}
        }}
    });
    let chain = Interpreter::default();
    for _ in 0..3 {
        let answer = chain.get_components(&object).unwrap();
        assert_eq!(answer.served_by.layer, LayerKind::Thirdparty);
        let names: Vec<&str> = answer.value.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Chief",
                "Driver",
                "Evaluator",
                "Launcher",
                "Master",
                "PS",
                "Server",
                "Worker"
            ]
        );
    }
}
