//! Unhappy paths for customization authors, through the binary: script
//! failures at their place in the file (`check`, `run`, `test`, `bench`),
//! `expectError` with a message, targets that disagree with their
//! Karmada-layout folder, a linter without false errors, and input
//! mistakes (`run --operation ReviseReplica`, `init`, YAML errors).

use std::path::{Path, PathBuf};

use rstest::rstest;
use support::{cli, text};

use crate::support;
use crate::support::customization::Customization;

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "karmada-interpreter-ux-errors-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A customization with one broken script per rule: the file lines of the
/// failures are noted beside them.
const WIDGET: &str = r#"apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: widget
spec:
  target:
    apiVersion: example.io/v1
    kind: Widget
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          local status = observedObj.status
          return status.conditions[1].ready
        end
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          while true do
            local spin = 1
          end
        end
    statusReflection:
      luaScript: >
        function ReflectStatus(observedObj)
          return "ready"
        end
    retention:
      luaScript: |
        function Retain(desiredObj, observedObj)
          return = desiredObj
        end
"#;
// Line 14 col 11: `return status.conditions...` (script line 3).
// Line 20 col 13: `local spin = 1` (the loop's body).
// Line 25 col 9: the folded statusReflection script's first line.
// Line 31 col 18: `=` of `return = desiredObj` (script line 2, column 10).

const WIDGET_OBJECT: &str =
    "{apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, spec: {replicas: 1}}";

fn widget(dir: &Path) -> PathBuf {
    let file = dir.join("example.io/v1/Widget/customizations.yaml");
    write(&file, WIDGET);
    write(&dir.join("widget.yaml"), WIDGET_OBJECT);
    file
}

/// `run` shows each failure at its file position, with the customization
/// and the rule, and without Karmada's script-relative `<string>:N:`.
#[rstest]
#[case::runtime_error(
    "InterpretHealth",
    "--observed-file",
    ":14:11: customization \"widget\", rule healthInterpretation (InterpretHealth): attempt to index a non-table object(nil) with key 'conditions'"
)]
#[case::result_shape_at_the_script_start(
    "InterpretStatus",
    "--observed-file",
    ":25:9: customization \"widget\", rule statusReflection (InterpretStatus): expect the returned replica type is table but got string"
)]
#[case::compile_error(
    "Retain",
    "--desired-file",
    ":31:18: customization \"widget\", rule retention (Retain): near '='"
)]
#[case::deadline_names_limit_and_line(
    "InterpretReplica",
    "--desired-file",
    ":20:13: customization \"widget\", rule replicaResource (InterpretReplica): context deadline exceeded (the run took longer than its time limit of 200ms; line 20 of "
)]
fn run_shows_script_failures_in_the_file(
    #[case] operation: &str,
    #[case] object_flag: &str,
    #[case] expected: &str,
) {
    let dir = scratch(&format!("run-{}", operation.to_lowercase()));
    let file = widget(&dir);
    let mut args = vec!["run", "--operation", operation, "-f", s(&file)];
    let object = dir.join("widget.yaml");
    args.extend([object_flag, s(&object), "--timeout-ms", "200"]);
    if operation == "Retain" {
        args.extend(["--observed-file", s(&object)]);
    }
    let out = cli(&args);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{}{expected}", file.display())),
        "{stderr}"
    );
    assert!(!stderr.contains("<string>"), "{stderr}");
}

/// The type code of Karmada's `result type N is not bool` in words.
#[test]
fn result_types_are_named_in_words() {
    let dir = scratch("typecode");
    let file = dir.join("c.yaml");
    write(
        &file,
        &WIDGET.replace("return status.conditions[1].ready", "return 3"),
    );
    write(&dir.join("w.yaml"), WIDGET_OBJECT);
    let out = cli(&[
        "run",
        "--operation",
        "InterpretHealth",
        "-f",
        s(&file),
        "--observed-file",
        s(&dir.join("w.yaml")),
    ]);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("result type 2 is not bool (the function returned a number)"),
        "{stderr}"
    );
}

/// What goes on the wire (and to library callers) keeps Karmada's text;
/// the script position travels beside it.
#[test]
fn the_wire_keeps_karmadas_text() {
    use karmada_interpreter::declarative::LuaLayer;
    use karmada_interpreter::{load, Interpreter};
    let items = load::customizations_from_str(WIDGET, "widget").unwrap();
    let chain = Interpreter::builder()
        .declarative_layer(std::sync::Arc::new(
            LuaLayer::customizations(items).unwrap(),
        ))
        .build()
        .unwrap();
    let object = serde_json::json!({"apiVersion": "example.io/v1", "kind": "Widget",
                                    "metadata": {"name": "w"}});
    let err = chain.interpret_health(&object).unwrap_err();
    assert_eq!(
        err.to_string(),
        "customization \"widget\": InterpretHealth: <string>:3: attempt to index a non-table object(nil) with key 'conditions'"
    );
    let Some(failure) = karmada_interpreter::declarative::script_error(&err) else {
        panic!("not a script failure: {err}")
    };
    let at = failure.at;
    assert_eq!((at.line, at.column, at.deadline), (Some(3), None, None));
}

/// `check` keeps karmadactl's table and names each problem's place in the
/// file on stderr.
#[test]
fn check_names_the_place_of_each_problem() {
    let dir = scratch("check");
    let file = widget(&dir);
    let out = cli(&["check", "-f", s(&file)]);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("ERROR: <string> line:2(column:10) near '='"),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(
            "{}:31:18: customization \"widget\", rule retention (Retain): the script does not compile: near '='",
            file.display()
        )),
        "{stderr}"
    );
}

/// `test` and `bench` show failures at their place; a case can assert
/// the message with `expectError`, and the reports carry the error.
#[test]
fn test_and_bench_show_failures_in_the_file_and_check_expected_messages() {
    let dir = scratch("test");
    let file = widget(&dir);
    let cases = dir.join("example.io/v1/Widget/testdata/health-test.yaml");
    let observed = format!("observedObj: {WIDGET_OBJECT}\n");
    write(
        &cases,
        &[
            "name: substring\noperation: InterpretHealth\nexpectError: \"attempt to index\"\n",
            "name: message\noperation: InterpretHealth\nexpectError: {message: \"no such text\"}\n",
            "name: pattern\noperation: InterpretHealth\nexpectError: {pattern: \"rule healthInterpretation .-index\"}\n",
            "name: wire pattern\noperation: InterpretHealth\nexpectError: {pattern: \"^customization \\\"widget\\\": InterpretHealth: <string>:%d+:\"}\n",
            "name: any error\noperation: InterpretHealth\nexpectError: true\n",
            "name: unexpected\noperation: InterpretHealth\noutput: {healthy: true}\n",
        ]
        .map(|c| format!("{c}{observed}"))
        .join("---\n"),
    );
    let place = format!(
        "{}:14:11: customization \"widget\", rule healthInterpretation (InterpretHealth): attempt to index",
        file.display()
    );
    let out = cli(&["test", "-v", s(&cases)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("4 passed, 2 failed"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "expected an error containing \"no such text\", but the operation failed with: {place}"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("    error (expected): {place}")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("operation failed: {place}")),
        "{stdout}"
    );
    assert!(!stdout.contains("<string>"), "{stdout}");

    let json = cli(&["test", "--format", "json", s(&cases)]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let first = &report["cases"][0];
    assert_eq!(first["verdict"], "passed");
    assert!(
        first["error"].as_str().unwrap().starts_with(&place),
        "{first}"
    );

    let junit = text(&cli(&["test", "--format", "junit", s(&cases)]).stdout);
    assert!(
        junit.contains(&format!(
            "<system-out>error (expected): {}",
            place.replace('"', "&quot;")
        )),
        "{junit}"
    );

    let bench = cli(&["bench", "--iterations", "1", s(&cases)]);
    let stderr = text(&bench.stderr);
    assert!(
        stderr.contains(&format!("operation failed: {place}")),
        "{stderr}"
    );
}

/// `expectError` takes `true`, a string, `{message}` or `{pattern}`;
/// anything else is a case-file error naming the key.
#[rstest]
#[case::number("expectError: 3", "`expectError` must be `true`, a message")]
#[case::two_keys(
    "expectError: {message: a, pattern: b}",
    "`expectError` must be `true`, a message"
)]
#[case::bad_pattern(
    "expectError: {pattern: \"[a\"}",
    "`expectError.pattern` is not a Lua pattern"
)]
#[case::with_output(
    "expectError: boom\noutput: {healthy: true}",
    "a case with `expectError` cannot have an `output`"
)]
fn malformed_error_expectations_are_case_file_errors(#[case] line: &str, #[case] message: &str) {
    let dir = scratch(&format!("expect-{}", line.len()));
    let cases = dir.join("c.yaml");
    write(
        &cases,
        &format!("name: c\noperation: InterpretHealth\nobservedObj: {WIDGET_OBJECT}\n{line}\n"),
    );
    let out = cli(&["test", s(&cases)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(message), "{stdout}");
}

/// A target that differs from its Karmada-layout folder: `check`, `lint`
/// and `test` warn, and `test` says what the folder's customization serves.
#[test]
fn targets_that_differ_from_their_folder_are_reported() {
    let dir = scratch("layout");
    let file = dir.join("example.io/v1/Gadget/customizations.yaml");
    write(&file, WIDGET);
    write(
        &dir.join("example.io/v1/Gadget/testdata/health-test.yaml"),
        "name: gadget\noperation: InterpretHealth\nobservedObj: {apiVersion: example.io/v1, kind: Gadget, metadata: {name: g}}\noutput: {healthy: true}\n",
    );
    let warning = "customization \"widget\" targets example.io/v1 Widget, but its folder is that of example.io/v1 Gadget";

    let check = cli(&["check", "-f", s(&file)]);
    assert!(
        text(&check.stderr).contains(warning),
        "{}",
        text(&check.stderr)
    );

    let lint = cli(&["lint", s(&dir)]);
    let stdout = text(&lint.stdout);
    assert!(
        stdout.contains(&format!(
            "{}:6:3: warning[target-layout]: {warning}",
            file.display()
        )),
        "{stdout}"
    );

    let test = cli(&["test", s(&dir)]);
    let (stdout, stderr) = (text(&test.stdout), text(&test.stderr));
    assert!(stderr.contains(warning), "{stderr}");
    assert!(
        stdout.contains("InterpretHealth is not served for example.io/v1, Kind=Gadget"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "note: the case reached the target named above; {} next to it serves example.io/v1 Widget",
            file.display()
        )),
        "{stdout}"
    );

    // In agreement: no warning.
    let agreeing = dir.join("example.io/v1/Widget/customizations.yaml");
    write(&agreeing, WIDGET);
    let lint = cli(&["lint", s(&agreeing)]);
    assert!(!text(&lint.stdout).contains("target-layout"));
}

/// Scripts that run correctly get no error; calls of string functions the
/// sandbox disables are errors however they are written.
#[rstest]
#[case::getn_takes_one_argument("local n = table.getn({1, 2})\n  return n == 2", None)]
#[case::global_assigned_in_a_function(
    "local function mark() seen = true end\n  mark()\n  return seen == true",
    None
)]
#[case::global_assigned_in_a_loop(
    "for _, c in ipairs({1}) do last = c end\n  return last == 1",
    None
)]
#[case::builtin_replaced_but_never_called("type = 'x'\n  return type == 'x'", None)]
#[case::same_branches(
    "if observedObj.kind == 'a' then return true elseif observedObj.kind == 'b' then return true end\n  return false",
    None
)]
#[case::builtin_replaced_and_called(
    "type = 'x'\n  return type(observedObj) == 'table'",
    Some("global-assignment")
)]
#[case::method_gsub("return observedObj.kind:gsub('a', 'b') ~= nil", Some("sandbox"))]
#[case::literal_rep("return ('x'):rep(3) ~= nil", Some("sandbox"))]
#[case::library_rep("return string.rep('x', 3) ~= nil", Some("sandbox"))]
fn lint_errors_only_on_scripts_that_fail(#[case] body: &str, #[case] error: Option<&str>) {
    let dir = scratch(&format!("lint-{}", body.len()));
    let file = dir.join("c.yaml");
    let script = format!("function InterpretHealth(observedObj)\n  {body}\nend");
    write(
        &file,
        &Customization::new("c", "v1", "Foo")
            .rule("healthInterpretation", &script)
            .yaml(),
    );
    let out = cli(&["lint", "-o", "json", s(&file)]);
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<&str> = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    match error {
        None => assert!(errors.is_empty(), "{findings:#?}"),
        Some(rule) => assert_eq!(errors, [rule], "{findings:#?}"),
    }
}

/// Argo CD's health checks (the shared test corpus beside the checkout, skipped when absent), each wrapped
/// as an InterpretHealth customization: they all run, so `lint` finds no
/// error but the one call Karmada's sandbox refuses (`:gsub`).
#[test]
fn argocd_health_checks_lint_without_false_errors() {
    let Some(src) = crate::support::shared("argocd-resource-customizations") else {
        return;
    };
    let dir = scratch("argocd");
    let mut wrapped = 0;
    for group in std::fs::read_dir(&src).unwrap().flatten() {
        for kind in std::fs::read_dir(group.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let Ok(health) = std::fs::read_to_string(kind.path().join("health.lua")) else {
                continue;
            };
            let body: String = health.lines().map(|l| format!("  {l}\n")).collect();
            let script = format!(
                "local function argocdHealth(obj)\n{body}end\nfunction InterpretHealth(obj)\n  local hs = argocdHealth(obj)\n  return hs ~= nil and hs.status == \"Healthy\"\nend\n"
            );
            let (group, kind) = (group.file_name(), kind.file_name());
            let (group, kind) = (group.to_string_lossy(), kind.to_string_lossy());
            let name = format!("argocd-{group}-{kind}")
                .to_lowercase()
                .replace('_', "-");
            write(
                &dir.join(format!("{group}/v1/{kind}/customizations.yaml")),
                &Customization::new(&name, &format!("{group}/v1"), &kind)
                    .rule("healthInterpretation", &script)
                    .yaml(),
            );
            wrapped += 1;
        }
    }
    assert!(wrapped > 200, "{wrapped} health checks");
    let out = cli(&["lint", "-o", "json", s(&dir)]);
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert!(
        errors.iter().all(|f| f["rule"] == "sandbox"
            && f["message"].as_str().unwrap().starts_with("`:gsub(...)`")),
        "{errors:#?}"
    );
    assert!(!errors.is_empty(), "the `:gsub` call is not flagged");
}

/// `run --operation ReviseReplica` needs the replica count.
#[test]
fn revise_replica_needs_desired_replica() {
    let dir = scratch("revise");
    write(&dir.join("d.yaml"), WIDGET_OBJECT);
    let out = cli(&[
        "run",
        "--operation",
        "ReviseReplica",
        "--desired-file",
        s(&dir.join("d.yaml")),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--desired-replica: ReviseReplica needs the replica count"),
        "{}",
        text(&out.stderr)
    );
}

/// `init` refuses an apiVersion without a version and a kind that is not
/// a Kind, before writing anything.
#[rstest]
#[case::no_version(
    "example.io",
    "Widget",
    "apiVersion \"example.io\" names no version: write `group/version`, e.g. `example.io/v1`"
)]
#[case::lower_case_kind(
    "example.io/v1",
    "widget",
    "kind \"widget\" must start with an upper-case letter"
)]
#[case::bad_group("Example_IO/v1", "Widget", "apiVersion \"Example_IO/v1\": group:")]
#[case::bad_version("example.io/V1", "Widget", "apiVersion \"example.io/V1\": version:")]
fn init_validates_the_target(#[case] api_version: &str, #[case] kind: &str, #[case] message: &str) {
    let dir = scratch(&format!("init-{}-{}", api_version.len(), kind));
    let out = cli(&["init", api_version, kind, s(&dir.join("out"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains(message), "{}", text(&out.stderr));
    assert!(!dir.join("out").exists());
}

/// A customization file that does not load is shown in full once, however
/// many cases it serves; a YAML error names the offending character.
#[test]
fn yaml_errors_once_per_file_at_the_offending_character() {
    let dir = scratch("yaml");
    let folder = dir.join("example.io/v1/Widget");
    write(
        &folder.join("customizations.yaml"),
        &WIDGET.replace("  name: widget", "  name: \"widget\" trailing"),
    );
    for n in ["a", "b", "c"] {
        write(
            &folder.join(format!("testdata/{n}-test.yaml")),
            &format!("name: {n}\noperation: InterpretHealth\nobservedObj: {WIDGET_OBJECT}\noutput: {{healthy: true}}\n"),
        );
    }
    let out = cli(&["test", s(&dir)]);
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout
            .matches("line 4, column 18: invalid trailing content")
            .count(),
        1,
        "{stdout}"
    );
    assert_eq!(
        stdout
            .matches("the same failure as case \"a\" above")
            .count(),
        2,
        "{stdout}"
    );
}
