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
    /// The webhooks whose case-free suites run, and how (feature `webhook`).
    #[cfg(feature = "webhook")]
    suites: Option<(
        Vec<karmada_interpreter::api::ResourceInterpreterWebhookConfiguration>,
        crate::robustness::Options,
    )>,
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
            #[cfg(feature = "webhook")]
            suites: None,
        }
    }

    /// Adds the webhook suites that need no cases
    /// ([`crate::robustness`]): for each webhook of `configs`, one trial
    /// `protocol: <config>/<webhook>` when `options.protocol` and one
    /// `robustness: <config>/<webhook>` when `options.robustness`, each
    /// failing with the report of every failed check (findings are printed,
    /// and fail only with `options.strict`). The suites run when their trial
    /// does (`--list` sends nothing).
    #[cfg(feature = "webhook")]
    #[cfg_attr(docsrs, doc(cfg(feature = "webhook")))]
    pub fn webhook_suites(
        mut self,
        configs: Vec<karmada_interpreter::api::ResourceInterpreterWebhookConfiguration>,
        options: crate::robustness::Options,
    ) -> Self {
        self.suites = Some((configs, options));
        self
    }

    /// The trials of [`Harness::webhook_suites`].
    #[cfg(feature = "webhook")]
    fn suite_trials(&self) -> Vec<Trial> {
        let Some((configs, options)) = &self.suites else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for config in configs {
            let config_name = config.metadata.name.clone().unwrap_or_default();
            for hook in &config.webhooks {
                let mut one = config.clone();
                one.webhooks = vec![hook.clone()];
                for (suite, on) in [
                    ("protocol", options.protocol),
                    ("robustness", options.robustness),
                ] {
                    if !on {
                        continue;
                    }
                    let options = crate::robustness::Options {
                        protocol: suite == "protocol",
                        robustness: suite == "robustness",
                        ..options.clone()
                    };
                    let one = one.clone();
                    out.push(
                        Trial::ignorable_test(
                            format!("{suite}: {config_name}/{}", hook.name),
                            move || suite_completion(&one, &options),
                        )
                        .with_kind(suite),
                    );
                }
            }
        }
        out
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
        #[allow(unused_mut)]
        let mut out = Vec::new();
        #[cfg(feature = "webhook")]
        out.extend(self.suite_trials());
        let files = if self.paths.is_empty() && !out.is_empty() {
            Vec::new()
        } else {
            discover(&self.paths)?
        };
        for file in files {
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

/// One suite against one webhook (`config` holds only it) as a trial's
/// outcome: the reports of the failed checks, the findings printed.
#[cfg(feature = "webhook")]
fn suite_completion(
    config: &karmada_interpreter::api::ResourceInterpreterWebhookConfiguration,
    options: &crate::robustness::Options,
) -> Result<Completion, Failed> {
    let client = karmada_interpreter::webhook::client::WebhookClient::new();
    let reports = crate::robustness::run(std::slice::from_ref(config), &client, options);
    for report in reports.iter().filter(|r| !r.findings.is_empty()) {
        println!("{}", report.render());
    }
    let failed: Vec<String> = reports
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Failed(_)))
        .map(CaseReport::render)
        .collect();
    if failed.is_empty() {
        Ok(Completion::Completed)
    } else {
        Err(format!(
            "{} of {} checks failed:\n{}",
            failed.len(),
            reports.len(),
            failed.join("\n")
        )
        .into())
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

    /// A webhook serving InterpretReplica of `example.io/v1 Widget`;
    /// `broken` answers an unknown operation with a refusal without a
    /// message. Gives the server and its configuration.
    #[cfg(feature = "webhook")]
    fn widget_webhook(
        broken: bool,
    ) -> (
        karmada_interpreter::webhook::server::RunningServer,
        karmada_interpreter::api::ResourceInterpreterWebhookConfiguration,
    ) {
        use karmada_interpreter::webhook::sdk::{self, Request, Response};
        use karmada_interpreter::webhook::server::Server;
        use karmada_interpreter::webhook::tls::TlsIdentity;
        let id = TlsIdentity::self_signed(&["127.0.0.1"]).unwrap();
        let ca = id.cert_pem.clone();
        let handler = move |req: &Request| -> Response {
            match req.operation_name.as_str() {
                "InterpretReplica" => {
                    let replicas = req
                        .object
                        .as_ref()
                        .and_then(|o| o.pointer("/spec/replicas"))
                        .and_then(serde_json::Value::as_i64)
                        .unwrap_or(1);
                    let mut r = sdk::succeeded("");
                    r.replicas = Some(i32::try_from(replicas).unwrap_or(1));
                    r
                }
                _ if broken => sdk::errored(500, ""),
                other => sdk::errored(400, format!("not served: {other}")),
            }
        };
        let server = Server::new(id)
            .route("/widgets", handler)
            .start("127.0.0.1:0".parse().unwrap())
            .unwrap();
        let config = serde_json::json!({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterWebhookConfiguration",
            "metadata": {"name": "c"},
            "webhooks": [{
                "name": "widgets",
                "rules": [{"operations": ["InterpretReplica"], "apiGroups": ["example.io"],
                           "apiVersions": ["v1"], "kinds": ["Widget"]}],
                "clientConfig": {
                    "url": format!("https://127.0.0.1:{}/widgets", server.local_addr().port()),
                    "caBundle": k8s_openapi::ByteString(ca.into_bytes()),
                },
                "interpreterContextVersions": ["v1alpha1"],
                "timeoutSeconds": 2,
            }],
        });
        (server, serde_json::from_value(config).unwrap())
    }

    /// The conformance target's webhook suites: one trial per suite and
    /// webhook, listed without a request sent; a failed check fails its
    /// trial with the check's report.
    #[cfg(feature = "webhook")]
    #[test]
    fn webhook_suites_are_one_trial_per_suite_and_webhook() {
        let options = crate::robustness::Options {
            concurrency: 2,
            slow_read: std::time::Duration::from_millis(10),
            ..crate::robustness::Options::default()
        };
        let (good, config) = widget_webhook(false);
        let trials = Harness::default()
            .webhook_suites(vec![config.clone()], options.clone())
            .trials()
            .unwrap();
        let names: Vec<&str> = trials.iter().map(Trial::name).collect();
        assert_eq!(names, ["protocol: c/widgets", "robustness: c/widgets"]);
        for (protocol, robustness) in [(true, false), (false, true)] {
            let options = crate::robustness::Options {
                protocol,
                robustness,
                ..options.clone()
            };
            assert!(suite_completion(&config, &options).is_ok());
        }
        good.stop();

        let (bad, config) = widget_webhook(true);
        let options = crate::robustness::Options {
            protocol: false,
            ..options
        };
        let Err(failed) = suite_completion(&config, &options) else {
            panic!("the broken webhook passed the robustness suite");
        };
        bad.stop();
        let message = failed.message().unwrap();
        assert!(
            message.contains("unknown-operation")
                && message.contains("without status.message")
                && message.contains("Karmada behaviour at stake"),
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
