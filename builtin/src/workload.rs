//! Handler pieces shared by the workload kinds (Deployment, ReplicaSet,
//! StatefulSet, DaemonSet, Job, CronJob, Pod): replica and dependency
//! results from a decoded pod spec, raw replica revision, and the argument
//! plumbing of two-input operations.

use karmada_interpreter_core::api::InterpreterOperation;
use karmada_interpreter_core::error::{Error, Result};
use karmada_interpreter_core::interpreter::{InPlaceRequest, Outcome, ReplicaResult, Request};
use karmada_interpreter_core::k8s::dependencies::{
    dependencies_at, verify_dependencies, POD_SPEC_DEPENDENCY_READS,
};
use karmada_interpreter_core::k8s::field::{get, int32, namespace};
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::{self, Ty};
use karmada_interpreter_core::k8s::requirements::{
    requirements_at, RequirementsOptions, POD_SPEC_REQUIREMENT_READS,
};
use karmada_interpreter_core::k8s::written::Written;
use serde_json::Value;

/// Typed acceptance of the object, as Karmada's typed decode of the whole
/// object does it: a wrong JSON type, a fraction in an integer field, a
/// quantity or time that does not parse is an error wherever it is. An
/// integer too large for a 32-bit field, which that decode silently wraps,
/// is refused only in the fields the operation reads (`reads`, see
/// [`Keep`]): there a wrapped value would be a wrong answer, elsewhere it
/// changes nothing. Handlers then read those fields with the floor's lenient
/// readers ([`field::get`], [`field::int`]).
pub(crate) fn check(object: &Value, ty: &'static Ty, reads: Keep) -> Result<()> {
    // One walk when the object is fine (the usual case); only a refused
    // object is walked again to tell an unread overflow from an error.
    if normalize::check(object, "", object, ty).is_ok() {
        return Ok(());
    }
    normalize::check_wrapping(object, "", object, ty)?;
    Ok(normalize::check_reads(object, "", object, ty, reads)?)
}

/// `metadata.generation`.
pub(crate) const GENERATION: (&str, Keep) =
    ("metadata", Keep::Members(&[("generation", Keep::All)]));

/// `metadata.namespace` (the namespace of the dependencies).
pub(crate) const NAMESPACE: (&str, Keep) = ("metadata", Keep::Members(&[("namespace", Keep::All)]));

/// A pod template's spec, as far as the requirements read it.
pub(crate) const TEMPLATE_REQUIREMENTS: Keep =
    Keep::Members(&[("spec", POD_SPEC_REQUIREMENT_READS)]);

/// A pod template's spec, as far as the dependencies read it.
pub(crate) const TEMPLATE_DEPENDENCIES: Keep =
    Keep::Members(&[("spec", POD_SPEC_DEPENDENCY_READS)]);

/// What [`spec_replicas`] reads.
const SPEC_REPLICAS: Keep = Keep::Members(&[(
    "spec",
    Keep::Members(&[("replicas", Keep::All), ("template", TEMPLATE_REQUIREMENTS)]),
)]);

/// What InterpretDependency reads of a workload with a pod template at
/// `spec.template` (Deployment, ReplicaSet, DaemonSet, Job).
pub(crate) const SPEC_TEMPLATE_DEPENDENCIES: Keep = Keep::Members(&[
    NAMESPACE,
    (
        "spec",
        Keep::Members(&[("template", TEMPLATE_DEPENDENCIES)]),
    ),
]);

/// `InterpretReplica` result for `replicas` replicas of the pod spec at
/// `prefix` (absent spec = empty spec) of an object [`check`]ed for it.
pub(crate) fn replicas_of(
    object: &Value,
    prefix: &str,
    spec: Option<&Value>,
    replicas: i32,
) -> Result<Outcome> {
    let requirements = requirements_at(object, prefix, spec, RequirementsOptions::default())?;
    Ok(Outcome::Replicas(Box::new(ReplicaResult {
        replicas,
        requirements,
    })))
}

/// `InterpretReplica` of a workload with `spec.replicas` (absent → 0) and a
/// pod template at `spec.template` (Deployment, ReplicaSet, StatefulSet).
pub(crate) fn spec_replicas(request: &Request<'_>, ty: &'static Ty) -> Result<Outcome> {
    let object = request.object();
    check(object, ty, SPEC_REPLICAS)?;
    let replicas = int32(object, &["spec", "replicas"]).unwrap_or(0);
    let pod = get(object, &["spec", "template", "spec"]);
    replicas_of(object, "spec.template.spec", pod, replicas)
}

/// `InterpretDependency` result for the pod spec of an object [`check`]ed for it, in
/// the namespace of the workload's own metadata (the template's is never used).
pub(crate) fn dependencies_of(
    object: &Value,
    spec: Option<&Value>,
) -> Result<Vec<karmada_interpreter_core::api::DependentObjectReference>> {
    let Some(spec) = spec else {
        return Ok(Vec::new());
    };
    let deps = dependencies_at(Some(spec), namespace(object));
    verify_dependencies(object, &deps)?;
    Ok(deps)
}

/// `ReviseReplica` of an integer field, in place: present integer →
/// replaced; absent (or an absent/`null` parent) → unchanged; anything else
/// → error (the object unchanged).
pub(crate) fn revise_int_field(
    edit: InPlaceRequest<'_>,
    path: &'static [&'static str],
) -> Result<Written> {
    let InPlaceRequest::ReviseReplica { object, replicas } = edit else {
        return Err(wrong_operation(edit.operation(), "ReviseReplica"));
    };
    let mut written = Written::new();
    written.replace_int(object, path, replicas)?;
    Ok(written)
}

/// The (desired, observed) pair of a `Retain` request.
pub(crate) fn retain_args(edit: InPlaceRequest<'_>) -> Result<(&mut Value, &Value)> {
    match edit {
        InPlaceRequest::Retain { desired, observed } => Ok((desired, observed)),
        other => Err(wrong_operation(other.operation(), "Retain")),
    }
}

/// A handler reached with another operation's request (a table bug).
pub(crate) fn wrong_request(request: &Request<'_>, expected: &str) -> Error {
    wrong_operation(request.operation(), expected)
}

/// A handler for `expected` reached with `operation` (a table bug).
pub(crate) fn wrong_operation(operation: InterpreterOperation, expected: &str) -> Error {
    Error::InvalidInput {
        operation,
        reason: format!("native {expected} handler called for {operation}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use karmada_interpreter_core::api::InterpreterOperation as Op;
    use karmada_interpreter_core::interpreter::Request;

    fn error_of(request: Request<'_>) -> String {
        match super::super::layer().interpret(&request) {
            Err(e) => e.to_string(),
            Ok(outcome) => panic!("expected an error, got {outcome:?}"),
        }
    }

    #[test]
    fn errors_name_the_object_and_the_field() {
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"}, "spec": {"replicas": "3"}});
        let e = error_of(Request::ReviseReplica {
            object: &d,
            replicas: 1,
        });
        assert!(
            e.contains("Deployment shop/web") && e.contains("spec.replicas"),
            "{e}"
        );
        let e = error_of(Request::InterpretReplica { object: &d });
        assert!(
            e.contains("Deployment shop/web") && e.contains("spec.replicas"),
            "{e}"
        );

        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a"}, {"name": "b", "resources": {"limits": {"memory": "lots"}}}]}});
        let e = error_of(Request::InterpretReplica { object: &pod });
        assert!(
            e.contains("spec.containers[1].resources.limits.memory"),
            "{e}"
        );

        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}});
        let observed = json!({"apiVersion": "batch/v1", "kind": "Job",
            "spec": {"template": {"metadata": {"labels": {"a": 1}}}}});
        let e = error_of(Request::Retain {
            desired: &job,
            observed: &observed,
        });
        assert!(e.contains("spec.template.metadata.labels.a"), "{e}");

        let ing = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": {"name": "i", "namespace": "web"}, "spec": {"tls": [{"hosts": ["a"]}]}});
        let e = error_of(Request::InterpretDependency { object: &ing });
        assert!(
            e.contains("Ingress web/i") && e.contains("dependencies[0]"),
            "{e}"
        );
    }

    #[test]
    fn typed_acceptance_names_deep_fields_and_reads_like_go() {
        let bad = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "n"},
            "spec": {"template": {"spec": {"containers": [{"name": "a", "envFrom": [{"configMapRef": {"name": 80}}]}]}}}});
        let e = error_of(Request::InterpretDependency { object: &bad });
        assert!(e.contains("Deployment n/d"), "{e}");
        assert!(
            e.contains("spec.template.spec.containers[0].envFrom[0].configMapRef.name"),
            "{e}"
        );
        // Integral floats are integers, nulls are unset, `null` list
        // elements are Go's zero value.
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"replicas": 2.0, "selector": null,
                     "template": {"spec": {"containers": [{"name": null}, null]}}}});
        match super::super::layer().interpret(&Request::InterpretReplica { object: &d }) {
            Ok(karmada_interpreter_core::interpreter::Outcome::Replicas(r)) => {
                assert_eq!(r.replicas, 2)
            }
            other => panic!("{other:?}"),
        }
        let frac =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 2.5}});
        let e = error_of(Request::InterpretReplica { object: &frac });
        assert!(e.contains("spec.replicas"), "{e}");
        let wide = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 4294967298_i64}});
        let e = error_of(Request::InterpretHealth { object: &wide });
        assert!(e.contains("spec.replicas"), "{e}");
    }

    /// `value` written at the JSON pointer `at` of `base` (the parent exists).
    fn with(mut base: Value, at: &str, value: Value) -> Value {
        let (parent, key) = at.rsplit_once('/').expect("a pointer");
        match base.pointer_mut(parent) {
            Some(Value::Object(m)) => {
                m.insert(key.to_owned(), value);
            }
            Some(Value::Array(items)) => items[key.parse::<usize>().expect("an index")] = value,
            _ => panic!("no parent at {parent}"),
        }
        base
    }

    fn deployment() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "generation": 1,
                         "annotations": {"resourcetemplate.karmada.io/generation": "1"}},
            "spec": {"replicas": 2, "template": {"spec": {"priority": 0, "containers": [
                {"name": "a", "ports": [{"containerPort": 80}],
                 "envFrom": [{"configMapRef": {"name": "settings"}}],
                 "resources": {"requests": {"cpu": "100m"}}}]}}},
            "status": {"observedGeneration": 1, "updatedReplicas": 2, "availableReplicas": 2,
                       "readyReplicas": 2}})
    }

    fn pod() -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"priority": 0, "overhead": {"cpu": "10m"}, "containers": [
                {"name": "a", "ports": [{"containerPort": 80}],
                 "resources": {"requests": {"cpu": "100m"}}}]},
            "status": {"phase": "Running", "qosClass": "Burstable"}})
    }

    fn daemon_set() -> Value {
        let mut d = deployment();
        d["kind"] = json!("DaemonSet");
        d["status"] = json!({"observedGeneration": 1, "desiredNumberScheduled": 1,
            "updatedNumberScheduled": 1, "numberAvailable": 1, "numberReady": 1});
        d
    }

    fn job() -> Value {
        let mut d = deployment();
        d["kind"] = json!("Job");
        d["apiVersion"] = json!("batch/v1");
        d["spec"] =
            json!({"parallelism": 2, "backoffLimit": 6, "template": d["spec"]["template"].clone()});
        d
    }

    fn stateful_set() -> Value {
        let mut d = deployment();
        d["kind"] = json!("StatefulSet");
        d["spec"]["volumeClaimTemplates"] = json!([{"metadata": {"name": "data"}}]);
        d
    }

    const TOO_WIDE: i64 = 2_147_483_648;

    /// A 32-bit overflow fails an operation exactly when the operation reads
    /// the field (elsewhere it answers as it does without it); a wrong type,
    /// a quantity or time that does not parse fails it wherever it is, as
    /// Karmada's typed decode of the whole object does. The error names the
    /// object and the field.
    #[rstest::rstest]
    #[case::replicas_read_by_replica(Op::InterpretReplica, deployment(), "/spec/replicas", json!(TOO_WIDE), Some("spec.replicas"))]
    #[case::replicas_not_read_by_dependency(Op::InterpretDependency, deployment(), "/spec/replicas", json!(TOO_WIDE), None)]
    #[case::replicas_read_by_health(Op::InterpretHealth, deployment(), "/spec/replicas", json!(TOO_WIDE), Some("spec.replicas"))]
    #[case::port_not_read_by_replica(Op::InterpretReplica, deployment(), "/spec/template/spec/containers/0/ports/0/containerPort", json!(TOO_WIDE), None)]
    #[case::port_not_read_by_dependency(Op::InterpretDependency, deployment(), "/spec/template/spec/containers/0/ports/0/containerPort", json!(TOO_WIDE), None)]
    #[case::port_type_refused_unread(Op::InterpretDependency, deployment(), "/spec/template/spec/containers/0/ports/0/containerPort", json!("80"), Some("spec.template.spec.containers[0].ports[0].containerPort"))]
    #[case::port_not_read_by_health(Op::InterpretHealth, deployment(), "/spec/template/spec/containers/0/ports/0/containerPort", json!(TOO_WIDE), None)]
    #[case::priority_not_read_by_replica(Op::InterpretReplica, deployment(), "/spec/template/spec/priority", json!(TOO_WIDE), None)]
    #[case::quantity_read_by_replica(Op::InterpretReplica, deployment(), "/spec/template/spec/containers/0/resources/requests/cpu", json!("lots"), Some("spec.template.spec.containers[0].resources.requests.cpu"))]
    #[case::quantity_refused_unread(Op::InterpretDependency, deployment(), "/spec/template/spec/containers/0/resources/requests/cpu", json!("lots"), Some("spec.template.spec.containers[0].resources.requests.cpu"))]
    #[case::reference_read_by_dependency(Op::InterpretDependency, deployment(), "/spec/template/spec/containers/0/envFrom/0/configMapRef/name", json!(7), Some("spec.template.spec.containers[0].envFrom[0].configMapRef.name"))]
    #[case::reference_type_refused_unread(Op::InterpretReplica, deployment(), "/spec/template/spec/containers/0/envFrom/0/configMapRef/name", json!(7), Some("spec.template.spec.containers[0].envFrom[0].configMapRef.name"))]
    #[case::status_read_by_health(Op::InterpretHealth, deployment(), "/status/updatedReplicas", json!(TOO_WIDE), Some("status.updatedReplicas"))]
    #[case::status_not_read_by_health(Op::InterpretHealth, deployment(), "/status/readyReplicas", json!(TOO_WIDE), None)]
    #[case::status_not_read_by_replica(Op::InterpretReplica, deployment(), "/status/updatedReplicas", json!(TOO_WIDE), None)]
    #[case::generation_read_by_health(Op::InterpretHealth, deployment(), "/metadata/generation", json!("1"), Some("metadata.generation"))]
    #[case::namespace_read_by_dependency(Op::InterpretDependency, deployment(), "/metadata/namespace", json!(1), Some("metadata.namespace"))]
    #[case::label_type_refused_unread(Op::InterpretReplica, deployment(), "/metadata/labels", json!({"a": 1}), Some("metadata.labels.a"))]
    #[case::pod_overhead_read_by_replica(Op::InterpretReplica, pod(), "/spec/overhead/cpu", json!("lots"), Some("spec.overhead.cpu"))]
    #[case::pod_port_not_read_by_replica(Op::InterpretReplica, pod(), "/spec/containers/0/ports/0/containerPort", json!(TOO_WIDE), None)]
    #[case::pod_phase_read_by_health(Op::InterpretHealth, pod(), "/status/phase", json!(5), Some("status.phase"))]
    #[case::pod_qos_type_refused_unread(Op::InterpretHealth, pod(), "/status/qosClass", json!(5), Some("status.qosClass"))]
    #[case::pod_priority_not_read_by_health(Op::InterpretHealth, pod(), "/spec/priority", json!(TOO_WIDE), None)]
    #[case::daemon_set_counter_read_by_health(Op::InterpretHealth, daemon_set(), "/status/numberAvailable", json!(TOO_WIDE), Some("status.numberAvailable"))]
    #[case::daemon_set_counter_not_read_by_health(Op::InterpretHealth, daemon_set(), "/status/numberReady", json!(TOO_WIDE), None)]
    #[case::job_parallelism_read_by_replica(Op::InterpretReplica, job(), "/spec/parallelism", json!(TOO_WIDE), Some("spec.parallelism"))]
    #[case::job_backoff_not_read_by_replica(Op::InterpretReplica, job(), "/spec/backoffLimit", json!(TOO_WIDE), None)]
    #[case::claim_template_read_by_dependency(Op::InterpretDependency, stateful_set(), "/spec/volumeClaimTemplates/0/metadata/name", json!(5), Some("spec.volumeClaimTemplates[0].metadata.name"))]
    #[case::counter_read_by_reflection(Op::InterpretStatus, deployment(), "/status/readyReplicas", json!(TOO_WIDE), Some("status.readyReplicas"))]
    #[case::condition_time_refused_unread(Op::InterpretStatus, deployment(), "/status/conditions", json!([{"type": "Available", "lastUpdateTime": "soon"}]), Some("status.conditions[0].lastUpdateTime"))]
    #[case::sts_replicas_not_read_by_dependency(Op::InterpretDependency, stateful_set(), "/spec/replicas", json!(TOO_WIDE), None)]
    fn bad_values_fail_only_operations_that_read_them(
        #[case] operation: Op,
        #[case] base: Value,
        #[case] at: &str,
        #[case] bad: Value,
        #[case] refused: Option<&str>,
    ) {
        let object = with(base.clone(), at, bad);
        let request = |object| match operation {
            Op::InterpretReplica => Request::InterpretReplica { object },
            Op::InterpretHealth => Request::InterpretHealth { object },
            Op::InterpretStatus => Request::InterpretStatus { object },
            _ => Request::InterpretDependency { object },
        };
        let layer = super::super::layer();
        let answer = layer.interpret(&request(&object));
        match refused {
            Some(field) => {
                let e = answer
                    .expect_err("the operation reads the field")
                    .to_string();
                let kind = base["kind"].as_str().unwrap_or_default();
                assert!(e.contains(kind) && e.contains("web"), "{e}");
                assert!(e.contains(field), "{e}");
            }
            None => {
                let good = layer.interpret(&request(&base)).expect("the base answers");
                assert_eq!(answer.expect("the field is not read"), good);
            }
        }
    }

    #[test]
    fn raw_access_returns_the_input_unchanged_when_nothing_is_owned() {
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"x": {"y": [1, 2.5]}}, "extra": null});
        match super::super::layer().interpret(&Request::ReviseReplica {
            object: &d,
            replicas: 4,
        }) {
            Ok(karmada_interpreter_core::interpreter::Outcome::Revised(v)) => assert_eq!(v, d),
            other => panic!("{other:?}"),
        }
    }
}
