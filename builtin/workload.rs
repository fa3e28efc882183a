//! Handler pieces shared by the workload kinds (Deployment, ReplicaSet,
//! StatefulSet, DaemonSet, Job, CronJob, Pod): replica and dependency
//! results from a decoded pod spec, raw replica revision, and the argument
//! plumbing of two-input operations.

use super::Edit;
use crate::api::InterpreterOperation;
use crate::error::{Error, Result};
use crate::interpreter::{Outcome, ReplicaResult, Request};
use crate::k8s::dependencies::{dependencies_at, verify_dependencies};
use crate::k8s::field::{self, get, int32, namespace};
use crate::k8s::normalize::{self, Ty};
use crate::k8s::requirements::{requirements_at, RequirementsOptions};
use serde_json::Value;
use std::borrow::Cow;

/// Typed acceptance of the whole object: every field the kind's
/// schema knows must have its type, quantities must parse. Handlers then read
/// the few fields they need with the floor's lenient readers
/// ([`field::get`], [`field::int`]).
pub(crate) fn check(object: &Value, ty: &'static Ty) -> Result<()> {
    Ok(normalize::check(object, "", object, ty)?)
}

/// `InterpretReplica` result for `replicas` replicas of the pod spec at
/// `prefix` (absent spec = empty spec) of a [`check`]ed object.
pub(crate) fn replicas_of(
    object: &Value,
    prefix: &str,
    spec: Option<&Value>,
    replicas: i32,
) -> Result<Outcome> {
    let requirements = requirements_at(object, prefix, spec, RequirementsOptions::default())?;
    Ok(Outcome::Replicas(ReplicaResult {
        replicas,
        requirements,
    }))
}

/// `InterpretReplica` of a workload with `spec.replicas` (absent → 0) and a
/// pod template at `spec.template` (Deployment, ReplicaSet, StatefulSet).
pub(crate) fn spec_replicas(request: &Request<'_>, ty: &'static Ty) -> Result<Outcome> {
    let object = request.object();
    check(object, ty)?;
    let replicas = int32(object, &["spec", "replicas"]).unwrap_or(0);
    let pod = get(object, &["spec", "template", "spec"]);
    replicas_of(object, "spec.template.spec", pod, replicas)
}

/// `InterpretDependency` result for the pod spec of a [`check`]ed object, in
/// the namespace of the workload's own metadata (the template's is never used).
pub(crate) fn dependencies_of(
    object: &Value,
    spec: Option<&Value>,
) -> Result<Vec<crate::api::DependentObjectReference>> {
    let Some(spec) = spec else {
        return Ok(Vec::new());
    };
    let deps = dependencies_at(Some(spec), namespace(object));
    verify_dependencies(object, &deps)?;
    Ok(deps)
}

/// `ReviseReplica` of an integer field: present integer → replaced;
/// absent (or an absent/`null` parent) → unchanged; anything else → error.
/// The object is copied only when the caller did not hand it over.
pub(crate) fn revise_int_field(edit: Edit<'_>, path: &[&str]) -> Result<Outcome> {
    let Edit::Revise { object, replicas } = edit else {
        return Err(wrong_operation(edit.operation(), "ReviseReplica"));
    };
    if field::get_int(&object, path)?.is_none() {
        return Ok(Outcome::Revised(object.into_owned()));
    }
    let mut revised = object.into_owned();
    field::set(&mut revised, path, Value::from(replicas))?;
    Ok(Outcome::Revised(revised))
}

/// The (desired, observed) pair of a `Retain` request.
pub(crate) fn retain_args(edit: Edit<'_>) -> Result<(Cow<'_, Value>, &Value)> {
    match edit {
        Edit::Retain { desired, observed } => Ok((desired, observed)),
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
    use serde_json::json;

    use crate::interpreter::Request;

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
            "spec": {"template": {"spec": {"containers": [{"name": "a", "ports": [{"containerPort": "80"}]}]}}}});
        let e = error_of(Request::InterpretDependency { object: &bad });
        assert!(e.contains("Deployment n/d"), "{e}");
        assert!(
            e.contains("spec.template.spec.containers[0].ports[0].containerPort"),
            "{e}"
        );
        // Integral floats are integers, nulls are unset, `null` list
        // elements are Go's zero value.
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"replicas": 2.0, "selector": null,
                     "template": {"spec": {"containers": [{"name": null}, null]}}}});
        match super::super::layer().interpret(&Request::InterpretReplica { object: &d }) {
            Ok(crate::interpreter::Outcome::Replicas(r)) => assert_eq!(r.replicas, 2),
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

    #[test]
    fn raw_access_returns_the_input_unchanged_when_nothing_is_owned() {
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"x": {"y": [1, 2.5]}}, "extra": null});
        match super::super::layer().interpret(&Request::ReviseReplica {
            object: &d,
            replicas: 4,
        }) {
            Ok(crate::interpreter::Outcome::Revised(v)) => assert_eq!(v, d),
            other => panic!("{other:?}"),
        }
    }
}
