#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod api;
#[path = "../builtin/mod.rs"]
pub mod builtin;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod error;
pub mod golden;
pub mod interpreter;
pub mod k8s;
pub mod layout;
#[cfg(feature = "lint")]
pub mod lint;
pub mod load;
pub mod lua;
pub mod thirdparty;
pub mod webhook;
pub mod yaml;

pub use error::{Error, Result};
pub use interpreter::Interpreter;
/// Kubernetes quantities, at their first home ([`k8s::quantity`]).
pub use k8s::quantity;
