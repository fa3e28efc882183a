//! The golden-case runner: verdicts, known deviations, readable failures, and
//! the `test` command's summary line and exit status.

use std::path::Path;

use karmada_interpreter_golden::{Deviation, Deviations, Runner, Verdict};

use crate::support::{assert_ok, run_ok};

const CASES: &str = r#"
name: reflects whole status
operation: InterpretStatus
observedObj: {apiVersion: example.io/v1, kind: Thing, metadata: {name: t}, status: {ready: 2, capacity: {cpu: "1000m"}, conditions: null}}
output:
  status: {ready: 2.0, capacity: {cpu: 1}}
---
name: wrong expectation
operation: InterpretStatus
observedObj: {apiVersion: example.io/v1, kind: Thing, metadata: {name: t}, status: {ready: 2}}
output:
  status: {ready: 3}
---
name: no status reflects null
operation: InterpretStatus
observedObj: {apiVersion: example.io/v1, kind: Thing, metadata: {name: t}}
output:
  status: null
---
name: status that is not an object fails
operation: InterpretStatus
observedObj: {apiVersion: example.io/v1, kind: Thing, metadata: {name: t}, status: 7}
expectError: true
---
name: error expected but none
operation: InterpretStatus
observedObj: {apiVersion: example.io/v1, kind: Thing, metadata: {name: t}, status: {}}
expectError: true
---
name: unserved
operation: InterpretHealth
observedObj: {apiVersion: example.io/v1, kind: Thing, metadata: {name: t}}
output: {healthy: true}
"#;

fn run(dir: &Path, deviations: Deviations) -> Vec<(String, Verdict)> {
    let runner = Runner {
        deviations,
        ..Runner::default()
    };
    let report = runner.run(&[dir.to_owned()]).unwrap();
    report
        .cases
        .into_iter()
        .map(|c| (c.name, c.verdict))
        .collect()
}

#[test]
fn verdicts_follow_the_comparison_rules() {
    let dir = crate::support::scratch("verdicts");
    std::fs::write(dir.join("status-test.yaml"), CASES).unwrap();
    let results = run(&dir, Deviations::default());
    let verdict = |name: &str| results.iter().find(|(n, _)| n == name).unwrap().1.clone();
    assert_eq!(verdict("reflects whole status"), Verdict::Passed);
    assert_eq!(verdict("no status reflects null"), Verdict::Passed);
    assert_eq!(
        verdict("status that is not an object fails"),
        Verdict::Passed
    );
    match verdict("wrong expectation") {
        Verdict::Failed(lines) => assert_eq!(lines, vec!["status.ready: expected 3, got 2"]),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        verdict("error expected but none"),
        Verdict::Failed(_)
    ));
    match verdict("unserved") {
        Verdict::Failed(lines) => assert!(lines[0].contains("not served"), "{lines:?}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn known_deviations_are_never_passes() {
    let dir = crate::support::scratch("deviations");
    std::fs::write(dir.join("status-test.yaml"), CASES).unwrap();
    let dev = |case: &str| Deviation {
        file: "status-test.yaml".into(),
        case: case.into(),
        reason: "on purpose".into(),
    };
    let results = run(
        &dir,
        Deviations(vec![dev("wrong expectation"), dev("reflects whole status")]),
    );
    let verdict = |name: &str| results.iter().find(|(n, _)| n == name).unwrap().1.clone();
    assert_eq!(
        verdict("wrong expectation"),
        Verdict::KnownDeviation("on purpose".into())
    );
    match verdict("reflects whole status") {
        Verdict::Failed(lines) => assert!(lines[0].contains("remove the entry"), "{lines:?}"),
        other => panic!("a listed case that agrees must fail, got {other:?}"),
    }
}

#[test]
fn malformed_files_fail_by_case_without_stopping_the_run() {
    let dir = crate::support::scratch("malformed");
    std::fs::write(
        dir.join("bad-test.yaml"),
        "name: a\noperation: Frobnicate\nobservedObj: {kind: Thing}\n---\nname: [\n---\nname: fine\noperation: InterpretStatus\nobservedObj: {apiVersion: v1, kind: Thing}\noutput: {status: null}\n",
    )
    .unwrap();
    let results = run(&dir, Deviations::default());
    assert_eq!(results.len(), 3);
    let texts: Vec<String> = results
        .iter()
        .map(|(_, v)| match v {
            Verdict::Failed(lines) => lines.join(" "),
            _ => "ok".into(),
        })
        .collect();
    assert!(
        texts[0].contains("bad-test.yaml")
            && texts[0].contains("\"a\"")
            && texts[0].contains("Frobnicate"),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].contains("case #2") && texts[1].contains("invalid YAML"),
        "{}",
        texts[1]
    );
    assert_eq!(texts[2], "ok");
}

#[test]
fn the_test_command_prints_a_summary_and_fails_on_failures() {
    let bin = crate::support::BIN;
    let dir = crate::support::scratch("cli");
    std::fs::write(dir.join("status-test.yaml"), CASES).unwrap();
    let out = std::process::Command::new(bin)
        .arg("test")
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    // The summary ends with the run's duration (` in 0.12s`).
    assert_eq!(
        stdout.lines().last().and_then(|l| l.split(" in ").next()),
        Some("3 passed, 3 failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL") && stdout.contains("case \"wrong expectation\" (InterpretStatus)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("status.ready: expected 3, got 2"),
        "{stdout}"
    );

    let good = crate::support::scratch("cli-good");
    let first = CASES.split("---").next().unwrap();
    std::fs::write(good.join("ok-test.yaml"), first).unwrap();
    let out = run_ok(std::process::Command::new(bin).arg("test").arg(&good));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .split(" in ")
            .next(),
        Some("1 passed, 0 failed")
    );
}

/// A run that finds no case fails (exit status 2) and says what it searched:
/// an empty file, a folder without case files, a folder of `.json` files.
#[test]
fn a_run_that_finds_no_case_fails() {
    let bin = crate::support::BIN;
    let dir = crate::support::scratch("no-cases");
    std::fs::write(dir.join("empty.yaml"), "# nothing here\n").unwrap();
    let json = dir.join("json");
    std::fs::create_dir_all(&json).unwrap();
    std::fs::write(json.join("case.json"), "{}").unwrap();
    for target in [dir.join("empty.yaml"), json.clone(), dir.join("json")] {
        let out = std::process::Command::new(bin)
            .arg("test")
            .arg(&target)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{target:?}: {stderr}");
        assert!(
            stderr.contains("no golden case found in")
                && stderr.contains(&target.display().to_string()),
            "{stderr}"
        );
    }
    let err = Runner::default().run(&[json]).unwrap_err();
    assert!(
        matches!(err, karmada_interpreter_golden::GoldenError::NoCases { .. }),
        "{err}"
    );
}

/// A closed stdout pipe ends the program quietly (killed by SIGPIPE, as Unix
/// tools are), not with a "failed printing to stdout" panic: through a real
/// pipe whose reading end is closed before the program writes.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let bin = crate::support::BIN;
    let mut child = std::process::Command::new(bin)
        .arg("list")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
}

/// `bench -o json`: one object per case with its name, operation, two
/// timings and whether the result still matches; a wrong expected output
/// gives `matches: false` (and a failing exit status).
#[test]
fn the_bench_command_times_cases_and_checks_their_results() {
    let bin = crate::support::BIN;
    let dir = crate::support::scratch("bench");
    let two: Vec<&str> = CASES.split("---").take(2).collect();
    let revise = r#"
name: revise a deployment
operation: ReviseReplica
desiredObj: {apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {replicas: 1}}
inputReplicas: 4
output:
  revised: {apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, spec: {replicas: 4}}
"#;
    std::fs::write(
        dir.join("bench-test.yaml"),
        format!("{}---{}---{revise}", two[0], two[1]),
    )
    .unwrap();
    let out = std::process::Command::new(bin)
        .args(["bench", "--iterations", "3", "-o", "json"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success(), "a mismatching case fails the run");
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().expect("one JSON array");
    let summary: Vec<(&str, &str, bool)> = rows
        .iter()
        .map(|r| {
            let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(
                keys,
                [
                    "clock",
                    "from_bytes_batch",
                    "from_bytes_ns",
                    "from_bytes_samples",
                    "matches",
                    "name",
                    "op_batch",
                    "op_ns",
                    "op_samples",
                    "operation"
                ],
                "{r}"
            );
            assert!(r["op_ns"].as_u64().unwrap() > 0, "{r}");
            assert!(r["from_bytes_ns"].as_u64().unwrap() > 0, "{r}");
            (
                r["name"].as_str().unwrap(),
                r["operation"].as_str().unwrap(),
                r["matches"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("reflects whole status", "InterpretStatus", true),
            ("wrong expectation", "InterpretStatus", false),
            ("revise a deployment", "ReviseReplica", true),
        ]
    );

    // The text format ends with the number of cases timed.
    let out = std::process::Command::new(bin)
        .args(["bench", "--iterations", "2"])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("3 cases timed"), "{stdout}");
}

/// `bench` names its clock: this thread's CPU time where the system keeps
/// one (Linux does), in the header of the table and in every JSON row; each
/// sample is a batch of calls lasting at least 50 µs, so a sample of a
/// sub-microsecond operation holds many calls, and there are at least five
/// samples however few iterations are asked for.
#[test]
fn bench_names_its_clock_and_batches_short_calls() {
    let bin = crate::support::BIN;
    let dir = crate::support::scratch("bench-clock");
    let first = CASES.split("---").next().unwrap();
    std::fs::write(dir.join("clock.yaml"), first).unwrap();
    let expected_clock = if cfg!(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "freebsd"
    )) {
        "thread-cpu"
    } else {
        "wall"
    };
    let out = run_ok(
        std::process::Command::new(bin)
            .args(["bench", "--iterations", "1", "-o", "json"])
            .arg(&dir),
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let [row] = rows.as_array().unwrap().as_slice() else {
        panic!("one row: {rows}")
    };
    assert_eq!(row["clock"], expected_clock, "{row}");
    for path in ["op", "from_bytes"] {
        let ns = row[format!("{path}_ns")].as_u64().unwrap();
        let batch = row[format!("{path}_batch")].as_u64().unwrap();
        let samples = row[format!("{path}_samples")].as_u64().unwrap();
        assert!(samples >= 5, "{row}");
        // A batch is sized to last 50 µs: a call well below that is
        // timed many at a time.
        if ns < 10_000 {
            assert!(batch >= 5, "{row}");
        }
    }

    let out = std::process::Command::new(bin)
        .args(["bench", "--iterations", "1"])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first_line = stdout.lines().next().unwrap_or_default();
    let clock_words = if expected_clock == "thread-cpu" {
        "clock: this thread's CPU time"
    } else {
        "clock: wall clock"
    };
    assert!(first_line.starts_with(clock_words), "{stdout}");
    assert!(
        stdout
            .lines()
            .last()
            .unwrap_or_default()
            .contains(expected_clock),
        "{stdout}"
    );
}

/// Every benchmark input still gives Karmada's answer through `bench`
/// (skipped when the shared inputs are absent).
#[test]
fn every_bench_input_matches() {
    let Some(inputs) = crate::support::shared("bench-inputs") else {
        return;
    };
    let out = crate::support::bin()
        .args(["bench", "--iterations", "2", "-o", "json"])
        .arg(&inputs)
        .output()
        .unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert!(!rows.is_empty());
    let failing: Vec<&serde_json::Value> = rows.iter().filter(|r| r["matches"] != true).collect();
    assert!(failing.is_empty(), "{failing:?}");
    assert_ok(&out, "bench");
}
