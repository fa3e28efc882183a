//! The golden-case runner of karmada-interpreter, heart of its conformance
//! suite.
//!
//! Golden files use Karmada's format: a
//! multi-document YAML stream, one case per document, each naming an
//! operation, its inputs (`desiredObj`, `observedObj`, `statusItems`,
//! `inputReplicas`) and the expected `output` (or part of it,
//! `outputContains`, or `expectError: true`).
//!
//! Module map:
//!
//! - `case`: reading case files into [`GoldenCase`]s (inputs through
//!   `karmada_interpreter::interpreter::Inputs`).
//! - `discover`: finding case files and their `customizations.yaml`.
//! - `backend`: where cases run: the [`Backend`] trait, [`ChainBackend`]
//!   and, with feature `webhook`, `WebhookBackend`.
//! - `runner`: the one [`Runner`]: runs a backend over case files and
//!   judges every case with the same rules (deviations included).
//! - `capture`: cases captured from a cluster (`karmada-interpreter
//!   capture`): redaction and the case text.
//! - `compare`: semantic comparison of results.
//! - `assertions`: a case's `assert` CEL expressions (feature `cel`).
//! - `crosscheck`: a backend's answers compared with a reference chain's
//!   (`test --cross-check`).
//! - `ownership`: findings about ReviseReplica and Retain answers that
//!   edit fields outside what the operation owns.
//! - `deviations`: the known deviations listed in `COMPATIBILITY.md`.
//! - `robustness` (feature `webhook`): the webhook suites that need no
//!   cases (`test --suite protocol|robustness`), reported as case reports.
//! - `report`: JUnit XML and JSON renderings of a run (`test --format`).
//! - `schema`: JSON Schemas of case files and configuration documents
//!   for editors (`karmada-interpreter schema`).
//! - `harness` (feature `harness`): a folder of cases as one `cargo test`
//!   trial each, for a controller's own repository.
//! - `coverage` (feature `lint`): which lines of the customization scripts
//!   a run executed, per script and as lcov (`test --coverage`).
//!
//! Running the project's own cases for one kind through the built-in chain
//! (paths relative to the repository root):
//!
//! ```
//! use karmada_interpreter_golden::Runner;
//!
//! let report = Runner::default()
//!     .run(&[concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/native/apps/v1/Deployment").into()])
//!     .unwrap();
//! assert!(report.passed() > 0);
//! assert_eq!(report.failed(), 0, "{}", report.summary_line());
//! ```
//!
//! [`Runner`] shows a case file written from scratch.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod assertions;
mod backend;
pub mod capture;
mod case;
mod compare;
#[cfg(feature = "lint")]
#[cfg_attr(docsrs, doc(cfg(feature = "lint")))]
pub mod coverage;
pub mod crosscheck;
mod deviations;
mod discover;
mod error;
#[cfg(feature = "harness")]
#[cfg_attr(docsrs, doc(cfg(feature = "harness")))]
pub mod harness;
pub mod health_tests;
mod ownership;
pub mod report;
#[cfg(feature = "webhook")]
#[cfg_attr(docsrs, doc(cfg(feature = "webhook")))]
pub mod robustness;
mod runner;
pub mod schema;
pub mod update;

#[cfg(feature = "webhook")]
#[cfg_attr(docsrs, doc(cfg(feature = "webhook")))]
pub use backend::WebhookBackend;
pub use backend::{Backend, ChainBackend, Exchange, Produced};
pub use case::{load_cases, parse_cases, ErrorMatch, GoldenCase};
pub use compare::{diff, diff_result, diff_unordered, Difference, Match};
pub use crosscheck::CrossCheck;
pub use deviations::{Deviation, Deviations};
pub use discover::{
    discover, is_karmada_next, is_webhook_only, CaseFile, KARMADA_NEXT_MARKER, WEBHOOK_ONLY_MARKER,
};
pub use error::{GoldenError, Result};
pub use ownership::findings;
pub use runner::{CaseReport, CaseSelector, Report, RunControl, Runner, Verdict};
