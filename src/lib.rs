//! Karmada's Resource Interpreter Framework in Rust.
//!
//! Karmada propagates Kubernetes resources to member clusters. To do that it
//! *interprets* each kind through eight operations
//! ([`InterpreterOperation`](api::InterpreterOperation): replicas and their
//! revision, retaining member-cluster fields, status aggregation and
//! reflection, health, dependencies, components). This crate answers them the
//! way Karmada does, through the same chain of four layers; the first layer
//! that serves an (object kind, operation) answers, and every answer says
//! which layer produced it:
//!
//! 1. [`declarative`]: `ResourceInterpreterCustomization` Lua scripts, run
//!    unchanged in a sandboxed, time- and memory-limited Lua engine;
//! 2. [`webhook`]: interpreter webhooks (`ResourceInterpreterWebhookConfiguration`),
//!    with a server SDK for writing one;
//! 3. [`thirdparty`]: the bundled customizations (Kruise, Argo, Flux, Kyverno,
//!    Volcano, Flink, Kubeflow, Ray, Spark, ...), embedded at build time;
//! 4. [`native`]: Rust implementations of every kind Karmada serves natively.
//!
//! # Example
//!
//! ```
//! use karmada_interpreter::prelude::*;
//! use serde_json::json;
//!
//! // The bundled customizations and the native built-ins.
//! let chain = Interpreter::default();
//! let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!                         "metadata": {"name": "web", "namespace": "shop"},
//!                         "spec": {"replicas": 3}});
//! let answer = chain.get_replicas(&deployment)?;
//! assert_eq!(answer.value.replicas, 3);
//! assert_eq!(answer.served_by.layer, LayerKind::Native);
//!
//! // Your own customizations answer first.
//! let customizations = karmada_interpreter::load::customizations_from_str(r#"
//! apiVersion: config.karmada.io/v1alpha1
//! kind: ResourceInterpreterCustomization
//! metadata: {name: deployment-replicas}
//! spec:
//!   target: {apiVersion: apps/v1, kind: Deployment}
//!   customizations:
//!     replicaResource:
//!       luaScript: |
//!         function GetReplicas(desiredObj)
//!           return desiredObj.spec.replicas * 2, {}
//!         end
//! "#, "inline")?;
//! let chain = Interpreter::builder().customizations(customizations).build()?;
//! let answer = chain.get_replicas(&deployment)?;
//! assert_eq!(answer.value.replicas, 6);
//! assert_eq!(answer.served_by.layer, LayerKind::Declarative);
//! # Ok::<(), karmada_interpreter::Error>(())
//! ```
//!
//! # Main types
//!
//! - [`Interpreter`]: the default chain; [`Interpreter::builder`] gives an
//!   [`InterpreterBuilder`](interpreter::InterpreterBuilder) for your own
//!   customizations and webhook configurations (read with [`load`]).
//! - [`Chain`](interpreter::Chain): the eight operations are its methods
//!   (`Interpreter` dereferences to it). The argument's type says whether an
//!   object is borrowed, handed over, lent mutably (edits in place) or typed
//!   ([`Typed`](interpreter::Typed), for k8s-openapi types and
//!   `kube::core::DynamicObject`); [`JsonInputs`](interpreter::JsonInputs)
//!   takes the inputs as JSON bytes.
//! - [`Answer`](interpreter::Answer): the value and
//!   [`served_by`](interpreter::Answer::served_by), the layer that answered.
//! - [`api`]: Karmada's API types (customizations, webhook configurations,
//!   the wire format); [`Error`]: what a call can fail with.
//! - [`prelude`]: what most users need, in one import.
//!
//! Beside this crate: the golden-file runner (`karmada-interpreter-golden`),
//! the opt-in health layers for kinds no interpreter serves
//! (`karmada-interpreter-health`) and following a Karmada control plane
//! (`karmada-interpreter-cluster`) are crates of their own; the
//! `karmada-interpreter` binary (`cli/`) runs golden cases, lints
//! customizations and serves the chain as a webhook.
//!
//! # Feature flags
//!
//! None is on by default: a dependency gets the four layers and the chain,
//! with no HTTP server or client, Kubernetes client, linter or CLI.
//!
//! - `webhook`: HTTPS for webhooks: the client the chain calls webhooks with,
//!   the server SDK's TLS server, self-signed certificates.
//! - `lint`: static analysis of customization files (the `lint` module) and
//!   the validating admission webhook built on it (the `admission` module).
//!
//! Pick the Kubernetes API version for `k8s-openapi` in your binary (a
//! library never does). The repository's `docs/library.md` covers the rest;
//! `docs/architecture.md` draws the crates.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

// The floor: API types, Kubernetes semantics, YAML, loading, the error.
pub use karmada_interpreter_core::{api, error, k8s, load, profile, yaml, Error, Result};

// The layers, each its own crate.
pub use karmada_interpreter_declarative as declarative;
pub use karmada_interpreter_health as health;
pub use karmada_interpreter_native as native;
pub use karmada_interpreter_thirdparty as thirdparty;
pub use karmada_interpreter_webhook as webhook;

/// Static analysis of customization files (feature `lint`).
#[cfg(feature = "lint")]
#[cfg_attr(docsrs, doc(cfg(feature = "lint")))]
pub use karmada_interpreter_lint as lint;

#[cfg(feature = "lint")]
#[cfg_attr(docsrs, doc(cfg(feature = "lint")))]
pub mod admission;

// The front: the assembled chain.
pub mod interpreter;
pub mod prelude;

pub use interpreter::Interpreter;
