//! Argo CD's `health_test.yaml` tests, run against an [`ArgoCdHealth`]
//! layer as Argo CD's own `TestLuaHealthScript` runs them: for each test,
//! the object at `inputPath` (relative to the test file) goes through the
//! check that serves its kind, and the answer's `status` and `message` must
//! equal the expected `healthStatus` exactly.
//!
//! `karmada-interpreter test --health-checks DIR DIR` runs a whole Argo CD
//! catalogue this way; results are [`CaseReport`]s, so every output format
//! of `test` reports them.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{CaseReport, Verdict};
use crate::error::{GoldenError, Result};
use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::health::argocd::{ArgoCdHealth, HealthStatus, HEALTH_SCRIPT, HEALTH_TEST};
use karmada_interpreter::interpreter::{gvk_of, Layer};

#[derive(Debug, Deserialize)]
struct TestFile {
    #[serde(default)]
    tests: Vec<Test>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    input_path: String,
    #[serde(default)]
    health_status: Expected,
}

#[derive(Debug, Default, Deserialize)]
struct Expected {
    #[serde(default)]
    status: String,
    #[serde(default)]
    message: String,
}

/// Every `health_test.yaml` under `paths` (files named directly count too),
/// sorted: the case files [`crate::discover`] finds with that name.
pub fn test_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    Ok(crate::discover(paths)?
        .into_iter()
        .map(|f| f.path)
        .filter(|p| p.file_name().is_some_and(|n| n == HEALTH_TEST))
        .collect())
}

/// Whether `path` belongs to an Argo CD kind folder (a folder above it holds
/// a `health.lua` or a `health_test.yaml`, or Argo CD's resource actions,
/// `actions/discovery.lua`): its YAML files are Argo CD's test objects and
/// tests, not golden cases.
pub fn in_check_folder(path: &Path) -> bool {
    path.ancestors().skip(1).any(|dir| {
        dir.join(HEALTH_SCRIPT).is_file()
            || dir.join(HEALTH_TEST).is_file()
            || dir.join("actions").join("discovery.lua").is_file()
    })
}

/// Reads a YAML file as Argo CD reads its test files (`sigs.k8s.io/yaml`):
/// the first document only.
fn first_document(path: &Path) -> Result<serde_json::Value> {
    let text = crate::discover::read(path)?;
    let first = karmada_interpreter::yaml::documents(&text)
        .into_iter()
        .next();
    match first {
        None => Ok(serde_json::Value::Null),
        Some(Ok(doc)) => Ok(doc.value.unwrap_or(serde_json::Value::Null)),
        Some(Err(e)) => Err(GoldenError::CaseFile {
            file: path.to_owned(),
            message: e.to_string(),
        }),
    }
}

/// `value` with the keys of every mapping renamed to `fields` where they
/// match case-insensitively: Argo CD decodes its test files with Go's
/// `encoding/json`, which matches field names that way (`inputpath` is
/// `inputPath`).
fn go_field_names(value: serde_json::Value, fields: &[&str]) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let k = fields
                        .iter()
                        .find(|f| **f == k)
                        .or_else(|| fields.iter().find(|f| f.eq_ignore_ascii_case(&k)))
                        .map_or(k, |f| (*f).to_owned());
                    (k, go_field_names(v, fields))
                })
                .collect(),
        ),
        serde_json::Value::Array(items) => serde_json::Value::Array(
            items
                .into_iter()
                .map(|v| go_field_names(v, fields))
                .collect(),
        ),
        other => other,
    }
}

/// One test of an Argo CD `health_test.yaml`: its `inputPath`, the object
/// there (read as Argo CD reads it: the first document) and the expected
/// status and message.
#[derive(Debug)]
pub struct HealthTest {
    /// `inputPath`, relative to the test file.
    pub input_path: String,
    /// The object at `inputPath`, or why it could not be read.
    pub object: Result<serde_json::Value>,
    /// `healthStatus`: the status and message the check must answer.
    pub expected: HealthStatus,
}

/// The tests of one `health_test.yaml` (keys matched as Argo CD matches
/// them); an error when the file is not such a file.
pub fn read_tests(file: &Path) -> Result<Vec<HealthTest>> {
    let fields = ["tests", "inputPath", "healthStatus", "status", "message"];
    let tests = first_document(file).and_then(|value| {
        serde_json::from_value::<TestFile>(go_field_names(value, &fields)).map_err(|e| {
            GoldenError::CaseFile {
                file: file.to_owned(),
                message: format!("not an Argo CD health_test.yaml: {e}"),
            }
        })
    })?;
    let dir = file.parent().unwrap_or(Path::new("."));
    Ok(tests
        .tests
        .into_iter()
        .map(|test| HealthTest {
            object: first_document(&dir.join(&test.input_path)),
            input_path: test.input_path,
            expected: HealthStatus {
                status: test.health_status.status,
                message: test.health_status.message,
            },
        })
        .collect())
}

/// Runs the tests of each file with `layer`.
pub fn run(layer: &ArgoCdHealth, files: &[PathBuf]) -> Vec<CaseReport> {
    let mut out = Vec::new();
    for file in files {
        let report = |name: String, served_by, verdict| CaseReport {
            file: file.clone(),
            name,
            operation: Some(InterpreterOperation::InterpretHealth),
            served_by,
            verdict,
            error: None,
            duration: std::time::Duration::ZERO,
            findings: Vec::new(),
            exchange: None,
            expected: None,
        };
        let tests = match read_tests(file) {
            Ok(tests) => tests,
            Err(e) => {
                out.push(report(
                    "health_test.yaml".into(),
                    None,
                    Verdict::Failed(vec![e.to_string()]),
                ));
                continue;
            }
        };
        for test in tests {
            let object = match test.object {
                Ok(o) => o,
                Err(e) => {
                    out.push(report(
                        test.input_path,
                        None,
                        Verdict::Failed(vec![e.to_string()]),
                    ));
                    continue;
                }
            };
            let source = layer.source(&gvk_of(&object), InterpreterOperation::InterpretHealth);
            let verdict = match layer.status(&object) {
                Ok(None) => Verdict::Failed(vec![format!(
                    "no health check in {} serves {}",
                    layer.root().display(),
                    karmada_interpreter::interpreter::describe(&object)
                )]),
                Ok(Some(got)) => {
                    let mut differences = Vec::new();
                    if got.status != test.expected.status {
                        differences.push(format!(
                            "status: expected {:?}, got {:?}",
                            test.expected.status, got.status
                        ));
                    }
                    if got.message != test.expected.message {
                        differences.push(format!(
                            "message: expected {:?}, got {:?}",
                            test.expected.message, got.message
                        ));
                    }
                    if differences.is_empty() {
                        Verdict::Passed
                    } else {
                        Verdict::Failed(differences)
                    }
                }
                Err(e) => Verdict::Failed(vec![format!("check failed: {e}")]),
            };
            out.push(report(test.input_path, source, verdict));
        }
    }
    out
}
