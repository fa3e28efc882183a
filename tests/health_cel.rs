//! The CEL health layer through the binary and the library: Flux
//! kustomize-controller `healthCheckExprs` rules (`--health-exprs FILE`,
//! `InterpreterBuilder::health_exprs`; docs/health.md).

use karmada_interpreter::health::{CelError, CEL};
use karmada_interpreter::Interpreter;
use rstest::rstest;
use serde_json::Value;
use support::{cli, cli_ok, text};

use crate::support;

const DATA: &str = "tests/data/health-exprs";

fn data(file: &str) -> String {
    format!("{DATA}/{file}")
}

fn object(file: &str) -> Value {
    let path = std::path::Path::new(support::ROOT).join(data(file));
    karmada_interpreter::yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `run --operation InterpretHealth` answers from the rule file: current is
/// healthy, failed and (here) inProgress are not; the rule that answered is
/// named, and `-o json` carries the verdict with the expression that decided
/// (`cel`), so an unhealthy answer says why.
#[rstest]
#[case(
    "synced.yaml",
    "true",
    "healthCheckExprs[0] bitnami.com/v1alpha1 SealedSecret",
    "Current"
)]
#[case(
    "not-synced.yaml",
    "false",
    "healthCheckExprs[0] bitnami.com/v1alpha1 SealedSecret",
    "Failed"
)]
#[case(
    "pending-widget.yaml",
    "false",
    "healthCheckExprs[1] example.io/* Widget",
    "InProgress"
)]
fn run_answers_from_the_rule_file(
    #[case] file: &str,
    #[case] healthy: &str,
    #[case] rule: &str,
    #[case] status: &str,
) {
    let out = cli_ok(&[
        "run",
        "--operation",
        "InterpretHealth",
        "--health-exprs",
        &data("rules.yaml"),
        "--observed-file",
        &data(file),
        "-o",
        "json",
    ]);
    let answer: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(answer["healthy"].to_string(), healthy, "{answer}");
    let cel = &answer["cel"];
    assert_eq!(cel["status"], status, "{answer}");
    assert_eq!(cel["healthy"], answer["healthy"], "{answer}");
    assert_eq!(cel["rule"], rule, "{answer}");
    assert_eq!(cel["decidedBy"]["by"], "expression", "{answer}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("served by cel ({rule})")),
        "{stderr}"
    );
}

/// Without a rule for the kind the next layer answers (here the
/// fallback), with the rule file or without it.
#[test]
fn a_kind_without_a_rule_is_left_to_the_other_layers() {
    let args = || {
        vec![
            "explain",
            "--observed-file",
            "tests/data/health-checks/example.io/Widget/testdata/ready.yaml",
            "--health-fallback",
        ]
    };
    let dir = support::scratch("health-cel-other");
    let rules = dir.join("rules.yaml");
    std::fs::write(
        &rules,
        "- apiVersion: other.io/v1\n  kind: Gadget\n  current: 'true'\n",
    )
    .unwrap();
    let mut with = args();
    with.extend(["--health-exprs", rules.to_str().unwrap()]);
    for a in [args(), with] {
        let out = cli_ok(&a);
        let stdout = text(&out.stdout);
        assert!(stdout.contains("InterpretHealth: fallback"), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A rule written for a kind wins over the Argo CD check of the same kind.
#[test]
fn a_cel_rule_answers_before_the_argo_cd_checks() {
    let out = cli_ok(&[
        "explain",
        "--health-checks",
        "tests/data/health-checks",
        "--health-exprs",
        &data("rules.yaml"),
        "--observed-file",
        &data("pending-widget.yaml"),
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("InterpretHealth: cel (healthCheckExprs[1] example.io/* Widget)"),
        "{stdout}"
    );
}

/// An expression failing on the object is an error naming the rule, the
/// field and the expression (Karmada records health Unknown), not a crash.
#[test]
fn an_object_the_rule_cannot_read_is_an_error_of_the_expression() {
    let out = cli(&[
        "run",
        "--operation",
        "InterpretHealth",
        "--health-exprs",
        &data("rules.yaml"),
        "--observed-file",
        &data("no-status.yaml"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("failed: the object has no field `status`"),
        "{stderr}"
    );
    assert!(stderr.contains("healthCheckExprs[0]"), "{stderr}");
}

#[test]
fn list_shows_a_row_per_rule() {
    let out = cli_ok(&["list", "--health-exprs", &data("rules.yaml"), "-o", "json"]);
    let rows: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let cel: Vec<&Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.to_string().contains("\"cel\""))
        .collect();
    assert_eq!(cel.len(), 2, "{rows:#}");
    let all = rows.to_string();
    assert!(all.contains("bitnami.com/*"), "{all}");
    assert!(
        all.contains("healthCheckExprs[1] example.io/* Widget"),
        "{all}"
    );
}

#[test]
fn explain_names_the_expression_that_decided() {
    let out = cli_ok(&[
        "explain",
        "--health-exprs",
        &data("rules.yaml"),
        "--observed-file",
        &data("not-synced.yaml"),
        "--operation",
        "InterpretHealth",
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "InterpretHealth: cel (healthCheckExprs[0] bitnami.com/v1alpha1 SealedSecret)"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "cel verdict: unhealthy (Failed), decided by failed: status.conditions.filter(e, e.type == 'Synced').all(e, e.status == 'False')"
        ),
        "{stdout}"
    );
    let out = cli_ok(&[
        "explain",
        "--health-exprs",
        &data("rules.yaml"),
        "--observed-file",
        &data("synced.yaml"),
        "--operation",
        "InterpretHealth",
        "-o",
        "json",
    ]);
    let doc: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(
        doc["run"]["cel"]["decidedBy"]["field"], "current",
        "{doc:#}"
    );
    assert_eq!(doc["run"]["cel"]["status"], "Current", "{doc:#}");
}

/// `check` and `lint` fail on a rule that does not parse, at its line and
/// column in the file (line 4, the lone `=` at column 76).
#[test]
fn check_and_lint_report_a_bad_expression_at_its_place() {
    let out = cli(&["check", "--health-exprs", &data("bad.yaml")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let place = format!(
        "{}:4:76: entry 0 (bitnami.com/v1alpha1 SealedSecret), current: does not parse",
        data("bad.yaml")
    );
    assert!(stderr.contains(&place), "{stderr}");
    // lint: one finding, at the place, of the rule given.
    let lint = |file: &str, finding: &str| {
        let out = cli(&["lint", "--health-exprs", &data(file)]);
        assert_eq!(out.status.code(), Some(1));
        let stdout = text(&out.stdout);
        let wanted = format!("{}:{finding}", data(file));
        assert!(stdout.contains(&wanted), "{stdout}");
    };
    lint("bad.yaml", "4:76: error[syntax]: entry 0");
    // A function the cel crate lacks is named, at the expression.
    lint(
        "missing.yaml",
        "3:13: error[sandbox]: entry 0 (bitnami.com/v1alpha1 SealedSecret), current: the cel crate has no function or macro `type`",
    );
    // Good rules pass both.
    let out = cli_ok(&["check", "--health-exprs", &data("rules.yaml")]);
    assert!(text(&out.stdout).contains("healthCheckExprs[1] example.io/* Widget:"));
    cli_ok(&["lint", "--health-exprs", &data("rules.yaml")]);
}

/// The builder takes the file, and a bad one fails the build with the
/// typed error at its place.
#[test]
fn the_builder_takes_a_rule_file() {
    let root = std::path::Path::new(support::ROOT);
    let chain = Interpreter::builder()
        .health_exprs(root.join(data("rules.yaml")))
        .build()
        .unwrap();
    let answer = chain.interpret_health(&object("synced.yaml")).unwrap();
    assert!(answer.value);
    assert_eq!(answer.served_by.layer, CEL);
    let error = Interpreter::builder()
        .health_exprs(root.join(data("bad.yaml")))
        .build()
        .unwrap_err();
    let cel = error.source_of::<CelError>().expect("a CelError");
    assert_eq!(
        cel.place().map(|p| (p.line, p.column)),
        Some((4, 76)),
        "{error}"
    );
}

/// `test --health-exprs` runs golden cases against a chain with the rules;
/// without them the same cases fail (no layer serves the kind).
#[test]
fn test_runs_golden_cases_with_the_rules() {
    let cases = data("cases");
    let out = cli_ok(&["test", "--health-exprs", &data("rules.yaml"), &cases]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("2 passed, 0 failed"), "{stdout}");
    let out = cli(&["test", &cases]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("0 passed, 2 failed"));
}

/// `test --coverage` counts the CEL rules' expressions: one a case evaluated
/// is covered (whatever it gave), the others are listed by field and line;
/// the lcov file and `--coverage-threshold` count them beside Lua lines.
#[test]
fn coverage_lists_the_expressions_no_case_evaluated() {
    let dir = support::scratch("health-cel-coverage");
    let cases = dir.join("interprethealth-test.yaml");
    // A pending Widget: `inProgress` is true, so `current` never runs.
    std::fs::write(
        &cases,
        "name: pending widget\noperation: InterpretHealth\nobservedObj:\n  apiVersion: example.io/v2\n  kind: Widget\n  metadata: {name: w, namespace: shop}\n  status: {phase: Pending}\noutput:\n  healthy: false\n",
    )
    .unwrap();
    let lcov = dir.join("cel.lcov");
    let rules = data("rules.yaml");
    let out = cli(&[
        "test",
        "--health-exprs",
        &rules,
        cases.to_str().unwrap(),
        "--coverage-out",
        lcov.to_str().unwrap(),
        "--coverage-threshold",
        "50",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "1 of 4 expressions is below 50%: {stdout}"
    );
    for line in [
        format!("{rules}: healthCheckExprs[0] bitnami.com/v1alpha1 SealedSecret: 0/2 expressions (0%), uncovered: failed (line 6), current (line 7)"),
        format!("{rules}: healthCheckExprs[1] example.io/* Widget: 1/2 expressions (50%), uncovered: current (line 11)"),
    ] {
        assert!(stdout.contains(&line), "{line} in {stdout}");
    }
    assert!(
        text(&out.stderr)
            .contains("coverage 25.0% (1/4 lines of 2 scripts) is below --coverage-threshold 50%"),
        "{}",
        text(&out.stderr)
    );
    let lcov = std::fs::read_to_string(&lcov).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        lcov.contains(&format!(
            "SF:{rules}\nDA:6,0\nDA:7,0\nDA:10,1\nDA:11,0\nLF:4\nLH:1\n"
        )),
        "{lcov}"
    );
}
