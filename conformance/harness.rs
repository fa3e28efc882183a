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
use std::sync::Arc;

use karmada_interpreter::profile::Profile;
use karmada_interpreter_golden::{
    discover, load_cases, ChainBackend, GoldenCase, Runner, Verdict, WebhookBackend,
};
use libtest_mimic::{Arguments, Completion, Failed, Trial};

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

fn display(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A case's verdict as a trial's: a case the backend did not run is
/// ignored, with the reason (shown in the run's output and counted in its
/// summary), not passed.
fn verdict(v: Verdict) -> Result<Completion, Failed> {
    match v {
        Verdict::Passed | Verdict::KnownDeviation(_) => Ok(Completion::Completed),
        Verdict::Skipped(reason) => Ok(Completion::ignored_with(reason)),
        Verdict::Failed(lines) => Err(lines.join("\n").into()),
    }
}

fn trials() -> Result<Vec<Trial>, String> {
    // One runner per profile, one set of rules; only the backend differs.
    let runner_for = |profile: Profile| -> Result<Arc<Runner>, String> {
        Ok(Arc::new(match std::env::var_os(CONFIG_ENV) {
            Some(file) => {
                let configs =
                    karmada_interpreter::load::webhook_configurations_from_file(Path::new(&file))
                        .map_err(|e| e.to_string())?;
                Runner::new(
                    WebhookBackend::new(configs)
                        .map_err(|e| e.to_string())?
                        .with_profile(profile),
                )
            }
            None => Runner::new(ChainBackend::default().with_profile(profile)),
        }))
    };
    let runner = runner_for(Profile::Karmada)?;
    // The cases of the karmada-next profile (under a KARMADA-NEXT marker)
    // run with the profile when the feature is compiled in; otherwise they
    // are ignored, each with the reason.
    #[cfg(feature = "karmada-next")]
    let next_runner = runner_for(Profile::KarmadaNext)?;
    let mut out = Vec::new();
    let paths = case_paths();
    for file in discover(&paths).map_err(|e| e.to_string())? {
        let shown = display(&file.path);
        #[cfg(feature = "karmada-next")]
        let runner = if karmada_interpreter_golden::is_karmada_next(&file.path) {
            &next_runner
        } else {
            &runner
        };
        if let Some(reason) = runner.file_skip_reason(&file) {
            for (i, case) in load_cases(&file.path).into_iter().enumerate() {
                let name = match case {
                    Ok(c) => c.name,
                    Err(_) => format!("case #{}", i + 1),
                };
                let reason = reason.clone();
                out.push(Trial::ignorable_test(
                    format!("{shown}::{name}"),
                    move || Ok(Completion::ignored_with(reason)),
                ));
            }
            continue;
        }
        for (i, case) in load_cases(&file.path).into_iter().enumerate() {
            let case: GoldenCase = match case {
                Ok(c) => c,
                Err(e) => {
                    let msg = e.to_string();
                    out.push(Trial::test(
                        format!("{shown}::case #{}", i + 1),
                        move || Err(msg.into()),
                    ));
                    continue;
                }
            };
            let name = format!("{shown}::{}", case.name);
            let kind = case.operation.as_str();
            // Cases the backend does not serve are ignored, with the reason
            // (libtest's static flag would show none).
            let trial = match runner.skip_reason(&file, &case) {
                Some(reason) => {
                    Trial::ignorable_test(name, move || Ok(Completion::ignored_with(reason)))
                }
                None => {
                    let (runner, file) = (runner.clone(), file.clone());
                    Trial::ignorable_test(name, move || {
                        verdict(runner.run_case(&file, &case).verdict)
                    })
                }
            };
            out.push(trial.with_kind(kind));
        }
    }
    if out.is_empty() {
        return Err(
            karmada_interpreter_golden::GoldenError::NoCases { searched: paths }.to_string(),
        );
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    match trials() {
        Ok(trials) => libtest_mimic::run(&args, trials).exit_code(),
        Err(e) => {
            eprintln!("conformance: {e}");
            ExitCode::from(2)
        }
    }
}
