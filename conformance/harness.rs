//! The conformance suite (`cargo test -p karmada-interpreter-golden --features conformance
//! --test conformance`):
//! every golden case of the project (`conformance/`, `thirdparty/*/testdata`),
//! each reported as its own test.
//!
//! By default the cases run against the built-in chain (cases in directories
//! marked `WEBHOOK-ONLY` are ignored, with the reason shown). A case path
//! that holds no case fails the run, as `karmada-interpreter test` does: it
//! would pass while checking nothing. Environment:
//!
//! - `KARMADA_INTERPRETER_WEBHOOK_CONFIG=FILE`: a file of
//!   ResourceInterpreterWebhookConfiguration documents. Cases a webhook
//!   matches are sent to it instead, with protocol checks; the others are
//!   ignored, each with the reason.
//! - `KARMADA_INTERPRETER_CASES=PATH[,PATH...]`: case files or directories
//!   to run (relative paths are taken from the repository root), instead of
//!   `conformance/` and `thirdparty/`.
//!
//! Usual libtest filters and flags work (`-- --list`, `-- retain`, `-- --exact NAME`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use karmada_interpreter_golden::harness::Harness;
use karmada_interpreter_golden::{Runner, WebhookBackend};

const CONFIG_ENV: &str = "KARMADA_INTERPRETER_WEBHOOK_CONFIG";
const CASES_ENV: &str = "KARMADA_INTERPRETER_CASES";

/// The repository root (this target belongs to `crates/golden`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn case_paths() -> Vec<PathBuf> {
    match std::env::var(CASES_ENV) {
        Ok(list) if !list.trim().is_empty() => list
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                let p = PathBuf::from(p);
                if p.is_absolute() {
                    p
                } else {
                    root().join(p)
                }
            })
            .collect(),
        _ => ["conformance", "thirdparty"]
            .iter()
            .map(|d| root().join(d))
            .filter(|p| p.is_dir())
            .collect(),
    }
}

/// One runner, one set of rules; only the backend differs.
fn runner() -> Result<Runner, String> {
    Ok(match std::env::var_os(CONFIG_ENV) {
        Some(file) => {
            let configs =
                karmada_interpreter::load::webhook_configurations_from_file(Path::new(&file))
                    .map_err(|e| e.to_string())?;
            Runner::new(WebhookBackend::new(configs).map_err(|e| e.to_string())?)
        }
        None => Runner::default(),
    })
}

fn main() -> ExitCode {
    match runner() {
        Ok(runner) => case_paths()
            .into_iter()
            .fold(Harness::new(runner).relative_to(root()), Harness::cases)
            .run(),
        Err(e) => {
            eprintln!("conformance: {e}");
            ExitCode::from(2)
        }
    }
}
