//! Opt-in health layers that sit after Karmada's four, for
//! `InterpretHealth` of kinds no earlier layer serves (`docs/health.md`):
//!
//! - [`argocd`]: Argo CD-format `health.lua` checks from a folder, run
//!   unchanged ([`ArgoCdHealth`]; `--health-checks DIR`,
//!   [`crate::interpreter::InterpreterBuilder::health_checks`]); Argo CD's
//!   `health_test.yaml` tests run through the golden runner's
//!   [`crate::golden::health_tests`];
//! - [`fallback`]: kstatus-style generic rules ([`HealthFallback`];
//!   `--health-fallback`, [`crate::interpreter::InterpreterBuilder::health_fallback`]).
//!
//! Chain order: declarative, webhook, thirdparty, native, argocd, fallback.
//! With both off (the default) the chain is Karmada's.

pub mod argocd;
pub mod fallback;

pub use argocd::{ArgoCdHealth, HealthStatus};
pub use fallback::HealthFallback;
