//! Tools for customization authors: `lint`, `test --format`, `test
//! --coverage`, `init`.

use std::path::{Path, PathBuf};

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::lint::{Finding, Linter, Rule, Severity};
use rstest::rstest;

use crate::support::customization::Customization;
use crate::support::{assert_ok, run_ok};

fn root() -> PathBuf {
    PathBuf::from(crate::support::ROOT)
}

fn lint(op: Op, script: &str) -> Vec<Finding> {
    Linter::new().unwrap().lint_script(script, op)
}

// ---------------------------------------------------------------- lint rules

/// Each rule: a script that triggers it and one that does not (and has no
/// finding at all).
#[rstest]
#[case::global_assignment(
    Rule::GlobalAssignment,
    Op::InterpretHealth,
    "count = 0\nfunction InterpretHealth(observedObj)\n  return observedObj ~= nil and count == 0\nend",
    "local count = 0\nfunction InterpretHealth(observedObj)\n  return observedObj ~= nil and count == 0\nend"
)]
#[case::global_function(
    Rule::GlobalAssignment,
    Op::InterpretHealth,
    "function ready(o)\n  return o ~= nil\nend\nfunction InterpretHealth(observedObj)\n  return ready(observedObj)\nend",
    "local function ready(o)\n  return o ~= nil\nend\nfunction InterpretHealth(observedObj)\n  return ready(observedObj)\nend"
)]
#[case::undefined_global(
    Rule::UndefinedGlobal,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  return isReady(observedObj)\nend",
    "local function isReady(o)\n  return o ~= nil\nend\nfunction InterpretHealth(observedObj)\n  return isReady(observedObj)\nend"
)]
#[case::sandbox_os_execute(
    Rule::Sandbox,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  os.execute('true')\n  return observedObj ~= nil\nend",
    "function InterpretHealth(observedObj)\n  return observedObj ~= nil and os.time() > 0\nend"
)]
#[case::sandbox_io(
    Rule::Sandbox,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  io.write('x')\n  return observedObj ~= nil\nend",
    "function InterpretHealth(observedObj)\n  print('x')\n  return observedObj ~= nil\nend"
)]
#[case::sandbox_setmetatable(
    Rule::Sandbox,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  local t = setmetatable({}, {})\n  return t ~= observedObj\nend",
    "function InterpretHealth(observedObj)\n  local t = {}\n  return t ~= observedObj\nend"
)]
#[case::sandbox_gsub(
    Rule::Sandbox,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  return string.gsub(observedObj.kind, 'a', 'b') ~= ''\nend",
    "function InterpretHealth(observedObj)\n  return string.find(observedObj.kind, 'a') ~= nil\nend"
)]
#[case::sandbox_require(
    Rule::Sandbox,
    Op::InterpretHealth,
    "local json = require('json')\nfunction InterpretHealth(observedObj)\n  return json ~= observedObj\nend",
    "local kube = require('kube')\nfunction InterpretHealth(observedObj)\n  return kube ~= observedObj\nend"
)]
#[case::sandbox_kube_function(
    Rule::Sandbox,
    Op::InterpretReplica,
    "local kube = require('kube')\nfunction GetReplicas(obj)\n  return 1, kube.podRequirements(obj.spec.template)\nend",
    "local kube = require('kube')\nfunction GetReplicas(obj)\n  return 1, kube.accuratePodRequirements(obj.spec.template)\nend"
)]
#[case::unused_local(
    Rule::UnusedVariable,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  local unused = 1\n  return observedObj ~= nil\nend",
    "function InterpretHealth(observedObj)\n  local used = 1\n  return observedObj ~= nil and used == 1\nend"
)]
#[case::unused_argument(
    Rule::UnusedVariable,
    Op::InterpretHealth,
    "local function ready(o, strict)\n  return o ~= nil\nend\nfunction InterpretHealth(observedObj)\n  return ready(observedObj)\nend",
    "local function ready(o)\n  return o ~= nil\nend\nfunction InterpretHealth(observedObj)\n  return ready(observedObj)\nend"
)]
#[case::entry_arity(
    Rule::EntryArity,
    Op::ReviseReplica,
    "function ReviseReplica(obj)\n  return obj\nend",
    "function ReviseReplica(obj, desiredReplica)\n  obj.spec.replicas = desiredReplica\n  return obj\nend"
)]
#[case::missing_entry(
    Rule::MissingEntry,
    Op::InterpretStatus,
    "function InterpretStatus(observedObj)\n  return observedObj.spec\nend",
    "function ReflectStatus(observedObj)\n  return observedObj.spec\nend"
)]
#[case::unreachable_after_error(
    Rule::UnreachableCode,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  error('unsupported')\n  return observedObj ~= nil\nend",
    "function InterpretHealth(observedObj)\n  if observedObj == nil then\n    error('unsupported')\n  end\n  return true\nend"
)]
#[case::unreachable_after_if(
    Rule::UnreachableCode,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  if observedObj.spec then\n    return true\n  else\n    return false\n  end\n  print('never')\nend",
    "function InterpretHealth(observedObj)\n  if observedObj.spec then\n    return true\n  end\n  print('sometimes')\n  return false\nend"
)]
#[case::unguarded_status(
    Rule::UnguardedField,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  return observedObj.status.readyReplicas == 1\nend",
    "function InterpretHealth(observedObj)\n  if observedObj.status == nil then\n    return false\n  end\n  return observedObj.status.readyReplicas == 1\nend"
)]
#[case::unguarded_labels(
    Rule::UnguardedField,
    Op::InterpretDependency,
    "function GetDependencies(desiredObj)\n  return { { kind = desiredObj.metadata.labels.app } }\nend",
    "function GetDependencies(desiredObj)\n  local labels = desiredObj.metadata.labels or {}\n  return { { kind = labels.app } }\nend"
)]
#[case::syntax(
    Rule::Syntax,
    Op::InterpretHealth,
    "function InterpretHealth(observedObj)\n  return observedObj ==\nend",
    "function InterpretHealth(observedObj)\n  return observedObj == nil\nend"
)]
fn each_rule_triggers_and_stays_quiet(
    #[case] rule: Rule,
    #[case] op: Op,
    #[case] triggers: &str,
    #[case] clean: &str,
) {
    let found = lint(op, triggers);
    assert!(
        found.iter().any(|f| f.rule == rule),
        "{rule} not reported for:\n{triggers}\n{found:#?}"
    );
    let quiet = lint(op, clean);
    assert!(
        quiet.is_empty(),
        "findings for a clean script:\n{clean}\n{quiet:#?}"
    );
}

/// gopher-lua accepts Lua 5.2's `goto` and labels, so the linter does too.
#[test]
fn goto_continue_is_not_a_syntax_error() {
    let found = lint(
        Op::InterpretHealth,
        "function InterpretHealth(observedObj)\n  local n = 0\n  for _, c in ipairs(observedObj.status and observedObj.status.conditions or {}) do\n    if c.status ~= 'True' then\n      goto continue\n    end\n    n = n + 1\n    ::continue::\n  end\n  return n > 0\nend",
    );
    assert!(found.iter().all(|f| f.rule != Rule::Syntax), "{found:#?}");
}

/// Replacing a builtin the script then calls is an error (the call
/// fails); one it never calls (Karmada's own `error = ''`) runs: a warning.
#[rstest]
#[case::called("  if leaked < 0 then error('negative') end\n", Severity::Error)]
#[case::never_called("", Severity::Warning)]
fn shadowing_a_builtin_is_an_error_other_globals_a_warning(
    #[case] call: &str,
    #[case] severity: Severity,
) {
    let found = lint(
        Op::AggregateStatus,
        &format!("function AggregateStatus(desiredObj, statusItems)\n  error = ''\n  leaked = #statusItems\n{call}  desiredObj.status = {{ error = error, n = leaked }}\n  return desiredObj\nend"),
    );
    let globals: Vec<(&str, Severity)> = found
        .iter()
        .filter(|f| f.rule == Rule::GlobalAssignment)
        .map(|f| (f.message.as_str(), f.severity))
        .collect();
    assert_eq!(globals.len(), 2, "{found:#?}");
    assert!(globals[0].0.contains("`error`") && globals[0].1 == severity);
    assert!(globals[1].0.contains("`leaked`") && globals[1].1 == Severity::Warning);
}

/// The operation passes every parameter of the entry function: one it does
/// not use cannot be left out, so it is not reported.
#[test]
fn unused_entry_parameters_are_not_reported() {
    let found = lint(
        Op::Retain,
        "function Retain(desiredObj, observedObj)\n  return desiredObj\nend",
    );
    assert_eq!(found, Vec::<Finding>::new());
}

#[test]
fn positions_are_the_scripts_own() {
    let found = lint(
        Op::InterpretHealth,
        "-- health\nfunction InterpretHealth(observedObj)\n  return observedObj.status.ok\nend",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!((found[0].line, found[0].column), (3, 10));
}

#[rstest]
#[case::trailing(
    "function InterpretHealth(observedObj)\n  return observedObj.status.ok -- lint: allow(unguarded-field)\nend"
)]
#[case::line_above(
    "function InterpretHealth(observedObj)\n  -- lint: allow(unguarded-field)\n  return observedObj.status.ok\nend"
)]
#[case::whole_script(
    "-- lint: allow(unguarded-field, unused-variable)\nfunction InterpretHealth(observedObj)\n  local x = 1\n  return observedObj.status.ok\nend"
)]
fn allow_comments(#[case] script: &str) {
    assert_eq!(lint(Op::InterpretHealth, script), Vec::<Finding>::new());
}

#[test]
fn an_allowance_covers_only_its_rule_and_line() {
    let found = lint(
        Op::InterpretHealth,
        "function InterpretHealth(observedObj)\n  local a = observedObj.status.ok -- lint: allow(unguarded-field)\n  return observedObj.status.ok\nend",
    );
    let rules: Vec<(Rule, usize)> = found.iter().map(|f| (f.rule, f.line)).collect();
    assert_eq!(
        rules,
        vec![(Rule::UnusedVariable, 2), (Rule::UnguardedField, 3)]
    );
}

/// The kube functions the linter knows are those the sandbox's module has.
#[test]
fn kube_functions_match_the_sandbox() {
    use karmada_interpreter::lint::KUBE_FUNCTIONS;
    let list = KUBE_FUNCTIONS
        .iter()
        .map(|f| format!("{f} = true"))
        .collect::<Vec<_>>()
        .join(", ");
    let script = format!(
        "local kube = require('kube')\nfunction InterpretHealth(observedObj)\n  local want = {{ {list} }}\n  local n = 0\n  for k, v in pairs(want) do\n    if type(kube[k]) ~= 'function' then error('missing ' .. k) end\n    n = n + 1\n  end\n  return n == {}\nend",
        KUBE_FUNCTIONS.len()
    );
    let doc = customization("Probe", "healthInterpretation", &script);
    let customizations = karmada_interpreter::load::customizations_from_str(&doc, "probe").unwrap();
    // Built with the feature, the linter knows the karmada-next profile's
    // kube functions too.
    let profile = if cfg!(feature = "karmada-next") {
        karmada_interpreter::profile::Profile::KarmadaNext
    } else {
        karmada_interpreter::profile::Profile::Karmada
    };
    let chain = karmada_interpreter::Interpreter::builder()
        .customizations(customizations)
        .profile(profile)
        .build()
        .unwrap();
    let obj = serde_json::json!({"apiVersion": "example.io/v1", "kind": "Probe", "metadata": {"name": "p"}});
    let request = karmada_interpreter::interpreter::Request::InterpretHealth { object: &obj };
    let answer = chain.interpret(&request).unwrap();
    assert_eq!(
        karmada_interpreter::interpreter::results_map(answer.value)["healthy"],
        serde_json::json!(true)
    );
}

/// A customization `probe` for `example.io/v1, Kind=kind` with one rule, as
/// YAML (the first script line is file line 12).
fn customization(kind: &str, member: &str, script: &str) -> String {
    Customization::new("probe", "example.io/v1", kind)
        .rule(member, script)
        .yaml()
}

// ------------------------------------------------------------ lint documents

#[rstest]
#[case::misspelled_rule("replicas", "customizations", "did you mean `replicaResource`")]
#[case::operation_name_as_rule("reviseReplica", "customizations", "did you mean `replicaRevision`")]
#[case::rule_outside_customizations(
    "replicaResource",
    "spec",
    "belongs under `spec.customizations`"
)]
fn unknown_keys(#[case] key: &str, #[case] under: &str, #[case] hint: &str) {
    let script = "function GetReplicas(obj)\n  return 1\nend";
    let mut doc = customization(
        "Demo",
        "healthInterpretation",
        "function InterpretHealth(observedObj)\n  return observedObj ~= nil\nend",
    );
    let body: String = script.lines().map(|l| format!("        {l}\n")).collect();
    let indent = if under == "spec" { "  " } else { "    " };
    doc.push_str(&format!("{indent}{key}:\n{indent}  luaScript: |\n{body}"));
    let found = Linter::new().unwrap().lint_text(&doc, "demo.yaml");
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(f.rule, Rule::UnknownKey);
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.line, 15, "{doc}");
    assert!(f.message.contains(hint), "{}", f.message);
}

/// Documents of other kinds in the same stream are not linted.
#[test]
fn other_kinds_are_not_linted() {
    let doc = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  replicas: x\n---\n{}",
        customization(
            "Demo",
            "healthInterpretation",
            "function InterpretHealth(observedObj)\n  return observedObj.status.ready\nend"
        )
    );
    let found = Linter::new().unwrap().lint_text(&doc, "mixed.yaml");
    let rules: Vec<(Rule, usize)> = found.iter().map(|f| (f.rule, f.line)).collect();
    assert_eq!(rules, [(Rule::UnguardedField, 20)]);
}

#[test]
fn script_findings_carry_file_lines_and_the_compiler_format() {
    let doc = customization(
        "Demo",
        "healthInterpretation",
        "function InterpretHealth(observedObj)\n  return observedObj.status.ready\nend",
    );
    let found = Linter::new().unwrap().lint_text(&doc, "demo.yaml");
    assert_eq!(found.len(), 1);
    // Script line 2 is file line 13; the script is indented by 8 columns.
    assert_eq!(
        found[0].to_string(),
        "demo.yaml:13:18: warning[unguarded-field]: `observedObj.status.ready` is read without checking `observedObj.status`, which may be absent (nil) (InterpretHealth of probe)"
    );
}

// --------------------------------------------------------------- lint, CLI

#[test]
fn bundled_customizations_are_clean() {
    let out = run_ok(
        crate::support::bin()
            .args(["lint", "--deny-warnings"])
            .arg(root().join("thirdparty")),
    );
    assert!(
        out.stdout.is_empty(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn exit_status_json_and_deny_warnings() {
    let dir = crate::support::scratch("lint-cli");
    let warn = dir.join("warn.yaml");
    std::fs::write(
        &warn,
        customization(
            "Demo",
            "healthInterpretation",
            "function InterpretHealth(observedObj)\n  return observedObj.status.ready\nend",
        ),
    )
    .unwrap();
    let status = |args: &[&str]| {
        crate::support::bin()
            .arg("lint")
            .args(args)
            .arg(&warn)
            .output()
            .unwrap()
    };
    assert_ok(&status(&[]), "lint");
    assert_eq!(status(&["--deny-warnings"]).status.code(), Some(1));
    let json = status(&["-o", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v[0]["rule"], "unguarded-field");
    assert_eq!(v[0]["severity"], "warning");
    assert_eq!(v[0]["line"], 13);
    let err = dir.join("err.yaml");
    std::fs::write(
        &err,
        customization(
            "Demo",
            "healthInterpretation",
            "function InterpretHealth(observedObj)\n  return io ~= observedObj\nend",
        ),
    )
    .unwrap();
    let out = crate::support::bin()
        .args(["lint", "-f"])
        .arg(&err)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("err.yaml:13:") && text.contains("error[sandbox]"),
        "{text}"
    );
}

/// Karmada's own customizations have known defects; `lint` reports them.
#[test]
fn karmada_customizations_known_defects() {
    let Some(dir) = crate::support::shared("karmada-customizations") else {
        return;
    };
    let files = karmada_interpreter::lint::customization_files(&[dir]).unwrap();
    let linter = Linter::new().unwrap();
    let mut all = Vec::new();
    for f in &files {
        all.extend(linter.lint_file(f).unwrap());
    }
    let flink = all.iter().find(|f| {
        f.file.contains("FlinkDeployment")
            && f.rule == Rule::GlobalAssignment
            && f.message.contains("`error`")
            && f.message.contains("AggregateStatus")
    });
    let flink =
        flink.unwrap_or_else(|| panic!("no `error` shadowing in FlinkDeployment: {all:#?}"));
    // The script never calls `error`, so it runs: a warning, not an error.
    assert_eq!(flink.severity, Severity::Warning);
    // Two more scripts replace the builtin `type` (and never call it).
    let type_shadowing = all
        .iter()
        .filter(|f| {
            f.rule == Rule::GlobalAssignment
                && f.severity == Severity::Warning
                && f.message.contains("`type`")
        })
        .count();
    assert!(type_shadowing >= 2, "{all:#?}");
    // A status script reads a global that nothing defines.
    assert!(all.iter().any(|f| f.file.contains("HelmChart")
        && f.rule == Rule::UndefinedGlobal
        && f.message.contains("`observedGeneration`")));
    assert!(all.iter().any(|f| f.rule == Rule::UnguardedField));
}

// ------------------------------------------------------------ test --format

/// A Karmada-layout folder: a health script with two branches and three
/// cases — two that pass (ready, and no status at all) and one whose
/// expected output is wrong.
fn health_fixture(name: &str) -> PathBuf {
    let dir = crate::support::scratch(name);
    std::fs::write(
        dir.join("customizations.yaml"),
        customization(
            "Demo",
            "healthInterpretation",
            "function InterpretHealth(observedObj)\n  if observedObj.status == nil then\n    return false\n  end\n  if observedObj.status.phase == 'Failed' then\n    return false\n  end\n  return observedObj.status.ready == true\nend",
        ),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("testdata")).unwrap();
    let case = |name: &str, status: &str, healthy: bool| {
        format!(
            "name: {name}\noperation: InterpretHealth\nobservedObj:\n  apiVersion: example.io/v1\n  kind: Demo\n  metadata:\n    name: d\n{status}output:\n  healthy: {healthy}\n"
        )
    };
    let cases = [
        case("ready", "  status:\n    ready: true\n", true),
        case("no status", "", false),
        case("wrong <expectation>", "  status:\n    ready: false\n", true),
    ];
    std::fs::write(
        dir.join("testdata/interprethealth-test.yaml"),
        cases.join("---\n"),
    )
    .unwrap();
    dir
}

#[test]
fn junit_report_carries_every_case() {
    let dir = health_fixture("junit");
    let out = crate::support::bin()
        .args(["test", "--format", "junit"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let xml = String::from_utf8(out.stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("tests"), Some("3"));
    assert_eq!(root.attribute("failures"), Some("1"));
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 1);
    let cases: Vec<_> = suites[0]
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let names: Vec<&str> = cases.iter().filter_map(|c| c.attribute("name")).collect();
    assert_eq!(names, ["ready", "no status", "wrong <expectation>"]);
    let failures: Vec<_> = cases
        .iter()
        .filter_map(|c| c.children().find(|n| n.has_tag_name("failure")))
        .collect();
    assert_eq!(failures.len(), 1);
    assert_eq!(
        failures[0].text(),
        Some("healthy: <root>: expected true, got false"),
        "{xml}"
    );
}

#[test]
fn json_report_and_unchanged_human_output() {
    let dir = health_fixture("json");
    let out = crate::support::bin()
        .args(["test", "--format", "json"])
        .arg(&dir)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["passed"], 2);
    assert_eq!(v["summary"]["failed"], 1);
    let verdicts: Vec<&str> = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["passed", "passed", "failed"]);
    assert_eq!(
        v["cases"][2]["differences"][0],
        "healthy: <root>: expected true, got false"
    );
    let human = crate::support::bin()
        .arg("test")
        .arg(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.starts_with("FAIL "), "{text}");
    assert!(
        without_duration(&text).ends_with("2 passed, 1 failed\n"),
        "{text}"
    );
}

/// `text` with the run's duration (` in 0.12s`) cut from its summary line.
fn without_duration(text: &str) -> String {
    text.lines()
        .map(|l| match l.rfind(" in ") {
            Some(at) if l.contains(" passed, ") => &l[..at],
            _ => l,
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

// ----------------------------------------------------------- test --coverage

/// The fixture's script (file lines 12-20) has six statements: the function
/// (12), `if status == nil` (13), `return false` (14), `if phase ==
/// 'Failed'` (16), `return false` (17), `return ready` (19). No case has a
/// failed phase, so only line 17 never runs.
#[test]
fn coverage_of_a_partly_exercised_script() {
    let dir = health_fixture("coverage");
    let lcov = dir.join("coverage.lcov");
    let out = crate::support::bin()
        .args(["test", "--coverage-out"])
        .arg(&lcov)
        .arg(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let file = dir.join("customizations.yaml");
    let summary = format!(
        "{}: probe/InterpretHealth: 5/6 lines (83%), uncovered: 17",
        file.display()
    );
    assert!(text.lines().any(|l| l == summary), "{text}");
    assert_eq!(
        read(&lcov),
        format!(
            "TN:\nSF:{}\nDA:12,1\nDA:13,1\nDA:14,1\nDA:16,1\nDA:17,0\nDA:19,1\nLF:6\nLH:5\nend_of_record\n",
            file.display()
        )
    );
}

/// Coverage does not change results, and a run without `--coverage`
/// prints no coverage.
#[test]
fn coverage_leaves_results_alone() {
    let dir = health_fixture("coverage-off");
    let plain = crate::support::bin()
        .arg("test")
        .arg(&dir)
        .output()
        .unwrap();
    let with = crate::support::bin()
        .args(["test", "--coverage"])
        .arg(&dir)
        .output()
        .unwrap();
    let plain = String::from_utf8(plain.stdout).unwrap();
    let with = String::from_utf8(with.stdout).unwrap();
    assert!(!plain.contains("lines ("), "{plain}");
    assert!(
        without_duration(&with).starts_with(&without_duration(&plain)),
        "{plain}\n---\n{with}"
    );
}

/// `--coverage-threshold`: the fixture's cases without the failing one
/// cover 5 of 6 lines (83.3%): 80 passes, 90 fails saying why, and a run
/// without any script to measure cannot be checked.
#[test]
fn coverage_threshold_fails_a_run_below_it() {
    let dir = health_fixture("coverage-threshold");
    let cases = dir.join("testdata/interprethealth-test.yaml");
    let text = read(&cases);
    let kept: Vec<&str> = text
        .split("---\n")
        .filter(|c| !c.contains("wrong"))
        .collect();
    std::fs::write(&cases, kept.join("---\n")).unwrap();
    let run = |threshold: &str| {
        crate::support::bin()
            .args(["test", "--coverage-threshold", threshold])
            .arg(&dir)
            .output()
            .unwrap()
    };
    let out = run("80");
    assert_ok(&out, "--coverage-threshold 80");
    let out = run("90");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr
            .contains("coverage 83.3% (5/6 lines of 1 scripts) is below --coverage-threshold 90%"),
        "{stderr}"
    );
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("2 passed, 0 failed"));
    let out = run("101");
    assert_eq!(out.status.code(), Some(2));
    // Cases without customization scripts: nothing to measure.
    let out = crate::support::bin()
        .args(["test", "--coverage-threshold", "50"])
        .arg(PathBuf::from(crate::support::ROOT).join("conformance/native/apps/v1/Deployment"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("--coverage-threshold: no customization script line to measure"),);
}

// --------------------------------------------------------------------- init

/// `init` output passes `check`, `lint --deny-warnings` and `test` as it is.
#[rstest]
#[case::all_operations(&[])]
#[case::some_operations(&["--operations", "InterpretHealth,AggregateStatus"])]
fn init_output_passes_check_lint_and_test(#[case] extra: &[&str]) {
    let dir =
        crate::support::scratch(&format!("init-{}", extra.len())).join("example.io/v1/Widget");
    run_ok(
        crate::support::bin()
            .args(["init", "example.io/v1", "Widget"])
            .args(extra)
            .arg(&dir),
    );
    let file = dir.join("customizations.yaml");
    let cases = std::fs::read_dir(dir.join("testdata")).unwrap().count();
    assert_eq!(cases, if extra.is_empty() { 8 } else { 2 });
    let run = |args: &[&str], path: &Path| {
        let out = run_ok(crate::support::bin().args(args).arg(path));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        text
    };
    run(&["check", "-f"], &file);
    let lint = run(&["lint", "--deny-warnings"], &dir);
    assert!(lint.contains("0 error(s), 0 warning(s)"), "{lint}");
    let test = run(&["test"], &dir);
    assert!(
        without_duration(&test).ends_with(&format!("{cases} passed, 0 failed\n")),
        "{test}"
    );
    // A second init into the same folder refuses to overwrite it.
    let again = crate::support::bin()
        .args(["init", "example.io/v1", "Widget"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!again.status.success());
}

// ------------------------------------------------------------------ helpers

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}
