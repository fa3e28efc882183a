//! The floor of karmada-interpreter: what every layer and front end shares.
//!
//! - [`api`]: Karmada's interpreter API types (customizations, webhook
//!   configurations, the webhook wire context, operations and results),
//!   written as Karmada's Go types write them.
//! - [`k8s`]: shared Kubernetes semantics: field reading, quantities and
//!   times, name/label/dependency validation, pod-spec requirements and
//!   dependencies, typed acceptance and normalization of objects.
//! - [`yaml`]: every YAML document is read here, as Karmada's go-yaml reads it.
//! - [`load`]: customization and webhook configuration documents from text
//!   and files.
//! - [`interpreter`]: the layer contract ([`interpreter::Layer`],
//!   requests, outcomes, answers), the operation model and [`interpreter::Chain`],
//!   the layers consulted in order.
//! - [`profile`]: which Karmada the answers follow (the `karmada-next`
//!   profile carries Karmada's open pull requests).
//! - [`error`]: [`Error`], the layer-neutral error every layer returns.
//! - [`budget`]: a per-thread time budget every layer's runs honour (a
//!   server answers short requests on its I/O thread within one).
//!
//! No layer lives here; the layers build on this crate, and the
//! `karmada-interpreter` crate assembles them into the default chain.

#![forbid(unsafe_code)]

pub mod api;
pub mod budget;
pub mod error;
pub mod interpreter;
pub mod k8s;
pub mod load;
pub mod profile;
pub mod yaml;

pub use error::{Error, Result};
