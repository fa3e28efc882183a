//! The `karmada-next` profile (Karmada's open pull requests): off by
//! default, `ReviseComponents` is refused naming the profile; with the cargo
//! feature and `--profile karmada-next`, `run`, `test`, `serve` and the
//! webhook client give the answers Karmada's code with PR #7830 gave on the
//! golden cases in `conformance/karmada-next`.

use std::path::PathBuf;
use std::process::Command;

use crate::support::{BIN, ROOT};

fn cases() -> PathBuf {
    PathBuf::from(ROOT).join("conformance/karmada-next")
}

/// A FlinkDeployment to run `ReviseComponents` on.
fn flink_object(dir: &std::path::Path) -> PathBuf {
    let object = dir.join("flink.yaml");
    std::fs::write(
        &object,
        "apiVersion: flink.apache.org/v1beta1\nkind: FlinkDeployment\nmetadata: {name: basic-example, namespace: default}\nspec:\n  jobManager: {replicas: 1}\n  taskManager: {replicas: 1}\n",
    )
    .unwrap();
    object
}

#[test]
fn revise_components_is_refused_naming_the_profile_when_it_is_off() {
    let dir = crate::support::scratch("next-off");
    let object = flink_object(&dir);
    let out = Command::new(BIN)
        .args(["run", "--operation", "ReviseComponents", "--desired-file"])
        .arg(&object)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("operation ReviseComponents belongs to the karmada-next profile"),
        "{stderr}"
    );
    #[cfg(feature = "karmada-next")]
    assert!(stderr.contains("which is off"), "{stderr}");
    #[cfg(not(feature = "karmada-next"))]
    assert!(stderr.contains("cargo feature `karmada-next`"), "{stderr}");
    // The profile's cases are skipped, each saying why.
    let out = Command::new(BIN).arg("test").arg(cases()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("0 passed, 0 failed, 72 skipped"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(not(feature = "karmada-next"))]
#[test]
fn the_profile_switch_needs_the_feature() {
    let out = Command::new(BIN)
        .args(["--profile", "karmada-next", "list"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("build with the cargo feature `karmada-next`"),
        "{stderr}"
    );
}

#[cfg(feature = "karmada-next")]
#[test]
fn run_and_test_give_the_answers_of_karmada_with_pr_7830() {
    use crate::support::run_ok;
    let out = run_ok(
        Command::new(BIN)
            .args(["--profile", "karmada-next", "test"])
            .arg(cases()),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("72 passed, 0 failed"), "{stdout}");

    // `run` on each Flink case with an output: the golden output, which
    // Karmada's code with the PR produced.
    let dir = crate::support::scratch("next-run");
    let mut compared = 0;
    for case in
        karmada_interpreter_golden::load_cases(&cases().join("flink/revisecomponents-test.yaml"))
    {
        let case = case.unwrap();
        let Some(expected) = case.output.get("revised") else {
            continue;
        };
        let object = dir.join("object.json");
        let components = dir.join("components.json");
        std::fs::write(&object, serde_json::to_vec(&case.desired).unwrap()).unwrap();
        std::fs::write(
            &components,
            serde_json::to_vec(&case.input_components).unwrap(),
        )
        .unwrap();
        let out = run_ok(
            Command::new(BIN)
                .args([
                    "--profile",
                    "karmada-next",
                    "run",
                    "--operation",
                    "ReviseComponents",
                ])
                .args(["-o", "json", "--desired-file"])
                .arg(&object)
                .arg("--components-file")
                .arg(&components),
        );
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(&answer["revised"], expected, "{}", case.name);
        compared += 1;
    }
    assert_eq!(compared, 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "karmada-next")]
#[test]
fn serve_and_the_webhook_client_answer_revise_components_over_the_wire() {
    use karmada_interpreter::profile::Profile;
    use karmada_interpreter_golden::{Runner, Verdict, WebhookBackend};
    use std::process::Stdio;

    use crate::webhook_serve::start_serve;

    let dir = crate::support::scratch("next-serve");
    let config = dir.join("webhook.json");
    let kinds = cases().join("testing.karmada.io/v1alpha1");
    let guard = start_serve(
        Command::new(BIN)
            .args([
                "--profile",
                "karmada-next",
                "serve",
                "--listen",
                "127.0.0.1:0",
            ])
            .args(["--log-level", "warn", "-f"])
            .arg(kinds.join("MultiComponentWorkload/customizations.yaml"))
            .arg("-f")
            .arg(kinds.join("ComponentProbe/customizations.yaml"))
            .arg("-f")
            .arg(kinds.join("FlinkMemoryProbe/customizations.yaml"))
            .stderr(Stdio::null()),
        &config,
    );
    let configs = karmada_interpreter::load::webhook_configurations_from_file(&config).unwrap();

    // The client sends the assignment in `components`; the server answers
    // with a patch. An empty assignment (two cases) is omitted on the wire
    // (Go's omitempty), so those cases are skipped, saying so; an empty
    // status list (one Job case) runs as an absent one, as Karmada sends it.
    let runner = Runner::new(
        WebhookBackend::new(configs.clone())
            .unwrap()
            .with_profile(Profile::KarmadaNext),
    );
    let report = runner.run(&[cases()]).unwrap();
    let failures: Vec<String> = report
        .cases
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Failed(_)))
        .map(|c| c.render())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        (report.passed(), report.skipped()),
        (70, 2),
        "{}",
        report.summary_line()
    );

    // Without the profile the client does not send the profile's cases.
    let report = Runner::new(WebhookBackend::new(configs).unwrap())
        .run(&[cases()])
        .unwrap();
    assert_eq!(
        (report.passed(), report.skipped()),
        (0, 72),
        "{}",
        report.summary_line()
    );
    drop(guard);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `check` reports a `componentRevision` rule as PR #7830's
/// `karmadactl interpret --check` does: the same table, the
/// `ReviseComponents` row between `ReviseReplica` and `InterpretStatus`, and
/// the compile error in the same words. (Both texts below are what the PR's
/// karmadactl printed for these documents.) Without the profile the rule is
/// a key released Karmada ignores, and the row is not there.
#[cfg(feature = "karmada-next")]
#[test]
fn check_reports_the_component_revision_rule_as_karmadactl_with_pr_7830() {
    let dir = crate::support::scratch("next-check");
    let doc = |name: &str, script: &str| {
        let path = dir.join(format!("{name}.yaml"));
        std::fs::write(
            &path,
            format!(
                "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\n\
                 metadata:\n  name: {name}\nspec:\n  target:\n    apiVersion: testing.karmada.io/v1alpha1\n    kind: W\n\
                 \x20 customizations:\n    componentRevision:\n      luaScript: |\n{script}"
            ),
        )
        .unwrap();
        path
    };
    let check = |profile: &str, path: &PathBuf| {
        let out = Command::new(BIN)
            .args(["--profile", profile, "check", "-f"])
            .arg(path)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let table = |name: &str, row: &str| {
        format!(
            "-----------------------------------\nSOURCE: {name}\nTARGET: testing.karmada.io/v1alpha1 W   \nRULERS:\n\
             \x20   Retain:                             UNSET\n\
             \x20   InterpretReplica:                   UNSET\n\
             \x20   InterpretComponent:                 UNSET\n\
             \x20   ReviseReplica:                      UNSET\n\
             {row}\
             \x20   InterpretStatus:                    UNSET\n\
             \x20   AggregateStatus:                    UNSET\n\
             \x20   InterpretHealth:                    UNSET\n\
             \x20   InterpretDependency:                UNSET\n"
        )
    };
    let defined =
        "        function ReviseComponents(desiredObj, components)\n          return desiredObj\n";
    let good = doc("good", &format!("{defined}        end\n"));
    let broken = doc("broken", defined);
    for (profile, path, name, code, row) in [
        (
            "karmada-next",
            &good,
            "good",
            0,
            "    ReviseComponents:                   PASS\n",
        ),
        ("karmada", &good, "good", 0, ""),
        (
            "karmada-next",
            &broken,
            "broken",
            1,
            "    ReviseComponents:                   ERROR: <string> at EOF:   syntax error   \n",
        ),
    ] {
        assert_eq!(
            check(profile, path),
            (Some(code), table(name, row)),
            "{profile} {name}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
