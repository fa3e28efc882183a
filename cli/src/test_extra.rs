//! `test`'s feedback and bookkeeping beyond running cases: the progress
//! bar of long runs, the summary line, the webhook rules no case reached,
//! a run that checked nothing, and `--update`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use karmada_interpreter::api::{
    InterpreterOperation, ResourceInterpreterWebhookConfiguration, RuleWithOperations,
};
use karmada_interpreter::interpreter::gvk_of;
use karmada_interpreter_golden::GoldenError;

use crate::error::{Error, Result};
use karmada_interpreter_golden::update::replace_output;
use karmada_interpreter_golden::{
    discover, load_cases, parse_cases, CaseReport, GoldenCase, Report, Runner, Verdict,
};
use serde_json::{Map, Value};

use crate::ux;

/// Runs shorter than this get no progress bar (it would only flicker).
const PROGRESS_AFTER: Duration = Duration::from_millis(500);

/// The progress of a run: a spinner with the count of cases run and
/// failed, on a terminal only, once the run lasts [`PROGRESS_AFTER`].
pub struct Progress {
    quiet: bool,
    started: Instant,
    bar: Option<ProgressBar>,
    done: u64,
    failed: u64,
}

impl Progress {
    pub fn new(quiet: bool) -> Self {
        Self {
            quiet,
            started: Instant::now(),
            bar: None,
            done: 0,
            failed: 0,
        }
    }

    /// One more case ended.
    pub fn case(&mut self, case: &CaseReport) {
        self.done += 1;
        if matches!(case.verdict, Verdict::Failed(_)) {
            self.failed += 1;
        }
        if self.bar.is_none() && self.started.elapsed() >= PROGRESS_AFTER {
            self.bar = Some(ux::progress(None, self.quiet, "cases"));
        }
        if let Some(bar) = &self.bar {
            bar.set_position(self.done);
            bar.set_message(format!("{} failed, now {}", self.failed, case.name));
        }
    }

    /// Clears the bar (the summary follows).
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// `N passed, M failed ... in 1.23s`, with the cases `--filter` left out
/// and whether `--fail-fast` stopped the run.
pub fn summary(report: &Report, took: Duration, filtered_out: usize, stopped: bool) -> String {
    let mut line = report.summary_line();
    if filtered_out > 0 {
        line.push_str(&format!(", {filtered_out} filtered out"));
    }
    line.push_str(&format!(" in {}", ux::seconds(took)));
    if stopped {
        line.push_str(" (stopped at the first failure: --fail-fast)");
    }
    line
}

/// The error of a run without a case: a `--filter` that selected none is
/// named as the reason.
pub fn no_cases(searched: Vec<PathBuf>, filter: Option<&str>, filtered_out: usize) -> Error {
    match filter {
        Some(filter) if filtered_out > 0 => ux::nothing_found(
            "golden case",
            &searched
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>(),
            &format!("--filter {filter:?} matches none of the {filtered_out} case(s) (it is matched against case names and file paths)"),
        ),
        _ => Error::Golden(GoldenError::NoCases { searched }),
    }
}

/// The run's report, or why it has none ([`no_cases`]).
pub fn no_case_selected(
    run: Result<Report>,
    filter: Option<&str>,
    filtered_out: usize,
) -> Result<Report> {
    match run {
        Err(Error::Golden(GoldenError::NoCases { searched })) => {
            Err(no_cases(searched, filter, filtered_out))
        }
        run => run,
    }
}

/// The rules of the webhooks under test (`--webhook-config`), and which
/// (kind, operation) the cases hold, to report rules no case reached.
pub struct WebhookRules {
    rules: Vec<(String, usize, RuleWithOperations)>,
    configs: usize,
    seen: HashSet<(String, String, String, InterpreterOperation)>,
}

impl WebhookRules {
    /// `None` without webhooks (a run against the chain).
    pub fn new(configs: &[ResourceInterpreterWebhookConfiguration]) -> Option<Self> {
        if configs.is_empty() {
            return None;
        }
        let rules = configs
            .iter()
            .flat_map(|c| {
                let config = c.metadata.name.clone().unwrap_or_default();
                c.webhooks.iter().flat_map(move |w| {
                    let identity = format!("{config}/{}", w.name);
                    w.rules
                        .iter()
                        .enumerate()
                        .map(move |(i, r)| (identity.clone(), i, r.clone()))
                })
            })
            .collect();
        Some(Self {
            rules,
            configs: configs.len(),
            seen: HashSet::new(),
        })
    }

    fn note(&mut self, case: &GoldenCase) {
        if let Ok(request) = case.request() {
            let gvk = gvk_of(request.object());
            self.seen
                .insert((gvk.group, gvk.version, gvk.kind, case.operation));
        }
    }

    /// Notes the kinds and operations of the cases under `paths`.
    pub fn note_paths(&mut self, paths: &[PathBuf]) {
        for file in discover(paths).unwrap_or_default() {
            for case in load_cases(&file.path).into_iter().flatten() {
                self.note(&case);
            }
        }
    }

    /// Notes the kinds and operations of cases given as texts.
    pub fn note_texts(&mut self, files: &[(PathBuf, &str)]) {
        for (path, text) in files {
            for case in parse_cases(text, path).into_iter().flatten() {
                self.note(&case);
            }
        }
    }

    /// Prints on stderr each rule that matches none of the cases (a typo
    /// in `apiGroups`, `kinds`, ... leaves a webhook untested).
    pub fn report_unmatched(&self) {
        for (identity, index, rule) in &self.rules {
            let reached = self
                .seen
                .iter()
                .any(|(group, version, kind, op)| rule.matches(group, version, kind, *op));
            if !reached {
                let style = ux::verdict_style("warning");
                anstream::eprintln!(
                    "{style}warning{style:#}: webhook {identity} rules[{index}] (apiGroups {:?}, apiVersions {:?}, kinds {:?}, operations {:?}) matches none of the cases",
                    rule.api_groups, rule.api_versions, rule.kinds, rule.operations
                );
            }
        }
    }

    /// An error when no case ran against a webhook: every case skipped.
    pub fn nothing_ran(&self, report: &Report, paths: &[PathBuf]) -> Result<()> {
        if report.cases.is_empty() || report.skipped() < report.cases.len() {
            return Ok(());
        }
        let mut searched: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        if searched.is_empty() {
            searched.push("the bundled cases".to_owned());
        }
        Err(ux::nothing_found(
            "case a webhook rule matches",
            &searched,
            &format!(
                "all {} case(s) were skipped; the {} rule(s) of the {} --webhook-config document(s) match none (see the warnings above)",
                report.cases.len(),
                self.rules.len(),
                self.configs
            ),
        ))
    }
}

/// Optional [`WebhookRules`]: the calls do nothing without webhooks.
pub trait MaybeWebhookRules {
    fn note_paths(&mut self, paths: &[PathBuf]);
    fn note_texts(&mut self, files: &[(PathBuf, &str)]);
    fn report_unmatched(&self);
    fn nothing_ran(&self, report: &Report, paths: &[PathBuf]) -> Result<()>;
}

impl MaybeWebhookRules for Option<WebhookRules> {
    fn note_paths(&mut self, paths: &[PathBuf]) {
        if let Some(rules) = self {
            rules.note_paths(paths);
        }
    }
    fn note_texts(&mut self, files: &[(PathBuf, &str)]) {
        if let Some(rules) = self {
            rules.note_texts(files);
        }
    }
    fn report_unmatched(&self) {
        if let Some(rules) = self {
            rules.report_unmatched();
        }
    }
    fn nothing_ran(&self, report: &Report, paths: &[PathBuf]) -> Result<()> {
        self.as_ref()
            .map_or(Ok(()), |rules| rules.nothing_ran(report, paths))
    }
}

/// The output `--update` writes for a case: the keys the case expects,
/// with the values produced (keys not produced are dropped), or every
/// produced key when the case expects none.
fn accepted_output(case: &GoldenCase, produced: &Map<String, Value>) -> Map<String, Value> {
    if case.output.is_empty() {
        return produced.clone();
    }
    case.output
        .keys()
        .filter_map(|k| produced.get(k).map(|v| (k.clone(), v.clone())))
        .collect()
}

/// `--update`: writes the observed output of every failing case into its
/// case file (only files found under `paths`), one write per file; the
/// number of cases updated.
pub fn update(runner: &Runner, paths: &[PathBuf], report: &Report, quiet: bool) -> Result<usize> {
    let failing: HashSet<(&Path, &str)> = report
        .cases
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Failed(_)))
        .map(|c| (c.file.as_path(), c.name.as_str()))
        .collect();
    let mut updated: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for file in discover(paths)? {
        let cases: Vec<GoldenCase> = load_cases(&file.path).into_iter().flatten().collect();
        let mut text: Option<String> = None;
        for case in &cases {
            if !failing.contains(&(case.file.as_path(), case.name.as_str())) {
                continue;
            }
            let label = format!("{}: case {:?}", file.path.display(), case.name);
            if case.expect_error {
                eprintln!("not updated: {label} expects an error (edit expectError by hand)");
                continue;
            }
            if case.output_contains.is_some() {
                eprintln!(
                    "not updated: {label} states a partial expectation (edit outputContains by hand)"
                );
                continue;
            }
            if case.output.is_empty() && !case.assertions.is_empty() {
                eprintln!(
                    "not updated: {label} states expression assertions (edit assert by hand)"
                );
                continue;
            }
            let produced = runner.backend.produce(&file, case);
            let actual = match produced.result {
                Ok(actual) => actual,
                Err(e) => {
                    eprintln!("not updated: {label}: the operation failed: {e}");
                    continue;
                }
            };
            // An answer that breaks the protocol, or edits what its
            // operation does not own, is no golden output.
            let findings = karmada_interpreter_golden::findings(case, &actual);
            let refused = if !produced.violations.is_empty() {
                Some(("fails the protocol checks".to_owned(), produced.violations))
            } else if !findings.is_empty() {
                Some((
                    format!("edits fields outside what {} owns", case.operation),
                    findings,
                ))
            } else if !produced.findings.is_empty() {
                // A cross-check's differences.
                Some((
                    "differs from the cross-check's reference".to_owned(),
                    produced.findings,
                ))
            } else {
                None
            };
            if let Some((why, reasons)) = refused {
                let output = Value::Object(accepted_output(case, &actual));
                let would = serde_saphyr::to_string(&output).unwrap_or_else(|_| output.to_string());
                eprintln!(
                    "not updated: {label}: the answer {why}:\n  {}\nit would write:\noutput:\n{}",
                    reasons.join("\n  "),
                    would
                        .lines()
                        .map(|l| format!("  {l}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                );
                continue;
            }
            let current = match text.take() {
                Some(t) => t,
                None => std::fs::read_to_string(&file.path).map_err(|source| Error::File {
                    path: file.path.clone(),
                    source,
                })?,
            };
            match replace_output(&current, case.index, &accepted_output(case, &actual)) {
                Ok(new) => {
                    text = Some(new);
                    *updated.entry(file.path.clone()).or_default() += 1;
                    if !quiet {
                        eprintln!("updated: {label}");
                    }
                }
                Err(e) => {
                    text = Some(current);
                    eprintln!("not updated: {}: {e}", file.path.display());
                }
            }
        }
        if let (Some(text), true) = (text, updated.contains_key(&file.path)) {
            std::fs::write(&file.path, text).map_err(|source| Error::File {
                path: file.path.clone(),
                source,
            })?;
        }
    }
    let cases: usize = updated.values().sum();
    if !quiet {
        eprintln!(
            "--update: {cases} case(s) updated in {} file(s)",
            updated.len()
        );
    }
    Ok(cases)
}

/// `test --suite`: which checks a run against `--webhook-config` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Suite {
    /// Requests shaped as Karmada sends them, no case needed.
    Protocol,
    /// Requests beyond Karmada's own, no case needed.
    Robustness,
    /// The golden cases, with the protocol checks on each answer (default).
    Cases,
    /// The three.
    All,
}

impl Suite {
    /// The suite of a run: `--suite` needs `--webhook-config`; suites
    /// without cases take no PATH; `--strict` needs a suite with checks.
    pub fn chosen(
        chosen: Option<Suite>,
        webhooks: bool,
        paths: &[PathBuf],
        strict: bool,
        cross_check: bool,
    ) -> Result<Suite> {
        if chosen.is_some() && !webhooks {
            return Err(Error::usage(
                "--suite",
                "the suites test interpreter webhooks: give the webhooks with --webhook-config",
            ));
        }
        let suite = chosen.unwrap_or(Suite::Cases);
        if !suite.cases() && !paths.is_empty() {
            return Err(Error::usage(
                "--suite",
                "the protocol and robustness suites need no cases: give PATHs with --suite cases or all",
            ));
        }
        if strict && !suite.checks() && !cross_check {
            return Err(Error::usage(
                "--strict",
                "semantic doubts come from --suite protocol, robustness or all, and from --cross-check",
            ));
        }
        Ok(suite)
    }

    /// Whether golden cases run.
    pub fn cases(self) -> bool {
        matches!(self, Suite::Cases | Suite::All)
    }

    /// Whether the suites that need no cases run.
    pub fn checks(self) -> bool {
        self != Suite::Cases
    }

    /// Runs the protocol and robustness checks this suite holds against
    /// `webhooks`, one case report per check.
    pub fn run(
        self,
        webhooks: &[ResourceInterpreterWebhookConfiguration],
        strict: bool,
        reference: Option<karmada_interpreter_golden::robustness::Reference>,
    ) -> Vec<CaseReport> {
        use karmada_interpreter_golden::robustness;
        if !self.checks() {
            return Vec::new();
        }
        let options = robustness::Options {
            protocol: matches!(self, Suite::Protocol | Suite::All),
            robustness: matches!(self, Suite::Robustness | Suite::All),
            strict,
            reference,
            ..robustness::Options::default()
        };
        let client = karmada_interpreter::webhook::client::WebhookClient::new();
        robustness::run(webhooks, &client, &options)
    }
}

/// `test --cross-check builtin|FILE`: the interpreter a webhook's answers
/// are compared with.
pub struct Reference {
    /// `builtin`, or the customization file's path.
    pub name: String,
    customizations: Vec<karmada_interpreter::api::ResourceInterpreterCustomization>,
    file: Option<PathBuf>,
    chain: std::sync::Arc<karmada_interpreter::Interpreter>,
}

impl Reference {
    /// The reference `--cross-check` names, loaded (a FILE that does not
    /// load is an error naming it); `--cross-check` needs `--webhook-config`.
    pub fn chosen(
        chosen: Option<&str>,
        webhooks: &[ResourceInterpreterWebhookConfiguration],
    ) -> Result<Option<Self>> {
        let Some(chosen) = chosen else {
            return Ok(None);
        };
        if webhooks.is_empty() {
            return Err(Error::usage(
                "--cross-check",
                "a cross-check compares a webhook's answers with another interpreter's: give the webhooks with --webhook-config",
            ));
        }
        let (customizations, file) = if chosen == "builtin" {
            (Vec::new(), None)
        } else {
            let path = PathBuf::from(chosen);
            (
                karmada_interpreter::load::customizations_from_file(&path)?,
                Some(path),
            )
        };
        let chain =
            karmada_interpreter_golden::ChainBackend::new(customizations.clone(), Vec::new())
                .with_profile(crate::profile::current())
                .chain(None)?;
        Ok(Some(Self {
            name: chosen.to_owned(),
            customizations,
            file,
            chain: std::sync::Arc::new(chain),
        }))
    }

    /// The reference as a golden-case backend.
    pub fn backend(&self) -> karmada_interpreter_golden::ChainBackend {
        karmada_interpreter_golden::ChainBackend::new(self.customizations.clone(), Vec::new())
            .with_profile(crate::profile::current())
            .with_files(self.file.iter().cloned().collect())
    }

    /// The reference of the protocol suite's cross-check.
    pub fn for_suites(&self) -> karmada_interpreter_golden::robustness::Reference {
        karmada_interpreter_golden::robustness::Reference {
            name: self.name.clone(),
            chain: self.chain.clone(),
        }
    }
}
