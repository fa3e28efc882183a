//! `--composition` on the command line (docs/composition.md): `run`,
//! `lint` and `explain` with two Deployment Retain customizations, one
//! extending the native answer with `kube.below()`.

use crate::support::{cli, cli_ok, text};

const TEAMS: &str = "tests/data/composition/teams.yaml";
const DESIRED: &str = "tests/data/composition/desired.yaml";
const OBSERVED: &str = "tests/data/composition/observed.yaml";

fn retain(composition: bool) -> std::process::Output {
    let mut args = vec![
        "run",
        "--operation",
        "Retain",
        "-f",
        TEAMS,
        "--desired-file",
        DESIRED,
        "--observed-file",
        OBSERVED,
        "-o",
        "json",
    ];
    if composition {
        args.insert(0, "--composition");
    }
    cli(&args)
}

#[test]
fn run_composes_both_teams_and_the_native_retain_only_when_asked() {
    let out = retain(true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["servedBy"], "declarative (b-team,a-team)");
    let kept = &answer["retained"];
    // b-team (order 10) labelled it, then a-team (order 20) took the native
    // Retain of that (the member's replicas) and added spec.paused.
    assert_eq!(kept["metadata"]["labels"]["team"], "b");
    assert_eq!(kept["spec"]["replicas"], 5);
    assert_eq!(kept["spec"]["paused"], true);

    // Off: Karmada's first by name (a-team), whose kube.below does not exist.
    let out = retain(false);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("customization \"a-team\"")
            && stderr.contains("attempt to call a non-function object"),
        "{stderr}"
    );

    // The built-in layers stay behind the files only for kube.below: an
    // operation the files do not define is still not enabled.
    let out = cli(&[
        "--composition",
        "run",
        "--operation",
        "InterpretReplica",
        "-f",
        TEAMS,
        "--desired-file",
        DESIRED,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("rule is not enabled"));
}

#[test]
fn lint_knows_kube_below_only_with_composition() {
    let out = cli(&["lint", TEAMS]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("teams.yaml:13:29: error[sandbox]: `kube.below` exists only with composition on (`--composition`"),
        "{stdout}"
    );
    let out = cli_ok(&["--composition", "lint", TEAMS]);
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn explain_shows_what_composes_and_what_kube_below_reaches() {
    let args = [
        "explain",
        "-f",
        TEAMS,
        "--desired-file",
        DESIRED,
        "--observed-file",
        OBSERVED,
        "--operation",
        "Retain",
    ];
    let mut on = vec!["--composition"];
    on.extend(args);
    let out = cli_ok(&on);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "Retain: declarative (b-team,a-team)\n    composed, each on the previous result: b-team, then a-team\n    kube.below(): native (apps/v1/Deployment Retain)\n"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("lua lines that ran (a-team):"), "{stdout}");
    assert!(stdout.contains("lua lines that ran (b-team):"), "{stdout}");

    on.extend(["-o", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&cli_ok(&on).stdout).unwrap();
    let retain = doc["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["operation"] == "Retain")
        .unwrap();
    assert_eq!(
        retain["composed"]["inOrder"],
        serde_json::json!(["b-team", "a-team"])
    );
    assert_eq!(retain["composed"]["below"]["layer"], "native");

    // Off: one customization answers and nothing composes.
    let stdout = text(&cli_ok(&args).stdout);
    assert!(
        stdout.contains("Retain: declarative (a-team)\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("composed"), "{stdout}");
}

#[test]
fn test_with_coverage_credits_every_composed_script() {
    let out = cli_ok(&[
        "--composition",
        "test",
        "-f",
        TEAMS,
        "tests/data/composition/retain-case.yaml",
        "--coverage",
    ]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("1 passed, 0 failed"), "{stdout}");
    assert!(
        stdout.contains("teams.yaml: a-team/Retain: 5/5 lines (100%)")
            && stdout.contains("teams.yaml: b-team/Retain: 4/4 lines (100%)"),
        "{stdout}"
    );
}
