//! The command line's feedback, through the binary (issue 23, items 2, 5
//! and 6): runs that check nothing fail naming what they searched, one
//! `-o`/`-f` vocabulary on every command, `init`'s layout under `-f DIR -R`,
//! and on long runs durations, `--filter`, `--fail-fast`, `-q`, `--update`,
//! `--timeout`, colour and progress only where they belong.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support::run_ok;
use support::{cli, text};

/// An empty folder of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_ux-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `init example.io/v1 Widget` in `dir`: Karmada's layout, every case passing.
fn widget(dir: &Path) -> PathBuf {
    run_ok(bin(dir).args(["init", "example.io/v1", "Widget"]));
    dir.join("example.io/v1/Widget")
}

/// The binary, run in `dir` with no colour variables of the caller's.
fn bin(dir: &Path) -> Command {
    let mut c = crate::support::bin();
    c.current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    c
}

fn run(dir: &Path, args: &[&str]) -> (Output, String, String) {
    let out = bin(dir).args(args).output().unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    (out, stdout, stderr)
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// A customization named `*.yml` (not `customizations.yaml`) with a
/// sandbox error: `lint` finds it in its folder and fails; `check` finds
/// it too.
#[test]
fn lint_and_check_find_customizations_in_any_yaml_file() {
    let dir = scratch("any-name");
    let w = widget(&dir);
    let original = std::fs::read_to_string(w.join("customizations.yaml")).unwrap();
    let broken = original.replace(
        "function InterpretHealth(observedObj)",
        "function InterpretHealth(observedObj)\n          local line = io.read()",
    );
    assert_ne!(broken, original);
    std::fs::create_dir_all(dir.join("mine")).unwrap();
    std::fs::write(dir.join("mine/widget.yml"), broken).unwrap();
    std::fs::write(dir.join("mine/notes.json"), r#"{"not": "a customization"}"#).unwrap();

    let (out, stdout, stderr) = run(&dir, &["lint", "--deny-warnings", "mine"]);
    assert_eq!(code(&out), 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("mine/widget.yml:") && stdout.contains("error[sandbox]"),
        "{stdout}"
    );
    assert!(stderr.contains("1 file(s) linted: 1 error(s)"), "{stderr}");

    // -f with a glob, and `-` (standard input), as everywhere.
    let (out, stdout, _) = run(&dir, &["lint", "-f", "mine/*.yml", "-o", "json"]);
    assert_eq!(code(&out), 1);
    let findings: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        findings
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "sandbox"),
        "{stdout}"
    );
    let mut child = bin(&dir)
        .args(["lint", "-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        &std::fs::read(dir.join("mine/widget.yml")).unwrap(),
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 1);
    assert!(
        text(&out.stdout).contains("STDIN:"),
        "{}",
        text(&out.stdout)
    );

    let (out, stdout, stderr) = run(&dir, &["check", "-f", "mine", "-o", "json"]);
    assert_eq!(code(&out), 0, "{stdout}{stderr}");
    let checked: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let checked = checked.as_array().unwrap();
    assert_eq!(
        checked.len(),
        1,
        "notes.json holds no customization: {stdout}"
    );
    assert_eq!(checked[0]["target"], "example.io/v1 Widget");
    assert_eq!(checked[0]["rules"]["InterpretHealth"], "PASS");
}

/// `lint`, `check`, `bench` and `test` on folders with nothing to check
/// exit 2 and name what they searched.
#[test]
fn runs_that_check_nothing_fail_naming_what_they_searched() {
    let dir = scratch("nothing");
    let w = widget(&dir);
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    for args in [
        vec!["lint", "--deny-warnings", "empty"],
        vec!["check", "-f", "empty"],
        vec!["bench", "empty"],
        vec!["test", "empty"],
    ] {
        let (out, stdout, stderr) = run(&dir, &args);
        assert_eq!(code(&out), 2, "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains("empty"), "{args:?}: {stderr}");
    }
    // The cases of `init`'s layout are no customizations: named.
    let testdata = w.join("testdata");
    let testdata = testdata.to_str().unwrap();
    let (out, _, stderr) = run(&dir, &["check", "-f", testdata]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr.contains("8 .json/.yaml/.yml file(s) read, none holding a document of kind ResourceInterpreterCustomization"),
        "{stderr}"
    );
    // A filter that selects nothing is named as the reason.
    let (out, _, stderr) = run(&dir, &["test", "example.io", "--filter", "no such case"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr.contains("--filter \"no such case\" matches none of the 8 case(s)"),
        "{stderr}"
    );
}

/// `test --webhook-config` whose rule has a typo in `apiGroups`: every
/// case is skipped, so the run fails (exit 2) and the rule is named.
#[test]
fn a_webhook_rule_that_matches_no_case_is_reported() {
    let dir = scratch("webhook");
    widget(&dir);
    std::fs::write(
        dir.join("hook.yaml"),
        r#"apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterWebhookConfiguration
metadata: {name: shop}
webhooks:
  - name: widgets.example.io
    rules: [{operations: ["*"], apiGroups: [exampel.io], apiVersions: ["*"], kinds: [Widget]}]
    clientConfig: {url: "https://127.0.0.1:9/interpret"}
    interpreterContextVersions: [v1alpha1]
"#,
    )
    .unwrap();
    let (out, stdout, stderr) = run(
        &dir,
        &["test", "--webhook-config", "hook.yaml", "example.io"],
    );
    assert_eq!(code(&out), 2, "{stdout}{stderr}");
    assert!(stdout.contains("0 passed, 0 failed, 8 skipped"), "{stdout}");
    assert!(
        stderr.contains("webhook shop/widgets.example.io rules[0] (apiGroups [\"exampel.io\"]")
            && stderr.contains("matches none of the cases"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no case a webhook rule matches found in example.io"),
        "{stderr}"
    );
}

/// `-f DIR -R` on `init`'s layout works for `check`, `list` and `serve`
/// (the cases in testdata/ are passed over), and `list`/`check` print JSON
/// and YAML.
#[test]
fn init_layout_works_with_f_dir_r_everywhere() {
    let dir = scratch("layout");
    widget(&dir);
    let (out, stdout, stderr) = run(&dir, &["check", "-f", ".", "-R"]);
    assert_eq!(code(&out), 0, "{stdout}{stderr}");
    assert!(stdout.contains("TARGET: example.io/v1 Widget"), "{stdout}");
    assert!(
        stderr.contains("1 document(s) checked, 1 passed"),
        "{stderr}"
    );

    let (out, stdout, stderr) = run(&dir, &["list", "-f", ".", "-R", "-o", "json"]);
    assert_eq!(code(&out), 0, "{stderr}");
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let widget_rows: Vec<&serde_json::Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "Widget")
        .collect();
    assert_eq!(widget_rows.len(), 8, "{stdout}");
    assert!(
        widget_rows.iter().all(|r| r["layer"] == "declarative"),
        "{stdout}"
    );

    let (out, stdout, _) = run(&dir, &["check", "-f", ".", "-R", "-o", "yaml"]);
    assert_eq!(code(&out), 0);
    assert!(stdout.contains("target: example.io/v1 Widget"), "{stdout}");
    assert!(stdout.contains("passed: true"), "{stdout}");

    let certs = dir.join("certs");
    let (out, stdout, stderr) = run(
        &dir,
        &[
            "serve",
            "-f",
            ".",
            "-R",
            "--cert-dir",
            certs.to_str().unwrap(),
            "--print-config",
        ],
    );
    assert_eq!(code(&out), 0, "{stdout}{stderr}");
    let config: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(config["kind"], "ResourceInterpreterWebhookConfiguration");
    let kinds: Vec<&serde_json::Value> = config["webhooks"][0]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["kinds"].as_array().unwrap())
        .collect();
    assert!(
        kinds.iter().any(|k| *k == "Widget"),
        "serves the folder's customization: {stdout}"
    );

    // `test --coverage` reports the folder's script once, not its cases.
    let (out, stdout, stderr) = run(
        &dir,
        &["test", "example.io", "-f", "example.io", "-R", "--coverage"],
    );
    assert_eq!(code(&out), 0, "{stdout}{stderr}");
    assert_eq!(
        stdout
            .matches("declarative-configuration-widget/InterpretHealth")
            .count(),
        1,
        "{stdout}"
    );
}

/// `-o` on `test` (with `--format`/`human` still accepted), durations in
/// the summary, the JSON and the JUnit report, exit codes in `--help`.
#[test]
fn one_output_vocabulary_with_durations() {
    let dir = scratch("output");
    widget(&dir);
    let (out, stdout, _) = run(&dir, &["test", "example.io"]);
    assert_eq!(code(&out), 0);
    let summary = stdout.lines().last().unwrap();
    let (counts, took) = summary.split_once(" in ").unwrap();
    assert_eq!(counts, "8 passed, 0 failed");
    assert!(
        took.ends_with('s') && took.trim_end_matches('s').parse::<f64>().is_ok(),
        "{summary}"
    );

    let (_, junit, _) = run(&dir, &["test", "example.io", "-o", "junit"]);
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 8);
    for node in cases.iter().copied().chain([doc.root_element()]) {
        let time: f64 = node.attribute("time").unwrap().parse().unwrap();
        assert!(time >= 0.0);
    }
    let (_, old, _) = run(&dir, &["test", "example.io", "--format", "junit"]);
    assert!(old.starts_with("<?xml"), "--format stays an alias: {old}");
    let (out, _, _) = run(&dir, &["test", "example.io", "--format", "human"]);
    assert_eq!(code(&out), 0);

    let (_, yaml, _) = run(&dir, &["test", "example.io", "-o", "yaml"]);
    assert!(
        yaml.contains("summary:") && yaml.contains("seconds:"),
        "{yaml}"
    );
    let (_, json, _) = run(&dir, &["test", "example.io", "-o", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(json["cases"][0]["seconds"].is_f64(), "{json}");

    for command in [
        vec!["--help"],
        vec!["test", "--help"],
        vec!["lint", "--help"],
    ] {
        let out = cli(&command);
        assert!(
            text(&out.stdout).contains("Exit codes: 0 when"),
            "{command:?}"
        );
    }
}

/// Two wrong expectations: `--fail-fast` stops at the first, `--filter`
/// runs one, `-q` prints failures only, and `--update` writes the observed
/// outputs (keeping the file's comments) so the next run passes, without
/// touching the other case files.
#[test]
fn filter_fail_fast_quiet_and_update() {
    let dir = scratch("update");
    let w = widget(&dir);
    let replica = w.join("testdata/interpretreplica-test.yaml");
    let health = w.join("testdata/interprethealth-test.yaml");
    let original = std::fs::read_to_string(&replica).unwrap();
    let wrong = format!(
        "# keep this comment\n{}",
        original.replace("replica: 2", "replica: 99 # a wrong expectation")
    );
    assert_ne!(wrong, format!("# keep this comment\n{original}"));
    std::fs::write(&replica, &wrong).unwrap();
    let health_text = std::fs::read_to_string(&health)
        .unwrap()
        .replace("healthy: true", "healthy: false");
    std::fs::write(&health, &health_text).unwrap();
    let status_before =
        std::fs::read_to_string(w.join("testdata/interpretstatus-test.yaml")).unwrap();

    let (out, stdout, _) = run(&dir, &["test", "example.io"]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout.matches("FAIL ").count(), 2, "{stdout}");

    let (out, stdout, _) = run(&dir, &["test", "example.io", "--fail-fast"]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout.matches("FAIL ").count(), 1, "{stdout}");
    assert!(stdout.contains("--fail-fast"), "{stdout}");

    let (out, stdout, _) = run(
        &dir,
        &["test", "example.io", "--filter", "InterpretReplica"],
    );
    assert_eq!(code(&out), 1);
    assert!(
        stdout.contains("0 passed, 1 failed, 7 filtered out in "),
        "{stdout}"
    );

    let (out, stdout, stderr) = run(&dir, &["test", "example.io", "-q"]);
    assert_eq!(code(&out), 1);
    assert!(
        !stdout.contains("passed,") && stdout.contains("FAIL "),
        "{stdout}"
    );
    assert!(stderr.is_empty(), "{stderr}");

    let (out, stdout, stderr) = run(&dir, &["test", "example.io", "--update"]);
    assert_eq!(
        code(&out),
        0,
        "every failure was accepted: {stdout}{stderr}"
    );
    assert!(
        stdout.contains("replica: <root>: expected 99, got 2"),
        "the diff first: {stdout}"
    );
    assert!(
        stderr.contains("--update: 2 case(s) updated in 2 file(s)"),
        "{stderr}"
    );
    let updated = std::fs::read_to_string(&replica).unwrap();
    assert!(updated.starts_with("# keep this comment\n"), "{updated}");
    assert!(
        updated.contains("  replica: 2\n") && !updated.contains("99"),
        "{updated}"
    );
    assert!(std::fs::read_to_string(&health)
        .unwrap()
        .contains("healthy: true"));
    assert_eq!(
        std::fs::read_to_string(w.join("testdata/interpretstatus-test.yaml")).unwrap(),
        status_before,
        "a passing case's file is not rewritten"
    );
    let (out, stdout, _) = run(&dir, &["test", "example.io"]);
    assert_eq!(code(&out), 0, "{stdout}");
}

/// `--timeout` sets the Lua deadline on `test`, `bench` and `run`: a
/// script that never ends fails after the given time, not Karmada's 1 s.
#[test]
fn timeout_sets_the_lua_deadline() {
    let dir = scratch("timeout");
    let w = widget(&dir);
    let file = w.join("customizations.yaml");
    let looping = std::fs::read_to_string(&file).unwrap().replace(
        "function GetReplicas(obj)",
        "function GetReplicas(obj)\n          while true do end",
    );
    std::fs::write(&file, looping).unwrap();
    let started = std::time::Instant::now();
    let (out, stdout, _) = run(
        &dir,
        &[
            "test",
            "example.io",
            "--filter",
            "InterpretReplica",
            "--timeout",
            "100ms",
        ],
    );
    let took = started.elapsed();
    assert_eq!(code(&out), 1, "{stdout}");
    assert!(stdout.contains("deadline"), "{stdout}");
    assert!(took < std::time::Duration::from_millis(900), "{took:?}");

    let (out, _, stderr) = run(
        &dir,
        &[
            "bench",
            "example.io",
            "--filter",
            "InterpretReplica",
            "--timeout",
            "50ms",
            "--iterations",
            "1",
        ],
    );
    assert_ne!(code(&out), 0, "{stderr}");

    let desired = dir.join("widget.yaml");
    std::fs::write(
        &desired,
        "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 1}\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (out, _, stderr) = run(
        &dir,
        &[
            "run",
            "--operation",
            "InterpretReplica",
            "-f",
            file.to_str().unwrap(),
            "--desired-file",
            desired.to_str().unwrap(),
            "--timeout",
            "100ms",
        ],
    );
    assert_eq!(code(&out), 1, "{stderr}");
    assert!(stderr.contains("deadline"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_millis(900));
    let (out, _, stderr) = run(&dir, &["test", "example.io", "--timeout", "2h"]);
    assert_eq!(code(&out), 2);
    assert!(stderr.contains("unknown unit"), "{stderr}");
}

/// Piped, there is no colour and no progress bar (no escape sequences, no
/// carriage returns); `CLICOLOR_FORCE=1` turns colour on, `NO_COLOR` off.
#[test]
fn colour_and_progress_only_on_a_terminal() {
    let dir = scratch("colour");
    let w = widget(&dir);
    let health = w.join("testdata/interprethealth-test.yaml");
    let text_before = std::fs::read_to_string(&health).unwrap();
    std::fs::write(
        &health,
        text_before.replace("healthy: true", "healthy: false"),
    )
    .unwrap();

    let (_, stdout, stderr) = run(&dir, &["test", "example.io"]);
    assert!(
        !stdout.contains('\u{1b}') && !stderr.contains('\u{1b}'),
        "{stdout}{stderr}"
    );
    assert!(!stderr.contains('\r'), "{stderr}");
    let (_, stdout, stderr) = run(&dir, &["bench", "example.io", "--iterations", "1"]);
    assert!(!stdout.contains('\u{1b}') && !stderr.contains('\u{1b}') && !stderr.contains('\r'));

    let out = bin(&dir)
        .args(["test", "example.io"])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\u{1b}[") && stdout.contains("FAIL"),
        "{stdout}"
    );
    // NO_COLOR wins over CLICOLOR_FORCE.
    let out = bin(&dir)
        .args(["test", "example.io"])
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        !text(&out.stdout).contains('\u{1b}'),
        "{}",
        text(&out.stdout)
    );
}
