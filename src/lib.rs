#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The floor: API types, Kubernetes semantics, YAML, loading, the error.
pub use karmada_interpreter_core::{api, error, k8s, load, yaml, Error, Result};

// The layers, each its own crate.
pub use karmada_interpreter_declarative as declarative;
pub use karmada_interpreter_health as health;
pub use karmada_interpreter_native as native;
pub use karmada_interpreter_thirdparty as thirdparty;
pub use karmada_interpreter_webhook as webhook;

/// Static analysis of customization files (feature `lint`).
#[cfg(feature = "lint")]
pub use karmada_interpreter_lint as lint;

// The front: the assembled chain.
pub mod interpreter;
pub mod prelude;

pub use interpreter::Interpreter;
