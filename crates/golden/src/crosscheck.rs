//! Semantic cross-checks: every answer of the backend under test (a
//! webhook) compared with the answer of a reference interpreter for the
//! same input: the built-in chain, or the chain with a customization file
//! the author gives (`test --webhook-config W --cross-check builtin|FILE`).
//!
//! The golden cases check what their authors thought of; a cross-check
//! compares every answer with an interpreter that already agrees with
//! Karmada. It is the quickest way to find a webhook that reads
//! `desiredReplicas` (0 on every request but ReviseReplica) where Karmada
//! means the object's own replica count, or that drops a field of the
//! status it aggregates.
//!
//! The comparison is the golden comparison ([`crate::diff_result`], with
//! Karmada's decoding rules): the reference's answer stands where a case's
//! `output` would. Each difference is one line naming the result, the path
//! in it and both values. Where the reference serves no such (kind,
//! operation) there is nothing to compare and nothing is reported.
//! Differences are semantic doubts: reported as the case's findings, or with
//! [`CrossCheck::strict`] failing it.

use serde_json::{Map, Value};

use crate::backend::{Backend, ChainBackend, Produced};
use crate::case::GoldenCase;
use crate::compare::{diff_result, Match};
use crate::discover::CaseFile;
use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::interpreter::result_names;
use karmada_interpreter::profile::Profile;

/// A backend under test, each answer compared with a reference chain's.
///
/// ```
/// use karmada_interpreter_golden::{ChainBackend, CrossCheck, Runner};
///
/// // Two chains that agree (a webhook backend is the usual one under test).
/// let backend = CrossCheck::new(ChainBackend::default(), ChainBackend::default(), "builtin");
/// let report = Runner::new(backend)
///     .run(&[concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/native/apps/v1/Deployment").into()])
///     .unwrap();
/// assert_eq!(report.findings(), 0);
/// ```
#[derive(Debug)]
pub struct CrossCheck<B> {
    tested: B,
    reference: ChainBackend,
    reference_name: String,
    strict: bool,
}

impl<B: Backend> CrossCheck<B> {
    /// `tested`'s answers compared with `reference`'s, named
    /// `reference_name` in reports (`builtin`, a file's path).
    pub fn new(tested: B, reference: ChainBackend, reference_name: impl Into<String>) -> Self {
        Self {
            tested,
            reference,
            reference_name: reference_name.into(),
            strict: false,
        }
    }

    /// Differences fail the case (instead of being reported as findings).
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }
}

impl<B: Backend> Backend for CrossCheck<B> {
    fn name(&self) -> &'static str {
        self.tested.name()
    }

    fn skip_reason(&self, file: &CaseFile, case: &GoldenCase) -> Option<String> {
        self.tested.skip_reason(file, case)
    }

    fn profile(&self) -> Profile {
        self.tested.profile()
    }

    fn customization_files(&self, file: &CaseFile) -> Vec<std::path::PathBuf> {
        self.tested.customization_files(file)
    }

    /// The tested backend's answer, with the differences from the
    /// reference's. The reference runs every case the tested backend runs,
    /// webhook-only ones included (the marker keeps the chain from being
    /// *judged* by them, not from answering).
    fn produce(&self, file: &CaseFile, case: &GoldenCase) -> Produced {
        let mut produced = self.tested.produce(file, case);
        let reference = self.reference.produce(file, case);
        let lines = differences(
            case.operation,
            produced.result.as_ref().map_err(ToString::to_string),
            &reference.result,
            &self.reference_name,
        );
        if self.strict {
            produced.violations.extend(
                lines
                    .into_iter()
                    .map(|l| format!("cross-check (--strict): {l}")),
            );
        } else {
            produced
                .findings
                .extend(lines.into_iter().map(|l| format!("cross-check: {l}")));
        }
        produced
    }
}

/// The differences between an answer and the reference's answer to the
/// same request, one line each; none when the reference serves no such
/// (kind, operation) or both fail.
///
/// ```
/// use karmada_interpreter::api::InterpreterOperation;
/// use karmada_interpreter_golden::crosscheck::differences;
/// use serde_json::json;
///
/// let webhook = json!({"replica": 0, "requires": null}).as_object().unwrap().clone();
/// let builtin = Ok(json!({"replica": 3, "requires": null}).as_object().unwrap().clone());
/// let lines = differences(InterpreterOperation::InterpretReplica, Ok(&webhook), &builtin, "builtin");
/// assert_eq!(lines, ["InterpretReplica `replica`: builtin answers 3, the webhook 0"]);
/// ```
pub fn differences(
    operation: InterpreterOperation,
    answer: Result<&Map<String, Value>, String>,
    reference: &karmada_interpreter::Result<Map<String, Value>>,
    reference_name: &str,
) -> Vec<String> {
    use karmada_interpreter::Error;
    match (answer, reference) {
        (_, Err(Error::NotServed { .. })) | (Err(_), Err(_)) => Vec::new(),
        (Ok(answer), Ok(reference)) => {
            let mut out = Vec::new();
            for name in result_names(operation) {
                let (got, wanted) = (answer.get(*name), reference.get(*name));
                let null = Value::Null;
                for d in diff_result(
                    name,
                    wanted.unwrap_or(&null),
                    got.unwrap_or(&null),
                    Match::Whole,
                ) {
                    let place = match d.path.as_str() {
                        "" => format!("`{name}`"),
                        p if p.starts_with('[') => format!("`{name}{p}`"),
                        p => format!("`{name}.{p}`"),
                    };
                    let show = |v: &Option<Value>| {
                        v.as_ref()
                            .map_or_else(|| "nothing".to_owned(), Value::to_string)
                    };
                    out.push(format!(
                        "{operation} {place}: {reference_name} answers {}, the webhook {}",
                        show(&d.expected),
                        show(&d.actual)
                    ));
                }
            }
            out
        }
        (Ok(answer), Err(e)) => vec![format!(
            "{operation}: {reference_name} fails ({e}) where the webhook answers {}",
            Value::Object((*answer).clone())
        )],
        (Err(e), Ok(reference)) => vec![format!(
            "{operation}: the webhook fails ({e}) where {reference_name} answers {}",
            Value::Object(reference.clone())
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use karmada_interpreter::Error;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn differences_name_the_result_path_and_both_answers() {
        let op = InterpreterOperation::AggregateStatus;
        let webhook =
            map(json!({"aggregatedStatus": {"status": {"readyReplicas": 0, "conditions": null}}}));
        let builtin = Ok(map(
            json!({"aggregatedStatus": {"status": {"readyReplicas": 3}}}),
        ));
        let lines = differences(op, Ok(&webhook), &builtin, "ref.yaml");
        // Karmada's decoding rules: a null list equals an absent one.
        assert_eq!(
            lines,
            ["AggregateStatus `aggregatedStatus.status.readyReplicas`: ref.yaml answers 3, the webhook 0"]
        );
        let same = Ok(webhook.clone());
        assert!(differences(op, Ok(&webhook), &same, "ref.yaml").is_empty());
    }

    #[test]
    fn failures_are_differences_unless_the_reference_serves_nothing() {
        let op = InterpreterOperation::InterpretHealth;
        let object = json!({"apiVersion": "example.io/v1", "kind": "Widget"});
        let healthy = map(json!({"healthy": true}));
        let not_served = Err(Error::not_served(&object, op));
        assert!(differences(op, Ok(&healthy), &not_served, "builtin").is_empty());
        let failed: karmada_interpreter::Result<Map<String, Value>> = Err(Error::InvalidInput {
            operation: op,
            reason: "boom".into(),
        });
        let lines = differences(op, Ok(&healthy), &failed, "builtin");
        assert!(
            lines[0].starts_with("InterpretHealth: builtin fails (")
                && lines[0].ends_with("where the webhook answers {\"healthy\":true}"),
            "{lines:?}"
        );
        let lines = differences(op, Err("refused".into()), &Ok(healthy), "builtin");
        assert_eq!(
            lines,
            ["InterpretHealth: the webhook fails (refused) where builtin answers {\"healthy\":true}"]
        );
        assert!(differences(op, Err("refused".into()), &failed, "builtin").is_empty());
    }
}
