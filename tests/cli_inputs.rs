//! `run` and `check` read their inputs as `karmadactl interpret` does:
//! `-f` files, directories (with `-R` recursion), patterns, comma-separated
//! lists and `-` for standard input; one object per object flag; status
//! items from a file, a directory or a pattern.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use rstest::rstest;

use crate::support::customization::Customization;
use crate::support::{assert_ok, cli_ok};

const WORKLOAD: &str = "apiVersion: workload.example.io/v1alpha1\nkind: Workload\n\
metadata: {name: demo}\nspec: {replicas: 4}\nstatus: {readyReplicas: 4}\n";

/// A customization for the Workload kind holding one rule.
fn rules(name: &str, rule: &str, script: &str) -> String {
    Customization::new(name, "workload.example.io/v1alpha1", "Workload")
        .rule(rule, script)
        .yaml()
}

fn health() -> String {
    rules(
        "health",
        "healthInterpretation",
        "function InterpretHealth(o) return o.status.readyReplicas == o.spec.replicas end",
    )
}

fn replicas() -> String {
    rules(
        "replicas",
        "replicaResource",
        "function GetReplicas(o) return o.spec.replicas, nil end",
    )
}

/// Lists the status items' cluster names in the order they came.
fn aggregate() -> String {
    rules(
        "aggregate",
        "statusAggregation",
        "function AggregateStatus(d, items) local names = {} for i, item in ipairs(items) do names[i] = item.clusterName end d.status = {clusters = table.concat(names, ',')} return d end",
    )
}

/// A fresh directory for one test, holding `files` (relative path, text).
fn tree(test: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = crate::support::scratch(&format!("cli-inputs-{test}"));
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs the binary with `args`, `stdin` on its standard input.
fn cli_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = crate::support::bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn cli(args: &[&str]) -> Output {
    cli_with_stdin(args, "")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A directory's .yaml/.yml/.json files are read (others are not), its
/// subdirectories only with `-R`.
#[rstest]
#[case::flat_finds_top_level_rules(false, "InterpretReplica", Some("4"))]
#[case::flat_skips_subdirectories(false, "InterpretHealth", None)]
#[case::recursive_enters_subdirectories(true, "InterpretHealth", Some("true"))]
fn directories_are_read_as_kubectl_reads_them(
    #[case] recursive: bool,
    #[case] operation: &str,
    #[case] expected: Option<&str>,
) {
    let dir = tree(
        &format!("dir-{recursive}-{operation}"),
        &[
            ("rules/replicas.yml", &replicas()),
            ("rules/nested/health.json", &{
                let v = karmada_interpreter::yaml::from_str(&health()).unwrap();
                v.to_string()
            }),
            ("rules/notes.txt", "not: [yaml"),
            ("live.yaml", WORKLOAD),
        ],
    );
    let rules = dir.join("rules");
    let live = dir.join("live.yaml");
    let mut args = vec!["run", "-f", arg(&rules), "--operation", operation];
    args.extend(["--observed-file", arg(&live), "-o", "json"]);
    if recursive {
        args.push("-R");
    }
    let out = cli(&args);
    match expected {
        Some(value) => {
            assert_ok(&out, args.join(" "));
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let first = v
                .as_object()
                .unwrap()
                .iter()
                .find(|(k, _)| *k != "servedBy")
                .unwrap()
                .1;
            assert_eq!(first.to_string(), value, "{v}");
        }
        None => assert!(
            stderr(&out).contains("Execute InterpretHealth error: rule is not enabled"),
            "{}",
            stderr(&out)
        ),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-f` is repeatable and comma-separated; customizations of one target
/// from several files are merged.
#[test]
fn filenames_are_comma_separated_and_repeatable() {
    let dir = tree(
        "commas",
        &[
            ("a.yaml", &replicas()),
            ("b.yaml", &health()),
            ("c.yaml", &aggregate()),
            ("live.yaml", WORKLOAD),
        ],
    );
    let (a, b, c) = (dir.join("a.yaml"), dir.join("b.yaml"), dir.join("c.yaml"));
    let live = dir.join("live.yaml");
    let list = format!("{},{}", arg(&a), arg(&b));
    let out = cli_ok(&[
        "run",
        "-f",
        &list,
        "-f",
        arg(&c),
        "--operation",
        "interprethealth",
        "--observed-file",
        arg(&live),
    ]);
    assert_eq!(stdout(&out), "---\n# [1/1] healthy:\ntrue\n");
    let only_a = cli(&[
        "run",
        "-f",
        arg(&a),
        "--operation",
        "InterpretHealth",
        "--observed-file",
        arg(&live),
    ]);
    assert!(
        stderr(&only_a).contains("rule is not enabled"),
        "{}",
        stderr(&only_a)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-` reads standard input, for the customizations or for one object.
#[test]
fn a_dash_reads_standard_input() {
    let dir = tree(
        "stdin",
        &[("rules.yaml", &health()), ("live.yaml", WORKLOAD)],
    );
    let (rules, live) = (dir.join("rules.yaml"), dir.join("live.yaml"));
    let from_stdin = cli_with_stdin(
        &[
            "run",
            "-f",
            "-",
            "--operation",
            "InterpretHealth",
            "--observed-file",
            arg(&live),
        ],
        &health(),
    );
    assert_ok(&from_stdin, "run -f - (rules from stdin)");
    assert_eq!(stdout(&from_stdin), "---\n# [1/1] healthy:\ntrue\n");
    let object_from_stdin = cli_with_stdin(
        &[
            "run",
            "-f",
            arg(&rules),
            "--operation",
            "InterpretHealth",
            "--observed-file",
            "-",
        ],
        &WORKLOAD.replace("readyReplicas: 4", "readyReplicas: 1"),
    );
    assert_ok(
        &object_from_stdin,
        "run --observed-file - (object from stdin)",
    );
    assert_eq!(stdout(&object_from_stdin), "---\n# [1/1] healthy:\nfalse\n");
    let check = cli_with_stdin(&["check", "-f", "-"], &health());
    assert_ok(&check, "check -f -");
    assert!(
        stdout(&check).contains("SOURCE: health"),
        "{}",
        stdout(&check)
    );
    let twice = cli_with_stdin(
        &[
            "run",
            "-f",
            "-",
            "--operation",
            "InterpretHealth",
            "--observed-file",
            "-",
        ],
        &health(),
    );
    assert_ne!(twice.status.code(), Some(0));
    assert!(
        stderr(&twice)
            .contains("standard input can be read once, but both -f and --observed-file name it"),
        "{}",
        stderr(&twice)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn item(cluster: &str) -> String {
    format!("clusterName: {cluster}\napplied: true\nstatus: {{readyReplicas: 1}}\n")
}

/// `--status-file` takes a file, a directory or a glob pattern; a pattern
/// matching nothing is an error naming it.
#[rstest]
#[case::file("status/a.yaml", Ok("member-a,member-b"))]
#[case::directory("status", Ok("member-a,member-b,member-c"))]
#[case::pattern("status/*.y*ml", Ok("member-a,member-b,member-c"))]
#[case::pattern_without_match(
    "status/*.json",
    Err("the path \"{dir}/status/*.json\" does not exist")
)]
#[case::missing_file(
    "status/none.yaml",
    Err("the path \"{dir}/status/none.yaml\" does not exist")
)]
fn status_items_come_from_files_directories_and_patterns(
    #[case] status: &str,
    #[case] expected: Result<&str, &str>,
) {
    let dir = tree(
        &format!("status-{}", status.replace(['/', '*', '.'], "_")),
        &[
            ("rules.yaml", &aggregate()),
            ("live.yaml", WORKLOAD),
            (
                "status/a.yaml",
                &format!("{}---\n{}", item("member-a"), item("member-b")),
            ),
            ("status/c.yml", &format!("---\n{}---\n", item("member-c"))),
            ("status/ignored.txt", "not: [yaml"),
        ],
    );
    let (rules, live) = (dir.join("rules.yaml"), dir.join("live.yaml"));
    let status = dir.join(status);
    let out = cli(&[
        "run",
        "-f",
        arg(&rules),
        "--operation",
        "AggregateStatus",
        "--desired-file",
        arg(&live),
        "--status-file",
        arg(&status),
        "-o",
        "json",
    ]);
    match expected {
        Ok(clusters) => {
            assert_ok(&out, "run --operation AggregateStatus");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["aggregatedStatus"]["status"]["clusters"], clusters, "{v}");
        }
        Err(message) => {
            let message = message.replace("{dir}", arg(&dir));
            assert_eq!(
                stderr(&out).trim(),
                format!("error: fail to get status items: {message}")
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An object flag names exactly one object; URLs are refused in words.
#[rstest]
#[case::two_objects(&format!("{WORKLOAD}---\n{WORKLOAD}"), "error: fail to get observed object: get 2 objects, expect one at most")]
#[case::no_object(
    "# nothing here\n---\n",
    "error: fail to get observed object: no object found in {file}, expect one"
)]
#[case::bad_yaml("a: [unclosed\n", "error: fail to get observed object: error parsing {file}: document 1 (line 1): line 1, column 4: unclosed bracket")]
#[case::tab_as_indentation(
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  finalizers:\n  -\tx\n",
    "error: fail to get observed object: error parsing {file}: document 1 (line 1): line 6, column 4: found a tab character where an indentation space is expected"
)]
fn object_inputs_hold_one_object(#[case] text: &str, #[case] expected: &str) {
    let dir = tree(
        &format!("object-{}", text.len()),
        &[("rules.yaml", &health()), ("live.yaml", text)],
    );
    let (rules, live) = (dir.join("rules.yaml"), dir.join("live.yaml"));
    let out = cli(&[
        "run",
        "-f",
        arg(&rules),
        "--operation",
        "InterpretHealth",
        "--observed-file",
        arg(&live),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let expected = expected.replace("{file}", arg(&live));
    assert!(
        stderr(&out).starts_with(&expected),
        "{}\nexpected: {expected}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn urls_are_refused_in_words() {
    for flag in ["-f", "--observed-file"] {
        let out = cli(&[
            "run",
            flag,
            "https://example.invalid/rules.yaml",
            "--operation",
            "InterpretHealth",
        ]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains("https://example.invalid/rules.yaml: URLs are not supported"),
            "{}",
            stderr(&out)
        );
    }
}

/// Every command's `-f` reads customizations through the same loader:
/// `list` takes a directory (with `-R`) and standard input like `run`.
#[test]
fn every_command_reads_f_the_same_way() {
    let dir = tree("list", &[("rules/nested/health.yaml", &health())]);
    let rules = dir.join("rules");
    // A `Workload` row served by the declarative layer (the LAYER column:
    // bundled kinds named Workload have `declarative-...` sources too).
    let declarative = |out: &Output| {
        stdout(out).lines().any(|l| {
            let columns: Vec<&str> = l.split_whitespace().collect();
            columns.get(1) == Some(&"Workload") && columns.get(3) == Some(&"declarative")
        })
    };
    let flat = cli_ok(&["list", "-f", arg(&rules)]);
    assert!(!declarative(&flat), "{}", stdout(&flat));
    let recursive = cli_ok(&["list", "-R", "-f", arg(&rules)]);
    assert!(declarative(&recursive), "{}", stdout(&recursive));
    let piped = cli_with_stdin(&["list", "-f", "-"], &health());
    assert_ok(&piped, "list -f -");
    assert!(declarative(&piped), "{}", stdout(&piped));
    let _ = std::fs::remove_dir_all(&dir);
}
