//! Running golden cases against an interpreter chain.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::case::{load_cases, GoldenCase};
use super::compare::{diff, diff_unordered};
use super::deviations::Deviations;
use super::discover::{discover, is_webhook_only};

/// Why a webhook-only case is skipped by the chain.
pub(crate) const WEBHOOK_ONLY_REASON: &str =
    "webhook-only case (its directory holds a WEBHOOK-ONLY marker): run it against a webhook";
use crate::api::{
    InterpreterOperation, ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
};
use crate::error::Result;
use crate::interpreter::{Interpreter, Outcome, Source};

/// The result names an operation produces (`thirdparty-semantics.md` §5.4).
pub(crate) fn result_names(operation: InterpreterOperation) -> &'static [&'static str] {
    use InterpreterOperation as Op;
    match operation {
        Op::InterpretReplica => &["replica", "requires"],
        Op::InterpretComponent => &["components"],
        Op::ReviseReplica => &["revised"],
        Op::Retain => &["retained"],
        Op::AggregateStatus => &["aggregatedStatus"],
        Op::InterpretStatus => &["status"],
        Op::InterpretHealth => &["healthy"],
        Op::InterpretDependency => &["dependencies"],
    }
}

/// Runs one case's operation and names its results as golden files do.
pub fn produce(chain: &Interpreter, case: &GoldenCase) -> Result<(Map<String, Value>, Source)> {
    let request = case
        .request()
        .map_err(|reason| crate::Error::InvalidInput {
            operation: case.operation,
            reason,
        })?;
    let answer = chain.interpret(&request)?;
    Ok((outputs(answer.value), answer.served_by))
}

/// An operation's result named as golden files name it (`replica`,
/// `requires`, `revised`, ...).
pub fn outputs(outcome: Outcome) -> Map<String, Value> {
    let mut out = Map::new();
    match outcome {
        Outcome::Replicas(r) => {
            out.insert("replica".into(), Value::from(r.replicas));
            if let Some(req) = r.requirements {
                out.insert("requires".into(), json(&req));
            }
        }
        Outcome::Components(c) => {
            out.insert("components".into(), json(&c));
        }
        Outcome::Revised(v) => {
            out.insert("revised".into(), v);
        }
        Outcome::Retained(v) => {
            out.insert("retained".into(), v);
        }
        Outcome::Aggregated(v) => {
            out.insert("aggregatedStatus".into(), v);
        }
        Outcome::Status(v) => {
            out.insert("status".into(), v.unwrap_or(Value::Null));
        }
        Outcome::Healthy(h) => {
            out.insert("healthy".into(), Value::Bool(h));
        }
        Outcome::Dependencies(d) => {
            out.insert("dependencies".into(), json(&d));
        }
    }
    out
}

/// Our own API types always encode; a failure would be a bug worth showing.
fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| Value::String(format!("<unencodable: {e}>")))
}

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
}

impl CaseReport {
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
            Verdict::Passed => {}
            Verdict::Failed(lines) => {
                for line in lines {
                    let _ = write!(s, "\n    {line}");
                }
            }
            Verdict::KnownDeviation(reason) => {
                let _ = write!(s, "\n    known deviation: {reason}");
            }
            Verdict::Skipped(reason) => {
                let _ = write!(s, "\n    skipped: {reason}");
            }
        }
        s
    }
}

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

    /// `N passed, M failed` (`, K skipped` and `, K known deviations` when
    /// there are some).
    pub fn summary_line(&self) -> String {
        let mut s = format!("{} passed, {} failed", self.passed(), self.failed());
        if self.skipped() > 0 {
            let _ = write!(s, ", {} skipped", self.skipped());
        }
        if self.deviations() > 0 {
            let _ = write!(s, ", {} known deviations", self.deviations());
        }
        s
    }
}

/// Runs golden cases against a chain built from the bundled and native
/// layers plus the customizations and webhooks given.
#[derive(Debug, Clone)]
pub struct Runner {
    /// Extra declarative customizations for every case.
    pub customizations: Vec<ResourceInterpreterCustomization>,
    /// Webhook configurations for every case.
    pub webhooks: Vec<ResourceInterpreterWebhookConfiguration>,
    /// Cases the project answers differently on purpose.
    pub deviations: Deviations,
    /// When set, the lines of the customization scripts that run are
    /// recorded here (`test --coverage`).
    pub coverage: Option<crate::lua::Coverage>,
}

impl Default for Runner {
    fn default() -> Self {
        Self {
            customizations: Vec::new(),
            webhooks: Vec::new(),
            deviations: Deviations::project(),
            coverage: None,
        }
    }
}

impl Runner {
    /// Runs every case found under `paths` (see [`super::discover`]).
    pub fn run(&self, paths: &[PathBuf]) -> Result<Report> {
        let mut chains: HashMap<Option<PathBuf>, std::result::Result<Interpreter, String>> =
            HashMap::new();
        let mut report = Report::default();
        for file in discover(paths)? {
            if is_webhook_only(&file.path) {
                for (i, case) in load_cases(&file.path).into_iter().enumerate() {
                    let (name, operation) = match case {
                        Ok(c) => (c.name, Some(c.operation)),
                        Err(_) => (format!("case #{}", i + 1), None),
                    };
                    report.cases.push(CaseReport {
                        file: file.path.clone(),
                        name,
                        operation,
                        served_by: None,
                        verdict: Verdict::Skipped(WEBHOOK_ONLY_REASON.into()),
                    });
                }
                continue;
            }
            let chain = chains
                .entry(file.customization.clone())
                .or_insert_with(|| self.chain(file.customization.as_deref()));
            for (i, case) in load_cases(&file.path).into_iter().enumerate() {
                let entry = match (case, &*chain) {
                    (Err(e), _) => CaseReport {
                        file: file.path.clone(),
                        name: format!("case #{}", i + 1),
                        operation: None,
                        served_by: None,
                        verdict: Verdict::Failed(vec![e.to_string()]),
                    },
                    (Ok(case), Err(e)) => CaseReport {
                        file: file.path.clone(),
                        name: case.name.clone(),
                        operation: Some(case.operation),
                        served_by: None,
                        verdict: Verdict::Failed(vec![e.clone()]),
                    },
                    (Ok(case), Ok(chain)) => self.run_case(chain, &case),
                };
                report.cases.push(entry);
            }
        }
        Ok(report)
    }

    /// The chain for cases next to `customization` (Karmada's layout) or none.
    pub fn chain(&self, customization: Option<&Path>) -> std::result::Result<Interpreter, String> {
        let mut customizations = self.customizations.clone();
        if let Some(path) = customization {
            let mut found =
                crate::load::customizations_from_file(path).map_err(|e| e.to_string())?;
            customizations.append(&mut found);
        }
        let builder = match &self.coverage {
            Some(coverage) if !customizations.is_empty() => {
                let layer = crate::lua::LuaLayer::customizations(customizations)
                    .map_err(|e| e.to_string())?
                    .with_coverage(coverage.clone());
                Interpreter::builder().customization_layer(std::sync::Arc::new(layer))
            }
            _ => Interpreter::builder().customizations(customizations),
        };
        builder
            .webhook_configurations(self.webhooks.clone())
            .build()
            .map_err(|e| e.to_string())
    }

    /// Runs one case and judges it, known deviations included.
    pub fn run_case(&self, chain: &Interpreter, case: &GoldenCase) -> CaseReport {
        let (served_by, mut verdict) = judge(chain, case);
        if let Some(dev) = self.deviations.find(&case.file, &case.name) {
            verdict = match verdict {
                Verdict::Failed(_) => Verdict::KnownDeviation(dev.reason.clone()),
                _ => Verdict::Failed(vec![
                    "listed as a known deviation in COMPATIBILITY.md, but the result now agrees with the golden output: remove the entry".into(),
                ]),
            };
        }
        CaseReport {
            file: case.file.clone(),
            name: case.name.clone(),
            operation: Some(case.operation),
            served_by,
            verdict,
        }
    }
}

/// Runs a case and compares, without looking at deviations.
pub(crate) fn judge(chain: &Interpreter, case: &GoldenCase) -> (Option<Source>, Verdict) {
    judge_result(case, produce(chain, case))
}

/// Compares what a backend produced (or how it failed) with the case.
pub(crate) fn judge_result(
    case: &GoldenCase,
    produced: Result<(Map<String, Value>, Source)>,
) -> (Option<Source>, Verdict) {
    match produced {
        Err(crate::Error::NotServed { .. }) if case.expect_error => (
            None,
            Verdict::Failed(vec![format!(
                "expected the operation to fail, but no layer serves {} for this kind",
                case.operation
            )]),
        ),
        Err(_) if case.expect_error => (None, Verdict::Passed),
        Err(e) => (
            None,
            Verdict::Failed(vec![format!("operation failed: {e}")]),
        ),
        Ok((_, source)) if case.expect_error => (
            Some(source),
            Verdict::Failed(vec![
                "expected the operation to fail, but it succeeded".into()
            ]),
        ),
        Ok((actual, source)) => {
            let mut lines = Vec::new();
            for (key, expected) in &case.output {
                let Some(got) = actual.get(key) else {
                    lines.push(format!(
                        "output key `{key}` is expected but the operation did not produce it"
                    ));
                    continue;
                };
                let diffs = match key.as_str() {
                    "dependencies" | "components" => diff_unordered(expected, got),
                    _ => diff(expected, got),
                };
                lines.extend(diffs.into_iter().map(|d| {
                    if d.path.is_empty() {
                        format!("{key}: {d}")
                    } else if d.path.starts_with('[') {
                        format!("{key}{d}")
                    } else {
                        format!("{key}.{d}")
                    }
                }));
            }
            let verdict = if lines.is_empty() {
                Verdict::Passed
            } else {
                Verdict::Failed(lines)
            };
            (Some(source), verdict)
        }
    }
}
