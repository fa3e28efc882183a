//! `karmada-interpreter check` and `run` (see README.md).

use std::path::PathBuf;

use support::{cli, text};

use crate::support;
use crate::support::customization::Customization;
use crate::support::{assert_ok, cli_ok};

fn data(name: &str) -> PathBuf {
    PathBuf::from(crate::support::ROOT)
        .join("tests/data")
        .join(name)
}

#[test]
fn check_reports_every_rule_with_karmadactl_layout() {
    let file = data("check-example.yaml");
    let out = cli(&["check", "-f", file.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a compile error and a Pod are problems"
    );
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let dashes = "-".repeat(35);
    assert_eq!(lines[0], dashes);
    assert_eq!(lines[1], "SOURCE: workload-rules");
    // the TARGET cell is padded to its width + 3: 45 + 3 = 48
    assert_eq!(
        lines[2],
        format!("{:<48}", "TARGET: workload.example.io/v1alpha1 Workload")
    );
    assert_eq!(lines[3], "RULERS:");
    assert_eq!(lines[4], format!("{:<48}UNSET", "    Retain:"));
    assert_eq!(lines[5], format!("{:<48}PASS", "    InterpretReplica:"));
    assert_eq!(lines[10], format!("{:<48}PASS", "    InterpretHealth:"));
    assert_eq!(
        lines[11],
        format!("{:<48}UNSET", "    InterpretDependency:")
    );
    assert_eq!(lines[12], dashes);
    assert_eq!(lines[13], "SOURCE: job-rules");
    assert_eq!(lines[14], format!("{:<48}", "TARGET: batch/v1 Job"));
    assert_eq!(lines[16], format!("{:<48}PASS", "    Retain:"));
    assert!(
        lines[20].starts_with(&format!(
            "{:<48}ERROR: <string> line:2(column:5) near 'y':   parse error",
            "    InterpretStatus:"
        )),
        "{}",
        lines[20]
    );
    assert_eq!(lines[24], dashes);
    assert_eq!(lines[25], "SOURCE: demo-pod");
    assert_eq!(
        lines[26],
        "not a ResourceInterpreterCustomization, got /v1, Kind=Pod"
    );
    assert_eq!(lines.len(), 27);
    assert!(text(&out.stderr).contains("3 document(s) checked, 1 passed, 2 with problems"));
}

#[test]
fn check_passes_good_files() {
    let file = PathBuf::from(crate::support::ROOT)
        .join("conformance/lua/seed-deployment/customizations.yaml");
    cli_ok(&["check", "-f", file.to_str().unwrap()]);
}

#[test]
fn run_prints_results_as_yaml_documents() {
    let rules = data("check-example.yaml");
    let live = data("live-workload.yaml");
    // the Pod in the file makes loading fail: use only the customizations
    let tmp = std::env::temp_dir().join(format!("karmada-cli-rules-{}.yaml", std::process::id()));
    let all = std::fs::read_to_string(&rules).unwrap();
    let first = all.split("\n---\n").next().unwrap();
    std::fs::write(&tmp, first).unwrap();
    let out = cli_ok(&[
        "run",
        "-f",
        tmp.to_str().unwrap(),
        "--operation",
        "interpretreplica",
        "--observed-file",
        live.to_str().unwrap(),
    ]);
    assert_eq!(
        text(&out.stdout),
        "---\n# [1/2] replica:\n4\n---\n# [2/2] requires:\nresourceRequest:\n  cpu: 250m\n  memory: 64Mi\n"
    );
    let out = cli(&[
        "run",
        "-f",
        tmp.to_str().unwrap(),
        "--operation",
        "InterpretHealth",
        "--observed-file",
        live.to_str().unwrap(),
        "-o",
        "json",
    ]);
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let served_by = v.as_object_mut().unwrap().remove("servedBy").unwrap();
    assert!(
        served_by.as_str().unwrap().starts_with("declarative ("),
        "{served_by}"
    );
    assert_eq!(v, serde_json::json!({"healthy": false}));
    let out = cli(&[
        "run",
        "-f",
        tmp.to_str().unwrap(),
        "--operation",
        "InterpretStatus",
        "--observed-file",
        live.to_str().unwrap(),
    ]);
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr).trim(),
        "Execute InterpretStatus error: rule is not enabled"
    );
    assert_ne!(out.status.code(), Some(0));
    let out = cli(&[
        "run",
        "-f",
        tmp.to_str().unwrap(),
        "--operation",
        "retain",
        "--observed-file",
        live.to_str().unwrap(),
    ]);
    assert_eq!(
        text(&out.stderr).trim(),
        "Execute Retain error: desired, desired-file options are not set"
    );
    let _ = std::fs::remove_file(&tmp);
}

#[test]
fn run_without_files_uses_the_built_in_chain() {
    let live = data("live-workload.yaml");
    // no layer serves a Workload's health: the built-in chain reports it
    let out = cli(&[
        "run",
        "--operation",
        "InterpretHealth",
        "--observed-file",
        live.to_str().unwrap(),
    ]);
    assert!(text(&out.stderr).starts_with("Execute InterpretHealth error:"));
}

/// `run` says which layer answered (on stderr; stdout keeps karmadactl's
/// format), with `-f` and without, and `-f` means customization files in
/// every command (`--customization` is an alias).
#[test]
fn run_names_the_layer_that_answered_and_f_means_the_same_everywhere() {
    let rules = data("check-example.yaml");
    let live = data("live-workload.yaml");
    let tmp = std::env::temp_dir().join(format!("karmada-cli-layer-{}.yaml", std::process::id()));
    let all = std::fs::read_to_string(&rules).unwrap();
    std::fs::write(&tmp, all.split("\n---\n").next().unwrap()).unwrap();
    for format in ["yaml", "json"] {
        let out = cli_ok(&[
            "run",
            "-f",
            tmp.to_str().unwrap(),
            "--operation",
            "InterpretHealth",
            "--observed-file",
            live.to_str().unwrap(),
            "-o",
            format,
        ]);
        assert!(
            text(&out.stderr).starts_with("served by declarative ("),
            "{}",
            text(&out.stderr)
        );
        if format == "json" {
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(
                v["servedBy"].as_str().unwrap().starts_with("declarative ("),
                "{v}"
            );
        }
    }
    let pod = std::env::temp_dir().join(format!("karmada-cli-pod-{}.yaml", std::process::id()));
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nstatus: {phase: Running}\n",
    )
    .unwrap();
    let out = cli_ok(&[
        "run",
        "--operation",
        "InterpretStatus",
        "--observed-file",
        pod.to_str().unwrap(),
    ]);
    assert!(
        text(&out.stderr).starts_with("served by native ("),
        "{}",
        text(&out.stderr)
    );
    for command in ["check", "run", "test", "list", "serve"] {
        let help = text(&cli(&[command, "--help"]).stdout);
        assert!(help.contains("-f, --filename <FILE>"), "{command}: {help}");
    }
    let list = cli_ok(&["list", "--customization", tmp.to_str().unwrap()]);
    assert!(text(&list.stdout).contains("declarative"));
    let _ = std::fs::remove_file(&tmp);
    let _ = std::fs::remove_file(&pod);
}

/// Without `--status-file`, AggregateStatus gets `nil` items, as karmadactl
/// passes them (an empty list is a different input).
#[test]
fn run_aggregate_status_without_status_file_passes_nil_items() {
    let live = data("live-workload.yaml");
    let doc = std::fs::read_to_string(&live).unwrap();
    let v: serde_json::Value = karmada_interpreter::yaml::from_str(&doc).unwrap();
    let rules = Customization::new(
        "nil-items",
        v["apiVersion"].as_str().unwrap(),
        v["kind"].as_str().unwrap(),
    )
    .rule(
        "statusAggregation",
        "function AggregateStatus(d, items)\n  d.status = {itemsAreNil = items == nil}\n  return d\nend",
    )
    .yaml();
    let tmp =
        std::env::temp_dir().join(format!("karmada-cli-nil-items-{}.yaml", std::process::id()));
    std::fs::write(&tmp, rules).unwrap();
    let out = cli(&[
        "run",
        "-f",
        tmp.to_str().unwrap(),
        "--operation",
        "AggregateStatus",
        "--desired-file",
        live.to_str().unwrap(),
        "-o",
        "json",
    ]);
    let _ = std::fs::remove_file(&tmp);
    assert_ok(&out, "run --operation AggregateStatus");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["aggregatedStatus"]["status"]["itemsAreNil"],
        serde_json::json!(true),
        "{v}"
    );
}
