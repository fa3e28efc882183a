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
//! A row whose handler reads only a few members of its read-only object
//! (Retain's observed object, a reading operation's object) may say which
//! with `.keeping(..)`: `Chain::interpret_json` then decodes only those
//! from bytes (the `json_inputs` tests compare every golden case both ways).
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
//! dependencies — is the floor below every layer,
//! [`karmada_interpreter_core::k8s`]. The Lua `kube` module calls the same
//! floor functions as the handlers here
//! ([`karmada_interpreter_core::k8s::requirements`],
//! [`karmada_interpreter_core::k8s::dependencies`]), so both compute
//! exactly the same thing.
#![forbid(unsafe_code)]

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

use karmada_interpreter_core::api::InterpreterOperation;
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{
    CatalogEntry, InPlaceRequest, Layer, LayerKind, Outcome, OwnedRequest, Request, Route, Source,
    TypeRef,
};
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::written::Written;
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
    Edit(fn(InPlaceRequest<'_>) -> Result<Written>),
    /// Computes an AggregateStatus answer from the template it reads: a
    /// new object for a lent template, written into one handed over.
    Aggregate(fn(&Request<'_>) -> Result<status::Aggregated>),
}

/// One row of the native table. `"*"` in `api_version` and `kind` marks a
/// fallback that serves every kind without a row of its own.
struct Row {
    api_version: &'static str,
    kind: &'static str,
    operation: InterpreterOperation,
    handler: Handler,
    /// What the handler looks at of the object it only reads, when that is
    /// less than all of it ([`Layer::keeps`]). A test runs every golden
    /// case from its bytes both ways.
    keep: Option<Keep>,
}

impl Row {
    /// The row with the part of its read-only object the handler looks at.
    const fn keeping(self, keep: Keep) -> Self {
        Self {
            keep: Some(keep),
            ..self
        }
    }
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
        keep: None,
    }
}

/// A row whose handler edits the object ([`Handler::Edit`]).
const fn edit(
    api_version: &'static str,
    kind: &'static str,
    operation: InterpreterOperation,
    handler: fn(InPlaceRequest<'_>) -> Result<Written>,
) -> Row {
    Row {
        api_version,
        kind,
        operation,
        handler: Handler::Edit(handler),
        keep: None,
    }
}

/// An AggregateStatus row ([`Handler::Aggregate`]).
const fn aggregation(
    api_version: &'static str,
    kind: &'static str,
    handler: fn(&Request<'_>) -> Result<status::Aggregated>,
) -> Row {
    Row {
        api_version,
        kind,
        operation: Op::AggregateStatus,
        handler: Handler::Aggregate(handler),
        keep: None,
    }
}

/// Every (kind, operation) Karmada's native interpreter serves.
#[rustfmt::skip]
static TABLE: &[Row] = &[
    // apps/v1
    row("apps/v1", "Deployment", Op::InterpretReplica, deployment::interpret_replica),
    edit("apps/v1", "Deployment", Op::ReviseReplica, deployment::revise_replica),
    edit("apps/v1", "Deployment", Op::Retain, deployment::retain).keeping(deployment::RETAIN_KEEPS),
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
    edit("batch/v1", "Job", Op::Retain, job::retain).keeping(job::RETAIN_KEEPS),
    row("batch/v1", "Job", Op::InterpretDependency, job::interpret_dependency),
    row("batch/v1", "CronJob", Op::InterpretDependency, cronjob::interpret_dependency),
    // v1
    row("v1", "Pod", Op::InterpretReplica, pod::interpret_replica),
    row("v1", "Pod", Op::InterpretHealth, pod::interpret_health),
    row("v1", "Pod", Op::Retain, pod::retain),
    row("v1", "Pod", Op::InterpretDependency, pod::interpret_dependency),
    edit("v1", "Service", Op::Retain, service::retain).keeping(service::RETAIN_KEEPS),
    row("v1", "Service", Op::InterpretHealth, service::interpret_health),
    edit("v1", "ServiceAccount", Op::Retain, serviceaccount::retain).keeping(serviceaccount::RETAIN_KEEPS),
    edit("v1", "PersistentVolumeClaim", Op::Retain, persistentvolumeclaim::retain).keeping(persistentvolumeclaim::RETAIN_KEEPS),
    row("v1", "PersistentVolumeClaim", Op::InterpretHealth, persistentvolumeclaim::interpret_health),
    edit("v1", "PersistentVolume", Op::Retain, persistentvolume::retain).keeping(persistentvolume::RETAIN_KEEPS),
    edit("v1", "Secret", Op::Retain, secret::retain).keeping(secret::RETAIN_KEEPS),
    // networking.k8s.io/v1, policy/v1, multicluster.x-k8s.io/v1alpha1
    row("networking.k8s.io/v1", "Ingress", Op::InterpretHealth, ingress::interpret_health),
    row("networking.k8s.io/v1", "Ingress", Op::InterpretDependency, ingress::interpret_dependency),
    row("policy/v1", "PodDisruptionBudget", Op::InterpretHealth, poddisruptionbudget::interpret_health),
    row("multicluster.x-k8s.io/v1alpha1", "ServiceImport", Op::InterpretDependency, serviceimport::interpret_dependency),
    // AggregateStatus
    aggregation("apps/v1", "Deployment", deployment::aggregate),
    aggregation("apps/v1", "ReplicaSet", replicaset::aggregate),
    aggregation("apps/v1", "StatefulSet", statefulset::aggregate),
    aggregation("apps/v1", "DaemonSet", daemonset::aggregate),
    aggregation("batch/v1", "Job", job::aggregate),
    aggregation("batch/v1", "CronJob", cronjob::aggregate),
    aggregation("v1", "Pod", pod::aggregate),
    aggregation("v1", "Service", service::aggregate),
    aggregation("networking.k8s.io/v1", "Ingress", ingress::aggregate),
    aggregation("v1", "PersistentVolume", persistentvolume::aggregate),
    aggregation("v1", "PersistentVolumeClaim", persistentvolumeclaim::aggregate),
    aggregation("policy/v1", "PodDisruptionBudget", poddisruptionbudget::aggregate),
    aggregation("autoscaling/v2", "HorizontalPodAutoscaler", horizontalpodautoscaler::aggregate),
    // InterpretStatus: dedicated handlers
    row("apps/v1", "Deployment", Op::InterpretStatus, deployment::reflect).keeping(status::REFLECT_WORKLOAD_KEEPS),
    row("apps/v1", "ReplicaSet", Op::InterpretStatus, replicaset::reflect).keeping(status::REFLECT_WORKLOAD_KEEPS),
    row("apps/v1", "StatefulSet", Op::InterpretStatus, statefulset::reflect).keeping(status::REFLECT_WORKLOAD_KEEPS),
    row("apps/v1", "DaemonSet", Op::InterpretStatus, daemonset::reflect).keeping(status::REFLECT_WORKLOAD_KEEPS),
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

/// The native layer of the `karmada-next` profile: Job AggregateStatus as
/// Karmada's pull request #7846 has it.
#[cfg(feature = "karmada-next")]
#[derive(Debug, Default)]
pub struct NativeNextLayer;

/// The shared native layer.
pub fn layer() -> Arc<dyn Layer> {
    static LAYER: OnceLock<Arc<dyn Layer>> = OnceLock::new();
    LAYER.get_or_init(|| Arc::new(NativeLayer)).clone()
}

/// The shared native layer of `profile`.
pub fn layer_for(profile: karmada_interpreter_core::profile::Profile) -> Arc<dyn Layer> {
    #[cfg(feature = "karmada-next")]
    if profile.is_next() {
        static LAYER: OnceLock<Arc<dyn Layer>> = OnceLock::new();
        return LAYER.get_or_init(|| Arc::new(NativeNextLayer)).clone();
    }
    let _ = profile;
    layer()
}

impl Handler {
    /// Runs the handler on an object lent mutably: an editing handler edits
    /// it, an AggregateStatus handler's answer is written into it, a reading
    /// handler's answer (Pod Retain reads and normalizes) replaces it. On
    /// error the object is unchanged. (Inlined: the edits' hot path goes
    /// through it.)
    #[inline]
    fn in_place(self, request: InPlaceRequest<'_>) -> Result<Written> {
        match self {
            Self::Edit(handler) => handler(request),
            Self::Aggregate(handler) => aggregate_in_place(handler, request),
            // A new object in place of the old: what changed is unknown.
            Self::Read(handler) => {
                let outcome = handler(&request.as_request())?;
                request.store(outcome)?;
                Ok(Written::unknown())
            }
        }
    }

    /// Runs the handler on an object handed over ([`Handler::in_place`])
    /// and hands the object back as the answer.
    fn owned(self, mut request: OwnedRequest<'_>) -> Result<Outcome> {
        self.in_place(request.lend())?;
        Ok(request.into_outcome())
    }
}

/// Runs an AggregateStatus handler on a template lent mutably and writes
/// its answer into it (on error the template is unchanged).
fn aggregate_in_place(
    handler: fn(&Request<'_>) -> Result<status::Aggregated>,
    request: InPlaceRequest<'_>,
) -> Result<Written> {
    let aggregated = handler(&request.as_request())?;
    match request {
        InPlaceRequest::AggregateStatus { object, .. } => aggregated.write(object),
        other => Err(workload::wrong_operation(
            other.operation(),
            "AggregateStatus",
        )),
    }
}

/// The rows of each operation, in table order, indexed by the operation's
/// position in [`InterpreterOperation::ALL`]: a lookup scans only the rows
/// of its operation. Built once from `TABLE`.
fn rows_by_operation() -> &'static [Vec<usize>] {
    static INDEX: OnceLock<Vec<Vec<usize>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        Op::ALL
            .iter()
            .map(|op| {
                TABLE
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| r.operation == *op)
                    .map(|(i, _)| i)
                    .collect()
            })
            .collect()
    })
}

/// The index of the row serving `operation` for objects of type `ty`,
/// without allocating. An object whose apiVersion Karmada cannot parse
/// (more than one `/`) matches no kind's row, only the `*/*` fallback
/// (InterpretStatus).
fn find_row(ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<usize> {
    let slot = Op::ALL.iter().position(|op| *op == operation)?;
    let rows = rows_by_operation().get(slot)?;
    let row = |i: &usize| TABLE.get(*i);
    let exact = rows.iter().find(|i| {
        row(i).is_some_and(|r| {
            ty.parsed() && field::same_key(r.kind, ty.kind) && ty.in_api_version(r.api_version)
        })
    });
    exact
        .or_else(|| {
            rows.iter()
                .find(|i| row(i).is_some_and(|r| r.api_version == "*" && r.kind == "*"))
        })
        .copied()
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

/// The native layer's `Layer` implementation for `$layer`, whose Job
/// AggregateStatus follows the `karmada-next` profile when `$next`.
macro_rules! native_layer {
    ($layer:ty, $next:expr) => {
        impl $layer {
            /// The row serving `object`.
            fn find_for(&self, object: &Value, operation: InterpreterOperation) -> Result<usize> {
                let ty = TypeRef::of(object);
                find_row(ty, operation)
                    .ok_or_else(|| karmada_interpreter_core::Error::not_served(object, operation))
            }

            /// The handler of table row `row`; a row the table does not have is an
            /// error for `operation` (a route's entry is always one).
            fn handler(
                &self,
                row: usize,
                operation: impl FnOnce() -> InterpreterOperation,
            ) -> Result<Handler> {
                match TABLE.get(row) {
                    Some(row) => Ok(profile_handler(row, $next)),
                    None => Err(karmada_interpreter_core::Error::InvalidInput {
                        operation: operation(),
                        reason: format!("the native layer has no table row {row}"),
                    }),
                }
            }

            /// Answers a borrowed request with the handler of table row `row`.
            fn read(&self, row: usize, request: &Request<'_>) -> Result<Outcome> {
                match self.handler(row, || request.operation())? {
                    Handler::Read(handler) => handler(request),
                    // A lent object: the answer is an edited copy.
                    handler @ Handler::Edit(_) => {
                        let copy = request
                            .to_owned_edit()
                            .ok_or_else(|| workload::wrong_request(request, "editing"))?;
                        handler.owned(copy)
                    }
                    // A lent template: the answer is built beside it (no copy first).
                    Handler::Aggregate(handler) => handler(request)?.answer(request.object()),
                }
            }
        }

        impl Layer for $layer {
            fn kind(&self) -> LayerKind {
                LayerKind::Native
            }

            /// The table row serving `ty`, found from the borrowed strings; its
            /// index is the route's entry, so answering does not look it up again.
            fn route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
                let entry = find_row(ty, operation)?;
                let name = row_names().get(entry)?;
                Some(Route {
                    source: Source {
                        layer: LayerKind::Native,
                        name: Cow::Borrowed(name.as_str()),
                    },
                    entry,
                })
            }

            fn interpret_routed(&self, entry: usize, request: &Request<'_>) -> Result<Outcome> {
                self.read(entry, request)
            }

            /// The row's handler on the lent object (`Handler::in_place`), with
            /// no outcome carried back.
            fn edit_routed(&self, entry: usize, request: InPlaceRequest<'_>) -> Result<Written> {
                self.handler(entry, || request.operation())?
                    .in_place(request)
            }

            fn keeps(&self, entry: usize) -> Option<Keep> {
                TABLE.get(entry)?.keep
            }

            fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
                let row = self.find_for(request.object(), request.operation())?;
                self.read(row, request)
            }

            fn interpret_owned(&self, request: OwnedRequest<'_>) -> Result<Outcome> {
                let operation = request.operation();
                let row = self.find_for(request.object(), operation)?;
                match self.handler(row, || operation)? {
                    Handler::Read(handler) => handler(&request.as_request()),
                    handler => handler.owned(request),
                }
            }

            fn interpret_in_place(&self, request: InPlaceRequest<'_>) -> Result<()> {
                let row = self.find_for(request.object(), request.operation())?;
                self.edit_routed(row, request).map(drop)
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
    };
}

native_layer!(NativeLayer, false);
#[cfg(feature = "karmada-next")]
native_layer!(NativeNextLayer, true);

/// A row's handler under the profile: with `next` (the `karmada-next`
/// profile, Karmada's pull request #7846), Job AggregateStatus also writes
/// `FailureTarget=True` with `Failed=True`.
fn profile_handler(row: &Row, next: bool) -> Handler {
    #[cfg(feature = "karmada-next")]
    if next
        && row.api_version == "batch/v1"
        && row.kind == "Job"
        && row.operation == Op::AggregateStatus
    {
        return Handler::Aggregate(job::aggregate_next);
    }
    let _ = next;
    row.handler
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use karmada_interpreter_core::api::InterpreterOperation as Op;

    use karmada_interpreter_core::interpreter::{Chain, InPlaceRequest};

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
            karmada_interpreter_core::interpreter::LayerKind::Native
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

    /// Routing from an object's borrowed apiVersion and kind finds every
    /// row of the table, names it as `source` does, and hands its index
    /// back; an apiVersion Karmada cannot parse reaches only the `*/*` row.
    #[test]
    fn every_row_is_routed_from_borrowed_strings_to_itself() {
        use karmada_interpreter_core::interpreter::{Layer, TypeRef};
        let layer = super::NativeLayer;
        for (i, row) in super::TABLE.iter().enumerate() {
            let object = if row.kind == "*" {
                json!({"apiVersion": "example.io/v1", "kind": "Thing"})
            } else {
                json!({"apiVersion": row.api_version, "kind": row.kind})
            };
            let ty = TypeRef::of(&object);
            let route = layer.route(ty, row.operation).expect("routed");
            assert_eq!(
                route.entry, i,
                "{}/{} {}",
                row.api_version, row.kind, row.operation
            );
            assert_eq!(
                Some(route.source),
                layer.source(&ty.to_gvk(), row.operation),
                "{}/{} {}",
                row.api_version,
                row.kind,
                row.operation
            );
        }
        let unparsed = json!({"apiVersion": "apps/v1/extra", "kind": "Deployment"});
        let ty = TypeRef::of(&unparsed);
        assert!(layer.route(ty, Op::InterpretReplica).is_none());
        let status = layer.route(ty, Op::InterpretStatus).expect("the */* row");
        assert_eq!(super::TABLE[status.entry].kind, "*");
        // Right kind, wrong version: no row.
        let other = json!({"apiVersion": "apps/v2", "kind": "Deployment"});
        assert!(layer
            .route(TypeRef::of(&other), Op::ReviseReplica)
            .is_none());
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
