//! The golden-case runner, heart of the conformance suite.
//!
//! Golden files use Karmada's format (`reference-cases/README.md`): a
//! multi-document YAML stream, one case per document, each naming an
//! operation, its inputs (`desiredObj`, `observedObj`, `statusItems`,
//! `inputReplicas`) and the expected `output` (or `expectError: true`).
//!
//! ```no_run
//! use karmada_interpreter::golden::Runner;
//!
//! let report = Runner::default().run(&["../shared/reference-cases/native".into()]).unwrap();
//! println!("{}", report.summary_line());
//! ```

mod case;
mod compare;
#[cfg(feature = "lint")]
pub mod coverage;
mod deviations;
mod discover;
pub mod report;
mod runner;
#[cfg(feature = "webhook")]
mod webhook;

pub use case::{load_cases, parse_cases, GoldenCase};
pub use compare::{diff, diff_unordered, Difference};
pub use deviations::{Deviation, Deviations};
pub use discover::{discover, is_webhook_only, CaseFile, WEBHOOK_ONLY_MARKER};
pub use runner::{outputs, produce, CaseReport, Report, Runner, Verdict};
#[cfg(feature = "webhook")]
pub use webhook::WebhookRunner;
