#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The floor: API types, Kubernetes semantics, YAML, loading, the error.
pub use karmada_interpreter_core::{api, error, k8s, load, yaml, Error, Result};

// The layers, each its own crate.
pub use karmada_interpreter_declarative as declarative;
/// The declarative layer under its former name ([`declarative`]).
pub use karmada_interpreter_declarative as lua;
pub use karmada_interpreter_native as native;
/// The native layer under its former name ([`native`]).
pub use karmada_interpreter_native as builtin;
pub use karmada_interpreter_thirdparty as thirdparty;
pub use karmada_interpreter_webhook as webhook;

/// Static analysis of customization files (feature `lint`).
#[cfg(feature = "lint")]
#[cfg_attr(docsrs, doc(cfg(feature = "lint")))]
pub use karmada_interpreter_lint as lint;

// The front: the assembled chain, and what runs on top of it.
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod golden;
pub mod health;
pub mod interpreter;
pub mod prelude;

pub use interpreter::Interpreter;
