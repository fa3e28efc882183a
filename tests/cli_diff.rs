//! `karmada-interpreter diff -f old -f new CASES`: where two versions of a
//! customization answer the golden cases differently, per case (each
//! changed path, or both answers when one fails), the summary, and the
//! exit codes (0 alike, 1 different, 2 cannot run).

use std::path::{Path, PathBuf};
use std::process::Output;

use karmada_interpreter::api::InterpreterOperation as Op;
use serde_json::Value;

use crate::support::customization::Customization;
use crate::support::{cli, cli_ok, text};

fn widget(health: &str, replicas: &str) -> String {
    Customization::new("widget", "example.io/v1", "Widget")
        .script(Op::InterpretHealth, health)
        .script(Op::InterpretReplica, replicas)
        .yaml()
}

const HEALTH_OLD: &str =
    "function InterpretHealth(obj)\n  return obj.status ~= nil and obj.status.ready == true\nend\n";
const HEALTH_NEW: &str =
    "function InterpretHealth(obj)\n  return obj.status ~= nil and obj.status.phase == \"Ready\"\nend\n";
const REPLICAS_OLD: &str = "function GetReplicas(obj)\n  return obj.spec.replicas, {}\nend\n";
const REPLICAS_NEW: &str = "function GetReplicas(obj)\n  return obj.spec.replicas, {nodeClaim = {nodeSelector = {zone = \"a\"}}}\nend\n";

const CASES: &str = r#"name: ready
operation: InterpretHealth
observedObj: {apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, status: {ready: true, phase: Ready}}
output: {healthy: true}
---
name: not ready
operation: InterpretHealth
observedObj: {apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, status: {ready: true}}
output: {healthy: true}
---
name: replicas
operation: InterpretReplica
desiredObj: {apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, spec: {replicas: 3}}
output: {replica: 3}
"#;

/// A scratch folder with `old.yaml`, `new.yaml` and `cases/widget.yaml`.
fn setup(tag: &str, old: &str, new: &str) -> PathBuf {
    let dir = crate::support::scratch(tag);
    std::fs::create_dir_all(dir.join("cases")).unwrap();
    std::fs::write(dir.join("old.yaml"), old).unwrap();
    std::fs::write(dir.join("new.yaml"), new).unwrap();
    std::fs::write(dir.join("cases/widget.yaml"), CASES).unwrap();
    dir
}

fn diff(dir: &Path, extra: &[&str]) -> Output {
    let s = |p: &str| dir.join(p).display().to_string();
    let (old, new, cases) = (s("old.yaml"), s("new.yaml"), s("cases"));
    let mut args = vec!["diff", "-f", &old, "-f", &new, &cases];
    args.extend_from_slice(extra);
    cli(&args)
}

#[test]
fn differing_answers_are_shown_per_case_with_a_summary_and_exit_1() {
    let dir = setup(
        "diff-differ",
        &widget(HEALTH_OLD, REPLICAS_OLD),
        &widget(HEALTH_NEW, REPLICAS_NEW),
    );
    let out = diff(&dir, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = text(&out.stdout);
    let file = dir.join("cases/widget.yaml").display().to_string();
    assert_eq!(
        stdout,
        format!(
            "DIFF {file}: case \"not ready\" (InterpretHealth)\n  healthy: old true, new false\n\
             DIFF {file}: case \"replicas\" (InterpretReplica)\n  requires.nodeClaim: old <absent>, new {{\"nodeSelector\":{{\"zone\":\"a\"}}}}\n"
        )
    );
    assert_eq!(
        text(&out.stderr),
        "3 case(s): 2 differ, 1 same, 0 skipped\n"
    );

    // The same as JSON: every differing case with both answers and its changes.
    let out = diff(&dir, &["-o", "json", "-q"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), "");
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (summary["cases"].as_u64(), summary["same"].as_u64()),
        (Some(3), Some(1))
    );
    let first = &summary["differing"][0];
    assert_eq!(first["name"], "not ready");
    assert_eq!(
        first["old"],
        serde_json::json!({"result": {"healthy": true}})
    );
    assert_eq!(
        first["new"],
        serde_json::json!({"result": {"healthy": false}})
    );
    assert_eq!(
        first["changes"],
        serde_json::json!([{"path": "healthy", "old": true, "new": false}])
    );
}

#[test]
fn the_same_answers_exit_0() {
    let same = widget(HEALTH_OLD, REPLICAS_OLD);
    let dir = setup("diff-same", &same, &same);
    let out = cli_ok(&[
        "diff",
        "-f",
        &dir.join("old.yaml").display().to_string(),
        "-f",
        &dir.join("new.yaml").display().to_string(),
        &dir.join("cases").display().to_string(),
    ]);
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "3 case(s): 0 differ, 3 same, 0 skipped\n"
    );
}

#[test]
fn a_version_that_fails_shows_both_answers() {
    let broken = "function GetReplicas(obj)\n  return obj.spec.size.count, {}\nend\n";
    let dir = setup(
        "diff-fails",
        &widget(HEALTH_OLD, REPLICAS_OLD),
        &widget(HEALTH_OLD, broken),
    );
    let out = diff(&dir, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("case \"replicas\" (InterpretReplica)\n  old: {\"replica\":3"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  new: error: customization \"widget\": InterpretReplica: <string>:2:"),
        "{stdout}"
    );
}

#[test]
fn two_versions_are_needed() {
    let same = widget(HEALTH_OLD, REPLICAS_OLD);
    let dir = setup("diff-usage", &same, &same);
    let out = cli(&[
        "diff",
        "-f",
        &dir.join("old.yaml").display().to_string(),
        &dir.join("cases").display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        text(&out.stderr).contains("give two versions, old then new"),
        "{}",
        text(&out.stderr)
    );
}
