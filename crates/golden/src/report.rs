//! Machine-readable forms of a golden-case [`Report`] for CI: JUnit XML
//! (one `testcase` per golden case, grouped in one `testsuite` per case
//! file) and JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::runner::{CaseReport, Report, Verdict};

/// The report as JUnit XML. A failed case carries every difference (one a
/// line, path by path) in its `failure`; skipped cases and known deviations
/// are `skipped` with the reason. Every case, file and the whole run has
/// its `time` in seconds.
///
/// ```
/// use karmada_interpreter_golden::report::junit;
/// use karmada_interpreter_golden::{CaseReport, Report, Verdict};
///
/// let report = Report { cases: vec![CaseReport {
///     file: "cases/health.yaml".into(),
///     name: "ready <1>".into(),
///     operation: None,
///     served_by: None,
///     verdict: Verdict::Failed(vec!["healthy: expected true, got false".into()]),
///     error: None,
///     duration: std::time::Duration::from_millis(12),
///     findings: Vec::new(),
///     exchange: None,
///     expected: None,
/// }] };
/// let xml = junit(&report);
/// assert!(xml.contains(r#"<testcase name="ready &lt;1&gt;" classname="cases/health.yaml" time="0.012000""#));
/// assert!(xml.contains("healthy: expected true, got false"));
/// ```
pub fn junit(report: &Report) -> String {
    let mut files: BTreeMap<String, Vec<&CaseReport>> = BTreeMap::new();
    for case in &report.cases {
        files
            .entry(case.file.display().to_string())
            .or_default()
            .push(case);
    }
    let skipped =
        |c: &&&CaseReport| matches!(c.verdict, Verdict::Skipped(_) | Verdict::KnownDeviation(_));
    let failed = |c: &&&CaseReport| matches!(c.verdict, Verdict::Failed(_));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let seconds = |cases: &[&CaseReport]| {
        format!(
            "{:.6}",
            cases.iter().map(|c| c.duration.as_secs_f64()).sum::<f64>()
        )
    };
    let _ = writeln!(
        out,
        "<testsuites name=\"karmada-interpreter\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{}\">",
        report.cases.len(),
        report.failed(),
        report.skipped() + report.deviations(),
        seconds(&report.cases.iter().collect::<Vec<_>>())
    );
    for (file, cases) in &files {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{}\">",
            escape(file),
            cases.len(),
            cases.iter().filter(failed).count(),
            cases.iter().filter(skipped).count(),
            seconds(cases)
        );
        for case in cases {
            let _ = write!(
                out,
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.6}\"",
                escape(&case.name),
                escape(file),
                case.duration.as_secs_f64()
            );
            match &case.verdict {
                Verdict::Passed => {
                    // The error the case expected and the findings, for
                    // whoever reads the report.
                    let mut notes: Vec<String> = case
                        .error
                        .iter()
                        .map(|e| format!("error (expected): {e}"))
                        .collect();
                    notes.extend(case.findings.iter().map(|f| format!("finding: {f}")));
                    if notes.is_empty() {
                        out.push_str("/>\n");
                    } else {
                        let _ = writeln!(
                            out,
                            ">\n      <system-out>{}</system-out>\n    </testcase>",
                            escape(&notes.join("\n"))
                        );
                    }
                }
                Verdict::Failed(lines) => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                        escape(&failure_message(case, lines)),
                        if lines.iter().any(|l| l.starts_with("operation failed")) {
                            "error"
                        } else {
                            "mismatch"
                        },
                        escape(&failure_body(case, lines))
                    );
                }
                Verdict::Skipped(reason) => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        escape(reason)
                    );
                }
                Verdict::KnownDeviation(reason) => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"known deviation: {}\"/>\n    </testcase>",
                        escape(reason)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// A failure's lines, then what was sent, received and expected (when a
/// webhook answered), then the findings.
fn failure_body(case: &CaseReport, lines: &[String]) -> String {
    let mut body = lines.to_vec();
    if let Some(exchange) = &case.exchange {
        body.push(format!("request sent: {}", exchange.request));
        body.push(match &exchange.answer {
            Some(answer) => format!("answer received: {answer}"),
            None => "answer received: none".into(),
        });
        if let Some(expected) = &case.expected {
            body.push(format!("expected: {expected}"));
        }
    }
    body.extend(case.findings.iter().map(|f| format!("finding: {f}")));
    body.join("\n")
}

fn failure_message(case: &CaseReport, lines: &[String]) -> String {
    let op = case.operation.map(|o| format!("{o}: ")).unwrap_or_default();
    match lines {
        [one] => format!("{op}{one}"),
        _ => format!("{op}{} differences", lines.len()),
    }
}

/// The report as JSON: a `summary` (`passed`, `failed`, `skipped`,
/// `knownDeviations`, `findings`) and every case with its `verdict`
/// (`passed`, `failed`, `skipped`, `knownDeviation`), its `differences`
/// when it failed (with the webhook's `request`, its `answer` and the
/// case's `expected` when a webhook answered), its `reason` when it was
/// skipped or is a known deviation, its `findings` when it has some, and
/// the `seconds` it took.
pub fn json(report: &Report) -> Value {
    let cases: Vec<Value> = report
        .cases
        .iter()
        .map(|c| {
            let mut v = json!({
                "file": c.file.display().to_string(),
                "name": c.name,
                "operation": c.operation.map(|o| o.as_str()),
                "servedBy": c.served_by.as_ref().map(ToString::to_string),
                "seconds": c.duration.as_secs_f64(),
            });
            let (verdict, key, detail) = match &c.verdict {
                Verdict::Passed => ("passed", None, Value::Null),
                Verdict::Failed(lines) => ("failed", Some("differences"), json!(lines)),
                Verdict::Skipped(r) => ("skipped", Some("reason"), json!(r)),
                Verdict::KnownDeviation(r) => ("knownDeviation", Some("reason"), json!(r)),
            };
            v["verdict"] = json!(verdict);
            if let Some(error) = &c.error {
                v["error"] = json!(error);
            }
            if !c.findings.is_empty() {
                v["findings"] = json!(c.findings);
            }
            if let (Verdict::Failed(_), Some(exchange)) = (&c.verdict, &c.exchange) {
                v["request"] = exchange.request.clone();
                v["answer"] = exchange.answer.clone().unwrap_or(Value::Null);
                v["expected"] = c.expected.clone().unwrap_or(Value::Null);
            }
            if let Some(key) = key {
                v[key] = detail;
            }
            v
        })
        .collect();
    json!({
        "summary": {
            "passed": report.passed(),
            "failed": report.failed(),
            "skipped": report.skipped(),
            "knownDeviations": report.deviations(),
            "findings": report.findings(),
        },
        "cases": cases,
    })
}

/// XML text/attribute escaping; characters XML 1.0 cannot hold are dropped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}
