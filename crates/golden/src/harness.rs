//! Golden cases as `cargo test` tests: a folder of cases (Karmada's layout,
//! `<Kind>/customizations.yaml` next to `<Kind>/testdata/*.yaml`, or loose
//! case files with customization files given) run as one test each, judged
//! by the same [`Runner`] as `karmada-interpreter test`, a failure showing
//! the same report. A controller's repository tests its customizations with
//! the engine Karmada's interpreter runs, in its own `cargo test`.
//!
//! In the controller's `Cargo.toml`:
//!
//! ```toml
//! [dev-dependencies]
//! karmada-interpreter-golden = { version = "0.1", features = ["harness"] }
//! # A binary (a test target is one) picks the Kubernetes API version.
//! k8s-openapi = { version = "0.29", default-features = false, features = ["latest"] }
//!
//! [[test]]
//! name = "customizations"
//! harness = false
//! ```
//!
//! and `tests/customizations.rs` (paths are taken from the package's
//! root, where `cargo test` runs tests):
//!
//! ```no_run
//! use karmada_interpreter_golden::harness::Harness;
//!
//! fn main() -> std::process::ExitCode {
//!     // Karmada's layout: each kind's customizations.yaml serves its testdata/.
//!     Harness::default().cases("customizations").run()
//! }
//! ```
//!
//! Loose case files and a customization file of their own:
//!
//! ```no_run
//! use karmada_interpreter_golden::harness::Harness;
//!
//! fn main() -> std::process::ExitCode {
//!     match Harness::with_customizations(&["deploy/customizations.yaml"]) {
//!         Ok(harness) => harness.cases("tests/cases").run(),
//!         Err(e) => {
//!             eprintln!("{e}");
//!             std::process::ExitCode::from(2)
//!         }
//!     }
//! }
//! ```
//!
//! `cargo test` then lists each case as `<file>::<case name>`; the usual
//! filters and flags work (`cargo test --test customizations -- health`,
//! `-- --list`, `-- --exact NAME`). A case the backend does not run (a
//! webhook-only case against the chain) is reported as ignored, with the
//! reason; a case file that does not parse is a failing test naming the
//! document; a run that finds no case at all fails, as `test` does.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

pub use libtest_mimic;
use libtest_mimic::{Arguments, Completion, Failed, Trial};

use crate::backend::ChainBackend;
use crate::case::load_cases;
use crate::discover::discover;
use crate::error::{GoldenError, Result};
use crate::runner::{CaseReport, Runner, Verdict};

/// Golden cases under some paths, run by one [`Runner`], as libtest trials.
#[derive(Debug, Clone, Default)]
pub struct Harness {
    runner: Arc<Runner>,
    paths: Vec<PathBuf>,
    root: Option<PathBuf>,
}

impl Harness {
    /// Cases run by `runner` (a webhook backend, a chain with health
    /// layers...). [`Harness::default`] runs them against the built-in
    /// chain plus, in Karmada's layout, each kind's `customizations.yaml`.
    pub fn new(runner: Runner) -> Self {
        Self {
            runner: Arc::new(runner),
            paths: Vec::new(),
            root: None,
        }
    }

    /// Cases run against the built-in chain plus the customizations of
    /// `files` (failures in their scripts are shown at their place in the
    /// files), for case files outside Karmada's layout.
    pub fn with_customizations(files: &[impl AsRef<Path>]) -> Result<Self> {
        let mut customizations = Vec::new();
        for file in files {
            customizations.extend(karmada_interpreter::load::customizations_from_file(
                file.as_ref(),
            )?);
        }
        let files = files.iter().map(|f| f.as_ref().to_owned()).collect();
        Ok(Self::new(Runner::new(
            ChainBackend::new(customizations, Vec::new()).with_files(files),
        )))
    }

    /// Adds a case file or a folder searched recursively (as
    /// [`crate::discover`] does).
    pub fn cases(mut self, path: impl Into<PathBuf>) -> Self {
        self.paths.push(path.into());
        self
    }

    /// Names tests by their case file's path relative to `root` (by
    /// default the path as found).
    pub fn relative_to(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = Some(root.into());
        self
    }

    /// One trial per case, named `<file>::<case name>` (`<file>::case #N`
    /// for a document too malformed to have a name), of kind the operation.
    /// Errors: a path that cannot be read, or no case at all.
    pub fn trials(&self) -> Result<Vec<Trial>> {
        let mut out = Vec::new();
        for file in discover(&self.paths)? {
            let shown = self.display(&file.path);
            for (i, case) in load_cases(&file.path).into_iter().enumerate() {
                let case = match case {
                    Ok(case) => case,
                    Err(e) => {
                        let message = e.to_string();
                        out.push(Trial::test(
                            format!("{shown}::case #{}", i + 1),
                            move || Err(message.into()),
                        ));
                        continue;
                    }
                };
                let name = format!("{shown}::{}", case.name);
                let kind = case.operation.as_str();
                // A case the backend does not run is ignored with the reason
                // (libtest's static `ignored` flag would show none).
                let trial = match self.runner.skip_reason(&file, &case) {
                    Some(reason) => {
                        Trial::ignorable_test(name, move || Ok(Completion::ignored_with(reason)))
                    }
                    None => {
                        let (runner, file) = (self.runner.clone(), file.clone());
                        Trial::ignorable_test(name, move || {
                            completion(runner.run_case(&file, &case))
                        })
                    }
                };
                out.push(trial.with_kind(kind));
            }
        }
        if out.is_empty() {
            return Err(GoldenError::NoCases {
                searched: self.paths.clone(),
            });
        }
        Ok(out)
    }

    /// Runs the trials under the command line's libtest arguments and
    /// returns the exit code for `main`; a run that cannot start (no case,
    /// an unreadable path) prints why and exits with 2.
    pub fn run(self) -> ExitCode {
        let args = Arguments::from_args();
        match self.trials() {
            Ok(trials) => libtest_mimic::run(&args, trials).exit_code(),
            Err(e) => {
                eprintln!("golden cases: {e}");
                ExitCode::from(2)
            }
        }
    }

    fn display(&self, path: &Path) -> String {
        self.root
            .as_deref()
            .and_then(|root| path.strip_prefix(root).ok())
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// A case's verdict as a trial's: the failure message is the report
/// `karmada-interpreter test` prints for the case; a case the backend did
/// not run is ignored with the reason; a known deviation completes.
fn completion(report: CaseReport) -> Result<Completion, Failed> {
    match &report.verdict {
        Verdict::Passed | Verdict::KnownDeviation(_) => Ok(Completion::Completed),
        Verdict::Skipped(reason) => Ok(Completion::ignored_with(reason.clone())),
        Verdict::Failed(_) => Err(report.render().into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ki-harness-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    const CASES: &str = "name: three
operation: InterpretReplica
desiredObj: {apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {replicas: 3}}
output: {replica: 3}
---
name: wrong
operation: InterpretReplica
desiredObj: {apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {replicas: 3}}
output: {replica: 4}
---
name: [
";

    /// Each trial's outcome, run the way libtest runs it but without
    /// libtest's output (which would read as a second test run's summary).
    fn outcomes(harness: &Harness) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for file in discover(&harness.paths).unwrap() {
            for case in load_cases(&file.path) {
                let passed = match case {
                    Ok(case) => completion(harness.runner.run_case(&file, &case)).is_ok(),
                    Err(_) => false,
                };
                out.push((harness.display(&file.path), passed));
            }
        }
        out
    }

    #[test]
    fn one_trial_per_case_with_the_runner_report_as_failure() {
        let dir = scratch("trials");
        std::fs::write(dir.join("pod.yaml"), CASES).unwrap();
        let trials = Harness::default()
            .cases(&dir)
            .relative_to(&dir)
            .trials()
            .unwrap();
        let names: Vec<&str> = trials.iter().map(Trial::name).collect();
        assert_eq!(
            names,
            ["pod.yaml::three", "pod.yaml::wrong", "pod.yaml::case #3"]
        );
        assert!(trials[..2].iter().all(|t| t.kind() == "InterpretReplica"));
        let harness = Harness::default().cases(&dir).relative_to(&dir);
        let passed: Vec<bool> = outcomes(&harness).into_iter().map(|(_, p)| p).collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(passed, [true, false, false]);
    }

    #[test]
    fn the_failure_message_is_the_test_command_report() {
        let dir = scratch("render");
        let file = dir.join("pod.yaml");
        std::fs::write(&file, CASES).unwrap();
        let runner = Runner::default();
        let found = discover(std::slice::from_ref(&file)).unwrap();
        let case = load_cases(&file).remove(1).unwrap();
        let report = runner.run_case(&found[0], &case);
        let Err(failed) = completion(report.clone()) else {
            panic!("a failing case completed");
        };
        std::fs::remove_dir_all(&dir).unwrap();
        let message = failed.message().unwrap();
        assert_eq!(message, report.render());
        assert!(
            message.starts_with("FAIL ") && message.contains("replica"),
            "{message}"
        );
    }

    #[test]
    fn no_case_is_an_error() {
        let dir = scratch("empty");
        let err = Harness::default().cases(&dir).trials().unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(err, GoldenError::NoCases { .. }), "{err}");
    }

    #[test]
    fn customization_files_serve_loose_cases() {
        let dir = scratch("custom");
        let custom = dir.join("custom.yaml");
        std::fs::write(
            &custom,
            "apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: w}
spec:
  target: {apiVersion: example.io/v1, kind: Workload}
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          return obj.status ~= nil and obj.status.ready == true
        end
",
        )
        .unwrap();
        std::fs::create_dir_all(dir.join("cases")).unwrap();
        std::fs::write(
            dir.join("cases/health.yaml"),
            "name: ready
operation: InterpretHealth
observedObj: {apiVersion: example.io/v1, kind: Workload, status: {ready: true}}
output: {healthy: true}
",
        )
        .unwrap();
        let harness = Harness::with_customizations(&[&custom])
            .unwrap()
            .cases(dir.join("cases"));
        let outcomes = outcomes(&harness);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(outcomes.len(), 1);
        assert!(outcomes[0].1, "{outcomes:?}");
    }
}
