//! Running golden cases against an interpreter chain.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::backend::{Backend, ChainBackend, Exchange, Produced};
use crate::case::{load_cases, parse_cases, GoldenCase};
use crate::compare::{diff_result, Match};
use crate::deviations::Deviations;
use crate::discover::{discover, CaseFile};
use crate::error::Result;
use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::interpreter::Source;

/// How one case went.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The result matches the golden output.
    Passed,
    /// The result differs, the operation failed, or the case is malformed.
    Failed(Vec<String>),
    /// The case is listed in `COMPATIBILITY.md`: the project answers
    /// differently on purpose.
    KnownDeviation(String),
    /// The case was not run against this backend (e.g. no webhook rule
    /// matches it), with the reason.
    Skipped(String),
}

/// One case's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseReport {
    /// The case file.
    pub file: PathBuf,
    /// The case name (or `case #N` for a case too malformed to have one).
    pub name: String,
    /// The operation, when the case got far enough to have one.
    pub operation: Option<InterpreterOperation>,
    /// Which layer answered, when one did.
    pub served_by: Option<Source>,
    /// The verdict.
    pub verdict: Verdict,
    /// When the operation failed: its error, for people (a script failure
    /// at its place in the customization file), whether the case expected
    /// it or not.
    pub error: Option<String>,
    /// How long the case took (running and judging it).
    pub duration: Duration,
    /// Edits outside what the operation owns (a ReviseReplica or Retain
    /// answer rewriting other fields): reported on their own, whatever the
    /// verdict.
    pub findings: Vec<String>,
    /// The request sent and the answer received, when the case went to a
    /// webhook: shown with a failure.
    pub exchange: Option<Exchange>,
    /// The case's expectation ([`GoldenCase::expectation`]), when the case
    /// loaded: shown with a failure beside `exchange`.
    pub expected: Option<Value>,
}

/// Longest a request, answer or expectation is shown in a text report.
const SHOWN_CHARS: usize = 4000;

/// `value` as one line of JSON, cut after [`SHOWN_CHARS`] characters.
fn one_line(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!(
            "{}… ({} characters; `-o json` shows it whole)",
            &text[..cut],
            text.chars().count()
        ),
        None => text,
    }
}

impl CaseReport {
    /// The report of a case that did not run (skipped, or too malformed to).
    fn unrun(file: &CaseFile, name: String, verdict: Verdict) -> Self {
        Self {
            file: file.path.clone(),
            name,
            operation: None,
            served_by: None,
            verdict,
            error: None,
            duration: Duration::ZERO,
            findings: Vec::new(),
            exchange: None,
            expected: None,
        }
    }

    /// A readable block: the file, the case, the operation and each difference.
    pub fn render(&self) -> String {
        let status = match &self.verdict {
            Verdict::Passed => "PASS",
            Verdict::Failed(_) => "FAIL",
            Verdict::KnownDeviation(_) => "DEVIATION",
            Verdict::Skipped(_) => "SKIP",
        };
        let mut s = format!("{status} {}: case {:?}", self.file.display(), self.name);
        if let Some(op) = self.operation {
            let _ = write!(s, " ({op})");
        }
        if let Some(src) = &self.served_by {
            let _ = write!(s, " [served by {src}]");
        }
        match &self.verdict {
            Verdict::Passed => {
                if let Some(error) = &self.error {
                    let _ = write!(s, "\n    error (expected): {error}");
                }
            }
            Verdict::Failed(lines) => {
                for line in lines {
                    let _ = write!(s, "\n    {line}");
                }
                if let Some(exchange) = &self.exchange {
                    let _ = write!(s, "\n    request sent: {}", one_line(&exchange.request));
                    let _ = match &exchange.answer {
                        Some(answer) => write!(s, "\n    answer received: {}", one_line(answer)),
                        None => write!(s, "\n    answer received: none"),
                    };
                    if let Some(expected) = &self.expected {
                        let _ = write!(s, "\n    expected: {}", one_line(expected));
                    }
                }
            }
            Verdict::KnownDeviation(reason) => {
                let _ = write!(s, "\n    known deviation: {reason}");
            }
            Verdict::Skipped(reason) => {
                let _ = write!(s, "\n    skipped: {reason}");
            }
        }
        for finding in &self.findings {
            let _ = write!(s, "\n    finding: {finding}");
        }
        s
    }
}

/// Why a case of the `karmada-next` profile is skipped by a run without it.
pub(crate) const KARMADA_NEXT_REASON: &str = "karmada-next profile case (its directory holds a KARMADA-NEXT marker): build with the cargo feature karmada-next and run with --profile karmada-next";

/// Every case's outcome.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// In file order.
    pub cases: Vec<CaseReport>,
}

impl Report {
    fn count(&self, f: impl Fn(&Verdict) -> bool) -> usize {
        self.cases.iter().filter(|c| f(&c.verdict)).count()
    }

    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Passed))
    }

    /// Cases that failed.
    pub fn failed(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Failed(_)))
    }

    /// Cases reported as known deviations.
    pub fn deviations(&self) -> usize {
        self.count(|v| matches!(v, Verdict::KnownDeviation(_)))
    }

    /// Cases not run against this backend.
    pub fn skipped(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Skipped(_)))
    }

    /// Findings of every case (edits outside what an operation owns).
    pub fn findings(&self) -> usize {
        self.cases.iter().map(|c| c.findings.len()).sum()
    }

    /// `N passed, M failed` (`, K skipped`, `, K known deviations` and
    /// `, K findings` when there are some).
    pub fn summary_line(&self) -> String {
        let mut s = format!("{} passed, {} failed", self.passed(), self.failed());
        if self.skipped() > 0 {
            let _ = write!(s, ", {} skipped", self.skipped());
        }
        if self.deviations() > 0 {
            let _ = write!(s, ", {} known deviations", self.deviations());
        }
        if self.findings() > 0 {
            let _ = write!(s, ", {} findings", self.findings());
        }
        s
    }
}

/// Whether to run a case, given its file and name ([`RunControl::select`]).
pub type CaseSelector<'a> = dyn Fn(&Path, &str) -> bool + 'a;

/// What a run does besides running every case ([`Runner::run_with`]):
/// which cases it runs, whether it stops at the first failure, and who is
/// told of each case as it ends (a progress bar).
#[derive(Default)]
pub struct RunControl<'a> {
    /// Runs only the cases this accepts, given the case file and the case's
    /// name (`case #N` for a case too malformed to have one); the others
    /// are counted in [`RunControl::filtered_out`].
    pub select: Option<&'a CaseSelector<'a>>,
    /// Stops after the first failed case ([`RunControl::stopped`] tells).
    pub fail_fast: bool,
    /// Told of each case as it ends.
    pub on_case: Option<&'a mut dyn FnMut(&CaseReport)>,
    /// Cases `select` left out (set by the run).
    pub filtered_out: usize,
    /// The run stopped early at a failure (set by the run).
    pub stopped: bool,
}

impl std::fmt::Debug for RunControl<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunControl")
            .field("select", &self.select.is_some())
            .field("fail_fast", &self.fail_fast)
            .field("filtered_out", &self.filtered_out)
            .field("stopped", &self.stopped)
            .finish_non_exhaustive()
    }
}

/// Runs golden cases against a [`Backend`] and judges them, with the same
/// rules for every backend:
///
/// - a case file that does not parse, or a case the backend cannot run, fails;
/// - a case the backend does not serve is skipped, with the reason;
/// - a case listed in `COMPATIBILITY.md` that fails is a known deviation,
///   and one that passes fails (the entry must be removed).
///
/// ```
/// use karmada_interpreter_golden::{Runner, Verdict};
///
/// // One file, two cases in Karmada's format: the second expects the wrong
/// // answer, so it fails and the report says why.
/// let dir = std::env::temp_dir().join(format!("golden-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let file = dir.join("interpretreplica-test.yaml");
/// std::fs::write(&file, r#"
/// name: three replicas
/// operation: InterpretReplica
/// desiredObj:
///   apiVersion: apps/v1
///   kind: Deployment
///   metadata: {name: web}
///   spec: {replicas: 3}
/// output:
///   replica: 3
/// ---
/// name: wrong expectation
/// operation: InterpretReplica
/// desiredObj:
///   apiVersion: apps/v1
///   kind: Deployment
///   metadata: {name: web}
///   spec: {replicas: 3}
/// output:
///   replica: 4
/// "#).unwrap();
///
/// let report = Runner::default().run(&[file]).unwrap();
/// std::fs::remove_dir_all(&dir).unwrap();
/// assert_eq!(report.summary_line(), "1 passed, 1 failed");
/// assert_eq!(report.cases[0].verdict, Verdict::Passed);
/// assert!(matches!(report.cases[1].verdict, Verdict::Failed(_)));
/// println!("{}", report.cases[1].render());
/// ```
#[derive(Clone)]
pub struct Runner {
    /// Where the cases run.
    pub backend: Arc<dyn Backend>,
    /// Cases the project answers differently on purpose.
    pub deviations: Deviations,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("backend", &self.backend.name())
            .field("deviations", &self.deviations)
            .finish()
    }
}

impl Default for Runner {
    /// The built-in chain with the project's deviations.
    fn default() -> Self {
        Self::new(ChainBackend::default())
    }
}

impl Runner {
    /// Runs cases against `backend`, with the project's deviations.
    pub fn new(backend: impl Backend + 'static) -> Self {
        Self {
            backend: Arc::new(backend),
            deviations: Deviations::project(),
        }
    }

    /// Runs every case found under `paths` (see [`crate::discover`]). A run
    /// that finds no case is an error ([`crate::GoldenError::NoCases`]): it would
    /// pass while checking nothing.
    pub fn run(&self, paths: &[PathBuf]) -> Result<Report> {
        self.run_with(paths, &mut RunControl::default())
    }

    /// [`Runner::run`] under `control`: only the cases it selects, up to
    /// the first failure with `fail_fast`, each reported as it ends. A
    /// selection that leaves no case is an error too.
    pub fn run_with(&self, paths: &[PathBuf], control: &mut RunControl<'_>) -> Result<Report> {
        let mut report = Report::default();
        for file in discover(paths)? {
            if control.stopped {
                break;
            }
            let cases = load_cases(&file.path);
            self.run_file(&mut report, &file, cases, control);
        }
        if report.cases.is_empty() {
            return Err(crate::GoldenError::NoCases {
                searched: paths.to_vec(),
            });
        }
        Ok(report)
    }

    /// Runs the cases of case files given as (path, text) rather than read
    /// from disk, such as the bundled cases embedded in the binary
    /// ([`karmada_interpreter::thirdparty::bundled_cases`]). Their scripts are the chain's
    /// own (the bundled layer), so no `customizations.yaml` is read. No case
    /// at all is an error, as in [`Runner::run`].
    pub fn run_texts(&self, files: &[(PathBuf, &str)]) -> Result<Report> {
        self.run_texts_with(files, &mut RunControl::default())
    }

    /// [`Runner::run_texts`] under `control`, as [`Runner::run_with`].
    pub fn run_texts_with(
        &self,
        files: &[(PathBuf, &str)],
        control: &mut RunControl<'_>,
    ) -> Result<Report> {
        let mut report = Report::default();
        for (path, text) in files {
            if control.stopped {
                break;
            }
            let file = CaseFile {
                path: path.clone(),
                customization: None,
            };
            self.run_file(&mut report, &file, parse_cases(text, path), control);
        }
        if report.cases.is_empty() {
            return Err(crate::GoldenError::NoCases {
                searched: files.iter().map(|(p, _)| p.clone()).collect(),
            });
        }
        Ok(report)
    }

    /// Why every case of `file` is skipped, before reading it: a case of
    /// the `karmada-next` profile (under a `KARMADA-NEXT` marker) when the
    /// backend answers with another profile or the feature is not compiled in.
    pub fn file_skip_reason(&self, file: &CaseFile) -> Option<String> {
        (crate::discover::is_karmada_next(&file.path) && !self.backend.profile().is_next())
            .then(|| KARMADA_NEXT_REASON.to_owned())
    }

    /// Runs the (parsed) cases of one file into `report`; a case that does
    /// not parse fails, naming its position.
    fn run_file(
        &self,
        report: &mut Report,
        file: &CaseFile,
        cases: Vec<Result<GoldenCase>>,
        control: &mut RunControl<'_>,
    ) {
        let file_skip = self.file_skip_reason(file);
        for (i, case) in cases.into_iter().enumerate() {
            let name = match &case {
                Ok(case) => case.name.clone(),
                Err(_) => format!("case #{}", i + 1),
            };
            if control
                .select
                .is_some_and(|select| !select(&file.path, &name))
            {
                control.filtered_out += 1;
                continue;
            }
            let done = match (&file_skip, case) {
                (Some(reason), _) => {
                    CaseReport::unrun(file, name, Verdict::Skipped(reason.clone()))
                }
                (None, Ok(case)) => self.run_case(file, &case),
                (None, Err(e)) => {
                    CaseReport::unrun(file, name, Verdict::Failed(vec![e.to_string()]))
                }
            };
            if let Some(on_case) = control.on_case.as_mut() {
                on_case(&done);
            }
            let failed = matches!(done.verdict, Verdict::Failed(_));
            report.cases.push(done);
            if failed && control.fail_fast {
                control.stopped = true;
                return;
            }
        }
    }

    /// What the backend produced for `case`. Status items that Karmada's
    /// typed decoding refuses fail the operation before any backend call,
    /// naming the item (the case file itself still loads).
    fn produce(&self, file: &CaseFile, case: &GoldenCase) -> Produced {
        match &case.status_items_error {
            Some(reason) => Produced {
                result: Err(karmada_interpreter::Error::InvalidInput {
                    operation: case.operation,
                    reason: reason.clone(),
                }),
                served_by: None,
                violations: Vec::new(),
                exchange: None,
                findings: Vec::new(),
            },
            None => self.backend.produce(file, case),
        }
    }

    /// Why the backend would skip `case` (of `file`), or `None` when it runs it.
    pub fn skip_reason(&self, file: &CaseFile, case: &GoldenCase) -> Option<String> {
        self.file_skip_reason(file)
            .or_else(|| self.backend.skip_reason(file, case))
    }

    /// Runs one case of `file` and judges it, known deviations included.
    ///
    /// Known deviations describe the project's own layers: cases that run
    /// with the customizations next to them (Karmada's layout) must give
    /// Karmada's answers, so the table does not apply to them.
    pub fn run_case(&self, file: &CaseFile, case: &GoldenCase) -> CaseReport {
        let started = Instant::now();
        let Judged {
            served_by,
            verdict,
            error,
            findings,
            exchange,
        } = match self.backend.skip_reason(file, case) {
            Some(reason) => Judged {
                served_by: None,
                verdict: Verdict::Skipped(reason),
                error: None,
                findings: Vec::new(),
                exchange: None,
            },
            None => judge(case, self.produce(file, case), |e| self.describe(file, e)),
        };
        let mut findings = findings;
        if case.captured.is_some() {
            findings.push(format!(
                "captured from a cluster, not yet reviewed: {}",
                crate::capture::REVIEW
            ));
        }
        let listed = file
            .customization
            .is_none()
            .then(|| self.deviations.find(&case.file, &case.name))
            .flatten();
        let verdict = match (verdict, listed) {
            (verdict, None) => verdict,
            (Verdict::Failed(_), Some(dev)) => Verdict::KnownDeviation(dev.reason.clone()),
            (Verdict::Passed, Some(_)) => Verdict::Failed(vec![
                "listed as a known deviation in COMPATIBILITY.md, but the result now agrees with the golden output: remove the entry".into(),
            ]),
            (verdict, Some(_)) => verdict,
        };
        CaseReport {
            file: case.file.clone(),
            name: case.name.clone(),
            operation: Some(case.operation),
            served_by,
            verdict,
            error,
            duration: started.elapsed(),
            findings,
            exchange,
            expected: Some(case.expectation()),
        }
    }

    /// An operation's error for people: a script failure at its place in
    /// the customization files the backend used for `file`.
    fn describe(&self, file: &CaseFile, error: &karmada_interpreter::Error) -> String {
        #[cfg(feature = "lint")]
        if karmada_interpreter::declarative::script_error(error).is_some() {
            return karmada_interpreter::lint::Locator::for_files(
                self.backend.customization_files(file),
            )
            .describe(error);
        }
        let _ = file;
        error.to_string()
    }
}

/// How a case that ran went, before deviations are looked at.
struct Judged {
    served_by: Option<Source>,
    verdict: Verdict,
    error: Option<String>,
    findings: Vec<String>,
    exchange: Option<Exchange>,
}

/// The differences of `actual` from the case's `output` and
/// `outputContains`, one line each, prefixed with the result's name.
fn differences(case: &GoldenCase, actual: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut lines = Vec::new();
    let expectations = [(&case.output, Match::Whole, "output")].into_iter().chain(
        case.output_contains
            .iter()
            .map(|m| (m, Match::Partial, "outputContains")),
    );
    for (expected_map, mode, name) in expectations {
        for (key, expected) in expected_map {
            let Some(got) = actual.get(key) else {
                lines.push(format!(
                    "{name} key `{key}` is expected but the operation did not produce it"
                ));
                continue;
            };
            let prefix = match mode {
                Match::Partial => "outputContains: ",
                _ => "",
            };
            lines.extend(diff_result(key, expected, got, mode).into_iter().map(|d| {
                if d.path.is_empty() {
                    format!("{prefix}{key}: {d}")
                } else if d.path.starts_with('[') {
                    format!("{prefix}{key}{d}")
                } else {
                    format!("{prefix}{key}.{d}")
                }
            }));
        }
    }
    lines
}

/// Compares what a backend produced (or how it failed) with the case,
/// without looking at deviations.
/// `describe` words an error for people.
fn judge(
    case: &GoldenCase,
    produced: Produced,
    describe: impl Fn(&karmada_interpreter::Error) -> String,
) -> Judged {
    let Produced {
        result,
        served_by,
        violations,
        exchange,
        mut findings,
    } = produced;
    if let Ok(actual) = &result {
        findings.extend(crate::ownership::findings(case, actual));
    }
    let error = result.as_ref().err().map(|e| (e.to_string(), describe(e)));
    let verdict = match (&result, &error) {
        (Err(karmada_interpreter::Error::NotServed { .. }), _) if case.expect_error => {
            Verdict::Failed(vec![format!(
                "expected the operation to fail, but no layer serves {} for this kind",
                case.operation
            )])
        }
        // Karmada's text or the text people read: either may say it.
        (Err(_), Some((wire, shown))) if case.expect_error => match &case.expect_error_message {
            Some(expected) if !expected.matches(wire) && !expected.matches(shown) => {
                Verdict::Failed(vec![format!(
                    "expected {expected}, but the operation failed with: {shown}"
                )])
            }
            _ => Verdict::Passed,
        },
        (Err(_), Some((_, shown))) => Verdict::Failed(vec![format!("operation failed: {shown}")]),
        (Err(e), None) => Verdict::Failed(vec![format!("operation failed: {e}")]),
        (Ok(_), _) if case.expect_error => Verdict::Failed(vec![
            "expected the operation to fail, but it succeeded".into(),
        ]),
        (Ok(actual), _) => {
            let mut lines = differences(case, actual);
            if !case.assertions.is_empty() {
                lines.extend(crate::assertions::failures(
                    &case.assertions,
                    &case.variables(actual),
                ));
            }
            if lines.is_empty() {
                Verdict::Passed
            } else {
                Verdict::Failed(lines)
            }
        }
    };
    let verdict = match (verdict, violations.is_empty()) {
        (verdict, true) => verdict,
        (Verdict::Failed(mut lines), false) => {
            lines.extend(violations);
            Verdict::Failed(lines)
        }
        (_, false) => Verdict::Failed(violations),
    };
    Judged {
        served_by,
        verdict,
        error: error.map(|(_, shown)| shown),
        findings,
        exchange,
    }
}
