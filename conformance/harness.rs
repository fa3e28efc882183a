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
//!   With a webhook configuration the suites that need no cases run too,
//!   one test per suite and webhook (`protocol: <config>/<webhook>`,
//!   `robustness: ...`; `karmada-interpreter test --suite`, docs/webhook.md).
//! - `KARMADA_INTERPRETER_SUITE=protocol|robustness|cases|all` (with a
//!   webhook configuration; default `all`): which of them run.
//! - `KARMADA_INTERPRETER_STRICT=1`: the suites' semantic doubts fail their
//!   check (`--strict`).
//! - `KARMADA_INTERPRETER_CASES=PATH[,PATH...]`: case files or directories
//!   to run (relative paths are taken from the repository root), instead of
//!   `conformance/` and `thirdparty/`.
//!
//! Usual libtest filters and flags work (`-- --list`, `-- retain`, `-- --exact NAME`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use karmada_interpreter::api::ResourceInterpreterWebhookConfiguration;
use karmada_interpreter_golden::harness::Harness;
use karmada_interpreter_golden::robustness::Options;
use karmada_interpreter_golden::{Runner, WebhookBackend};

const CONFIG_ENV: &str = "KARMADA_INTERPRETER_WEBHOOK_CONFIG";
const CASES_ENV: &str = "KARMADA_INTERPRETER_CASES";
const SUITE_ENV: &str = "KARMADA_INTERPRETER_SUITE";
const STRICT_ENV: &str = "KARMADA_INTERPRETER_STRICT";

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

/// The webhook configurations of `KARMADA_INTERPRETER_WEBHOOK_CONFIG`, if set.
fn webhooks() -> Result<Option<Vec<ResourceInterpreterWebhookConfiguration>>, String> {
    std::env::var_os(CONFIG_ENV)
        .map(|file| {
            karmada_interpreter::load::webhook_configurations_from_file(Path::new(&file))
                .map_err(|e| e.to_string())
        })
        .transpose()
}

/// (golden cases, protocol suite, robustness suite) from `KARMADA_INTERPRETER_SUITE`.
fn suites() -> Result<(bool, bool, bool), String> {
    match std::env::var(SUITE_ENV).as_deref() {
        Err(_) | Ok("" | "all") => Ok((true, true, true)),
        Ok("cases") => Ok((true, false, false)),
        Ok("protocol") => Ok((false, true, false)),
        Ok("robustness") => Ok((false, false, true)),
        Ok(other) => Err(format!(
            "{SUITE_ENV}={other:?}: expected protocol, robustness, cases or all"
        )),
    }
}

/// One runner, one set of rules; only the backend differs. With webhooks,
/// the suites that need no cases join the cases.
fn harness() -> Result<Harness, String> {
    let Some(configs) = webhooks()? else {
        return Ok(case_paths()
            .into_iter()
            .fold(Harness::default().relative_to(root()), Harness::cases));
    };
    let (cases, protocol, robustness) = suites()?;
    let runner = Runner::new(WebhookBackend::new(configs.clone()).map_err(|e| e.to_string())?);
    let mut harness = Harness::new(runner).relative_to(root());
    if protocol || robustness {
        harness = harness.webhook_suites(
            configs,
            Options {
                protocol,
                robustness,
                strict: std::env::var(STRICT_ENV).is_ok_and(|v| v == "1" || v == "true"),
                ..Options::default()
            },
        );
    }
    if cases {
        harness = case_paths().into_iter().fold(harness, Harness::cases);
    }
    Ok(harness)
}

fn main() -> ExitCode {
    match harness() {
        Ok(harness) => harness.run(),
        Err(e) => {
            eprintln!("conformance: {e}");
            ExitCode::from(2)
        }
    }
}
