//! The native layer: Karmada's built-in interpreters, one module per kind,
//! one table of (apiVersion, kind, operation) → handler.
//!
//! `TABLE` below is the one index: dispatch, `Layer::source`, the catalog
//! and `karmada-interpreter list` are all derived from it.
//!
//! **Adding a kind touches exactly two places:** a new module
//! `builtin/src/<kind>.rs` (every operation of the kind, status handlers
//! included, declared with `mod <kind>;` here) and its rows in `TABLE`. If
//! the handlers need the kind's typed shape, add the kind to the generator's
//! roots in `tools/gen_k8s_schema.py` and regenerate
//! `crates/core/src/k8s/normalize/schema.rs` (a test checks it matches).
//!
//! Module map:
//!
//! - one module per kind, named after the kind in lower case:
//!   `cronjob`, `daemonset`, `deployment`, `horizontalpodautoscaler`,
//!   `ingress`, `job`, `persistentvolume`, `persistentvolumeclaim`, `pod`,
//!   `poddisruptionbudget`, `replicaset`, `secret`, `service`,
//!   `serviceaccount`, `serviceimport`, `statefulset`;
//! - `generic`: whole-status reflection, InterpretStatus for every kind
//!   without a handler of its own (the `*/*` row);
//! - `workload`: pieces the workload kinds share (typed acceptance of the
//!   whole object, replica and dependency results from a pod spec, replica
//!   revision, the arguments of editing operations);
//! - `status`: pieces the AggregateStatus and InterpretStatus handlers share
//!   (decoding status items, generation bookkeeping, the workload counters,
//!   load-balancer ingress merging).
//!
//! Everything about Kubernetes objects that is not a handler — reading
//! fields, typed acceptance and normalization (`normalize::check` on the
//! whole object, no allocation on success, errors naming the object and the
//! field), quantities, times, validation, pod-spec requirements and
//! dependencies — is the floor below every layer, [`crate::k8s`]. The Lua
//! `kube` module calls the same floor functions as the handlers here
//! ([`crate::k8s::requirements`], [`crate::k8s::dependencies`]), so both
//! compute exactly the same thing.
#![deny(missing_docs)]

// The floor, under the names this crate's modules use.
use karmada_interpreter_core::{api, error, interpreter, k8s, Error};

mod cronjob;
mod daemonset;
mod deployment;
mod generic;
mod horizontalpodautoscaler;
mod ingress;
mod job;
mod persistentvolume;
mod persistentvolumeclaim;
mod pod;
mod poddisruptionbudget;
mod replicaset;
mod secret;
mod service;
mod serviceaccount;
mod serviceimport;
mod statefulset;
mod status;
mod workload;

use crate::api::InterpreterOperation;
use crate::error::Result;
use crate::interpreter::{
    CatalogEntry, InPlaceRequest, Layer, LayerKind, Outcome, OwnedRequest, Request, Source,
};
use kube::core::GroupVersionKind;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};
use InterpreterOperation as Op;

/// A native handler for one (kind, operation).
#[derive(Clone, Copy)]
pub(crate) enum Handler {
    /// Reads the request's objects.
    Read(fn(&Request<'_>) -> Result<Outcome>),
    /// Edits the object in place (ReviseReplica, Retain), touching only the
    /// fields it writes; on error the object is unchanged.
    Edit(fn(InPlaceRequest<'_>) -> Result<()>),
}

/// One row of the native table. `"*"` in `api_version` and `kind` marks a
/// fallback that serves every kind without a row of its own.
struct Row {
    api_version: &'static str,
    kind: &'static str,
    operation: InterpreterOperation,
    handler: Handler,
}

const fn row(
    api_version: &'static str,
    kind: &'static str,
    operation: InterpreterOperation,
    handler: fn(&Request<'_>) -> Result<Outcome>,
) -> Row {
    Row {
        api_version,
        kind,
        operation,
        handler: Handler::Read(handler),
    }
}

/// A row whose handler edits the object ([`Handler::Edit`]).
const fn edit(
    api_version: &'static str,
    kind: &'static str,
    operation: InterpreterOperation,
    handler: fn(InPlaceRequest<'_>) -> Result<()>,
) -> Row {
    Row {
        api_version,
        kind,
        operation,
        handler: Handler::Edit(handler),
    }
}

/// Every (kind, operation) Karmada's native interpreter serves.
#[rustfmt::skip]
static TABLE: &[Row] = &[
    // apps/v1
    row("apps/v1", "Deployment", Op::InterpretReplica, deployment::interpret_replica),
    edit("apps/v1", "Deployment", Op::ReviseReplica, deployment::revise_replica),
    edit("apps/v1", "Deployment", Op::Retain, deployment::retain),
    row("apps/v1", "Deployment", Op::InterpretHealth, deployment::interpret_health),
    row("apps/v1", "Deployment", Op::InterpretDependency, deployment::interpret_dependency),
    row("apps/v1", "ReplicaSet", Op::InterpretReplica, replicaset::interpret_replica),
    edit("apps/v1", "ReplicaSet", Op::ReviseReplica, replicaset::revise_replica),
    row("apps/v1", "ReplicaSet", Op::InterpretHealth, replicaset::interpret_health),
    row("apps/v1", "ReplicaSet", Op::InterpretDependency, replicaset::interpret_dependency),
    row("apps/v1", "StatefulSet", Op::InterpretReplica, statefulset::interpret_replica),
    edit("apps/v1", "StatefulSet", Op::ReviseReplica, statefulset::revise_replica),
    row("apps/v1", "StatefulSet", Op::InterpretHealth, statefulset::interpret_health),
    row("apps/v1", "StatefulSet", Op::InterpretDependency, statefulset::interpret_dependency),
    row("apps/v1", "DaemonSet", Op::InterpretHealth, daemonset::interpret_health),
    row("apps/v1", "DaemonSet", Op::InterpretDependency, daemonset::interpret_dependency),
    // batch/v1
    row("batch/v1", "Job", Op::InterpretReplica, job::interpret_replica),
    edit("batch/v1", "Job", Op::ReviseReplica, job::revise_replica),
    edit("batch/v1", "Job", Op::Retain, job::retain),
    row("batch/v1", "Job", Op::InterpretDependency, job::interpret_dependency),
    row("batch/v1", "CronJob", Op::InterpretDependency, cronjob::interpret_dependency),
    // v1
    row("v1", "Pod", Op::InterpretReplica, pod::interpret_replica),
    row("v1", "Pod", Op::InterpretHealth, pod::interpret_health),
    row("v1", "Pod", Op::Retain, pod::retain),
    row("v1", "Pod", Op::InterpretDependency, pod::interpret_dependency),
    edit("v1", "Service", Op::Retain, service::retain),
    row("v1", "Service", Op::InterpretHealth, service::interpret_health),
    edit("v1", "ServiceAccount", Op::Retain, serviceaccount::retain),
    edit("v1", "PersistentVolumeClaim", Op::Retain, persistentvolumeclaim::retain),
    row("v1", "PersistentVolumeClaim", Op::InterpretHealth, persistentvolumeclaim::interpret_health),
    edit("v1", "PersistentVolume", Op::Retain, persistentvolume::retain),
    edit("v1", "Secret", Op::Retain, secret::retain),
    // networking.k8s.io/v1, policy/v1, multicluster.x-k8s.io/v1alpha1
    row("networking.k8s.io/v1", "Ingress", Op::InterpretHealth, ingress::interpret_health),
    row("networking.k8s.io/v1", "Ingress", Op::InterpretDependency, ingress::interpret_dependency),
    row("policy/v1", "PodDisruptionBudget", Op::InterpretHealth, poddisruptionbudget::interpret_health),
    row("multicluster.x-k8s.io/v1alpha1", "ServiceImport", Op::InterpretDependency, serviceimport::interpret_dependency),
    // AggregateStatus
    row("apps/v1", "Deployment", Op::AggregateStatus, deployment::aggregate),
    row("apps/v1", "ReplicaSet", Op::AggregateStatus, replicaset::aggregate),
    row("apps/v1", "StatefulSet", Op::AggregateStatus, statefulset::aggregate),
    row("apps/v1", "DaemonSet", Op::AggregateStatus, daemonset::aggregate),
    row("batch/v1", "Job", Op::AggregateStatus, job::aggregate),
    row("batch/v1", "CronJob", Op::AggregateStatus, cronjob::aggregate),
    row("v1", "Pod", Op::AggregateStatus, pod::aggregate),
    row("v1", "Service", Op::AggregateStatus, service::aggregate),
    row("networking.k8s.io/v1", "Ingress", Op::AggregateStatus, ingress::aggregate),
    row("v1", "PersistentVolume", Op::AggregateStatus, persistentvolume::aggregate),
    row("v1", "PersistentVolumeClaim", Op::AggregateStatus, persistentvolumeclaim::aggregate),
    row("policy/v1", "PodDisruptionBudget", Op::AggregateStatus, poddisruptionbudget::aggregate),
    row("autoscaling/v2", "HorizontalPodAutoscaler", Op::AggregateStatus, horizontalpodautoscaler::aggregate),
    // InterpretStatus: dedicated handlers
    row("apps/v1", "Deployment", Op::InterpretStatus, deployment::reflect),
    row("apps/v1", "ReplicaSet", Op::InterpretStatus, replicaset::reflect),
    row("apps/v1", "StatefulSet", Op::InterpretStatus, statefulset::reflect),
    row("apps/v1", "DaemonSet", Op::InterpretStatus, daemonset::reflect),
    row("v1", "Service", Op::InterpretStatus, service::reflect),
    row("batch/v1", "Job", Op::InterpretStatus, job::reflect),
    row("policy/v1", "PodDisruptionBudget", Op::InterpretStatus, poddisruptionbudget::reflect),
    row("autoscaling/v2", "HorizontalPodAutoscaler", Op::InterpretStatus, horizontalpodautoscaler::reflect),
    // Every other kind: whole-status reflection.
    row("*", "*", Op::InterpretStatus, generic::reflect_whole_status),
];

/// The native layer of the chain.
#[derive(Debug, Default)]
pub struct NativeLayer;

/// The shared native layer.
pub fn layer() -> Arc<dyn Layer> {
    static LAYER: OnceLock<Arc<dyn Layer>> = OnceLock::new();
    LAYER.get_or_init(|| Arc::new(NativeLayer)).clone()
}

impl NativeLayer {
    /// The row serving objects of `gvk`, without allocating.
    fn find(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<usize> {
        let parsed = !(gvk.group.is_empty() && gvk.version.is_empty());
        let (group, version) = (gvk.group.as_str(), gvk.version.as_str());
        let matches = |api_version: &str| {
            if group.is_empty() {
                api_version == version
            } else {
                api_version.split_once('/') == Some((group, version))
            }
        };
        find_row(parsed.then_some(matches), &gvk.kind, operation)
    }

    /// The row serving `object`.
    fn find_for(&self, object: &Value, operation: InterpreterOperation) -> Result<&'static Row> {
        // Dispatch without allocating: the object's own apiVersion and kind.
        let field = |key: &str| object.get(key).and_then(Value::as_str);
        let api_version = field("apiVersion").unwrap_or("");
        let kind = field("kind").unwrap_or("");
        let (group, version) = crate::k8s::object::split_api_version(api_version);
        let parsed = !(group.is_empty() && version.is_empty());
        let matches = |candidate: &str| candidate == api_version;
        match find_row(parsed.then_some(matches), kind, operation).and_then(|i| TABLE.get(i)) {
            Some(row) => Ok(row),
            None => {
                let gvk = crate::interpreter::gvk_of(object);
                Err(crate::Error::NotServed {
                    api_version: crate::k8s::object::api_version_of(&gvk),
                    kind: gvk.kind,
                    operation,
                })
            }
        }
    }
}

/// The index of the row serving (`api_version`, `kind`, `operation`), where
/// `api_version` tells whether a row's apiVersion is the object's; it is
/// `None` when Karmada cannot parse the object's (more than one `/`): such
/// objects match no kind's row, only the `*/*` fallback (InterpretStatus).
fn find_row(
    api_version: Option<impl Fn(&str) -> bool>,
    kind: &str,
    operation: InterpreterOperation,
) -> Option<usize> {
    let exact = api_version.and_then(|matches| {
        TABLE
            .iter()
            .position(|r| r.operation == operation && r.kind == kind && matches(r.api_version))
    });
    exact.or_else(|| {
        TABLE
            .iter()
            .position(|r| r.operation == operation && r.api_version == "*" && r.kind == "*")
    })
}

/// `Source.name` of each row (`apps/v1/Deployment Retain`), built once.
fn row_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        TABLE
            .iter()
            .map(|r| format!("{}/{} {}", r.api_version, r.kind, r.operation))
            .collect()
    })
}

impl Layer for NativeLayer {
    fn kind(&self) -> LayerKind {
        LayerKind::Native
    }

    fn source(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<Source> {
        let name = row_names().get(self.find(gvk, operation)?)?;
        Some(Source {
            layer: LayerKind::Native,
            name: Cow::Borrowed(name.as_str()),
        })
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let row = self.find_for(request.object(), request.operation())?;
        match row.handler {
            Handler::Read(handler) => handler(request),
            // A lent object: the answer is an edited copy.
            Handler::Edit(_) => match *request {
                Request::ReviseReplica { object, replicas } => {
                    self.interpret_owned(OwnedRequest::ReviseReplica {
                        object: object.clone(),
                        replicas,
                    })
                }
                Request::Retain { desired, observed } => {
                    self.interpret_owned(OwnedRequest::Retain {
                        desired: desired.clone(),
                        observed,
                    })
                }
                _ => Err(workload::wrong_request(request, "editing")),
            },
        }
    }

    fn interpret_owned(&self, request: OwnedRequest<'_>) -> Result<Outcome> {
        match request {
            OwnedRequest::ReviseReplica {
                mut object,
                replicas,
            } => {
                self.interpret_in_place(InPlaceRequest::ReviseReplica {
                    object: &mut object,
                    replicas,
                })?;
                Ok(Outcome::Revised(object))
            }
            OwnedRequest::Retain {
                mut desired,
                observed,
            } => {
                self.interpret_in_place(InPlaceRequest::Retain {
                    desired: &mut desired,
                    observed,
                })?;
                Ok(Outcome::Retained(desired))
            }
        }
    }

    fn interpret_in_place(&self, request: InPlaceRequest<'_>) -> Result<()> {
        let row = self.find_for(request.object(), request.operation())?;
        match row.handler {
            Handler::Edit(handler) => handler(request),
            // Pod Retain reads and normalizes: its answer replaces the object.
            Handler::Read(handler) => {
                let outcome = handler(&request.as_request())?;
                request.store(outcome)
            }
        }
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        // The same source names as `source` gives: one name per table row.
        TABLE
            .iter()
            .zip(row_names())
            .map(|(r, name)| CatalogEntry {
                api_version: r.api_version.to_owned(),
                kind: r.kind.to_owned(),
                operation: r.operation,
                source: Source {
                    layer: LayerKind::Native,
                    name: Cow::Borrowed(name.as_str()),
                },
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::interpreter::{Chain, InPlaceRequest};

    /// The native layer alone, as a chain.
    fn native_chain() -> Chain {
        Chain::new(vec![super::layer()])
    }

    #[test]
    fn edits_in_place_write_only_their_fields_and_match_the_copying_forms() {
        let chain = native_chain();
        let original = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"resourcetemplate.karmada.io/retain-replicas": "true"}},
            "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "a"}]}}},
            "x-unknown": [1, 2.5, null]});
        let mut object = original.clone();
        let copy = chain.revise_replica(&object, 5).expect("revises").value;
        chain.revise_replica(&mut object, 5).expect("revises");
        assert_eq!(object, copy);
        let mut expected = original.clone();
        expected["spec"]["replicas"] = json!(5);
        assert_eq!(object, expected);

        let observed =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 7}});
        let copy = chain.retain(&object, &observed).expect("retains").value;
        let answer = chain.retain(&mut object, &observed).expect("retains");
        assert_eq!(
            answer.served_by.layer,
            crate::interpreter::LayerKind::Native
        );
        assert_eq!(object, copy);
        assert_eq!(object["spec"]["replicas"], 7);
        assert_eq!(object["x-unknown"], original["x-unknown"]);
    }

    #[test]
    fn a_failed_edit_in_place_leaves_the_object_unchanged() {
        let layer = super::layer();
        // Job Retain writes two fields; the second cannot be written.
        let desired = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"template": "not an object"}});
        let observed = json!({"apiVersion": "batch/v1", "kind": "Job",
            "spec": {"selector": {"matchLabels": {"a": "1"}},
                     "template": {"metadata": {"labels": {"a": "1"}}}}});
        let mut object = desired.clone();
        let e = layer
            .interpret_in_place(InPlaceRequest::Retain {
                desired: &mut object,
                observed: &observed,
            })
            .expect_err("spec.template is not an object");
        assert!(e.to_string().contains("spec.template"), "{e}");
        assert_eq!(object, desired);

        let desired =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": "1"}});
        let mut object = desired.clone();
        let e = layer
            .interpret_in_place(InPlaceRequest::ReviseReplica {
                object: &mut object,
                replicas: 3,
            })
            .expect_err("spec.replicas is not an integer");
        assert!(e.to_string().contains("spec.replicas"), "{e}");
        assert_eq!(object, desired);
    }

    #[test]
    fn pod_retain_in_place_stores_the_normalized_answer() {
        let chain = native_chain();
        let desired = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a"}]}});
        let observed = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"nodeName": "n1"}});
        let copy = chain.retain(&desired, &observed).expect("retains").value;
        let mut object = desired;
        chain.retain(&mut object, &observed).expect("retains");
        assert_eq!(object, copy);
        assert_eq!(object["spec"]["nodeName"], "n1");
    }
}
