//! Opt-in health layers that sit after Karmada's four, for `InterpretHealth`
//! of kinds no earlier layer serves (`docs/health.md` of the repository):
//!
//! - [`argocd`]: Argo CD-format `health.lua` checks from a folder, run
//!   unchanged ([`ArgoCdHealth`]; `--health-checks DIR`, the front crate's
//!   `InterpreterBuilder::health_checks`); Argo CD's `health_test.yaml` tests
//!   run through the golden runner (`karmada-interpreter-golden`);
//! - `cel` (feature `cel`): Flux kustomize-controller `healthCheckExprs`
//!   CEL rules from a file, run unchanged (`CelHealth`; `--health-exprs
//!   FILE`, `InterpreterBuilder::health_exprs`);
//! - [`fallback`]: kstatus-style generic rules ([`HealthFallback`];
//!   `--health-fallback`, `InterpreterBuilder::health_fallback`).
//!
//! Each is a layer of its own kind ([`ARGOCD`], `CEL`, [`FALLBACK`]). Chain
//! order: declarative, webhook, thirdparty, native, cel, argocd, fallback
//! (a CEL rule, written for one kind, wins over a folder of Argo CD checks).
//! With all off (the default) the chain is Karmada's. What their verdicts
//! mean for Karmada's boolean is one table, [`meaning`].
//!
//! ```
//! use karmada_interpreter_core::interpreter::{Layer, Outcome, Request};
//! use karmada_interpreter_health::HealthFallback;
//! use serde_json::json;
//!
//! let ready = json!({"apiVersion": "example.io/v1", "kind": "Widget", "metadata": {"name": "w"},
//!                    "status": {"conditions": [{"type": "Ready", "status": "True"}]}});
//! let outcome = HealthFallback.interpret(&Request::InterpretHealth { object: &ready }).unwrap();
//! assert_eq!(outcome, Outcome::Healthy(true));
//! ```

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod argocd;
#[cfg(feature = "cel")]
#[cfg_attr(docsrs, doc(cfg(feature = "cel")))]
pub mod cel;
#[cfg(feature = "cel")]
#[cfg_attr(docsrs, doc(cfg(feature = "cel")))]
pub mod cel_expression;
mod error;
pub mod fallback;
pub mod meaning;

pub use argocd::{ArgoCdHealth, HealthStatus};
#[cfg(feature = "cel")]
pub use cel::{CelError, CelHealth, ExpressionSite, HealthExpr, HealthExprs};
pub use error::HealthError;
pub use fallback::HealthFallback;

use karmada_interpreter_core::interpreter::LayerKind;

/// The file name of an Argo CD health check.
pub const HEALTH_SCRIPT: &str = "health.lua";
/// The file name of an Argo CD health check's tests.
pub const HEALTH_TEST: &str = "health_test.yaml";

/// The Argo CD health-check layer's kind (prints as `argocd`).
pub const ARGOCD: LayerKind = LayerKind::Other("argocd");

/// The CEL health layer's kind (prints as `cel`; feature `cel`).
pub const CEL: LayerKind = LayerKind::Other("cel");

/// The kstatus-style fallback layer's kind (prints as `fallback`).
pub const FALLBACK: LayerKind = LayerKind::Other("fallback");
