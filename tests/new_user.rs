//! The command line as a new user meets it: shell completions, the default
//! case set wherever the binary runs, pointers instead of bare clap errors,
//! and every offline command of the README and the command-line guides run as
//! written.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::support::run_ok;

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `completions bash|zsh|fish` prints a non-empty script for each shell that
/// names every subcommand.
#[test]
fn completions_name_every_subcommand_for_each_shell() {
    let subcommands = [
        "check",
        "run",
        "test",
        "list",
        "serve",
        "lint",
        "init",
        "bench",
        "completions",
    ];
    for shell in ["bash", "zsh", "fish"] {
        let out = run_ok(crate::support::bin().args(["completions", shell]));
        let (stdout, _) = text(&out);
        assert!(stdout.contains("karmada-interpreter"), "{shell}: {stdout}");
        for sub in subcommands {
            assert!(stdout.contains(sub), "{shell} script lacks `{sub}`");
        }
    }
    let out = crate::support::bin()
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// `test` with no path runs the bundled cases embedded in the binary, from
/// any folder (here an empty one), names them, and passes.
#[test]
fn test_without_a_path_runs_the_embedded_bundled_cases_anywhere() {
    let dir = crate::support::scratch("empty-cwd");
    let out = run_ok(crate::support::bin().arg("test").current_dir(&dir));
    let (stdout, _) = text(&out);
    let first = stdout.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("bundled cases: ") && first.contains("embedded in the binary"),
        "{stdout}"
    );
    let summary = stdout.lines().last().unwrap_or_default();
    let passed: usize = summary
        .split(" passed")
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary: {stdout}"));
    assert!(
        passed >= karmada_interpreter::thirdparty::bundled_kinds().count(),
        "{summary}"
    );
    assert!(summary.contains(" 0 failed"), "{summary}");
    // -v names each case by its bundled path.
    let out = crate::support::bin()
        .args(["test", "-v"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("thirdparty/apps.kruise.io/v1alpha1/CloneSet/testdata/"),
        "{stdout}"
    );
}

/// `run --check` points at the `check` command instead of clap's bare
/// "unexpected argument".
#[test]
fn run_check_points_at_the_check_command() {
    let out = crate::support::bin()
        .args(["run", "--check", "-f", "customizations.yaml"])
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("karmada-interpreter check -f"), "{stderr}");
}

/// `serve -f` with a customization whose script does not compile refuses to
/// start, naming the file, the customization and the rule.
#[test]
fn serve_refuses_a_customization_that_does_not_compile() {
    let dir = crate::support::scratch("broken-serve");
    let file = dir.join("broken.yaml");
    std::fs::write(
        &file,
        r#"apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: broken-widget
spec:
  target:
    apiVersion: example.io/v1
    kind: Widget
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.status.ready ==
        end
"#,
    )
    .unwrap();
    // Bounded: a server that starts anyway is killed after 30 s.
    let mut child = crate::support::bin()
        .args(["serve", "--listen", "127.0.0.1:0", "-f"])
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for needle in [
        file.display().to_string().as_str(),
        "broken-widget",
        "InterpretHealth",
        "does not compile",
    ] {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr}");
    }
}

/// A YAML error in a multi-document case file names the file and the file's
/// line (not the document's), in words, with no `<input>` snippet label.
#[test]
fn yaml_errors_name_the_file_and_its_line() {
    let dir = crate::support::scratch("yaml-errors");
    let file = dir.join("cases.yaml");
    std::fs::write(
        &file,
        "name: first\noperation: InterpretHealth\nobservedObj: {apiVersion: v1, kind: Pod}\noutput: {healthy: true}\n---\nname: second\noperation: [unclosed\n",
    )
    .unwrap();
    let out = crate::support::bin()
        .arg("test")
        .arg(&file)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    let all = format!("{stdout}{stderr}");
    assert!(!out.status.success(), "{all}");
    assert!(all.contains(&file.display().to_string()), "{all}");
    assert!(all.contains("line 7, column"), "{all}");
    assert!(!all.contains("<input>"), "{all}");
}

/// The documents whose shell commands a new user runs as written: the front
/// page, the command-line guide and the performance guide (`bench`).
const DOCUMENTS_RUN: [&str; 3] = ["README.md", "docs/cli.md", "docs/performance.md"];

/// The commands of a document's ```sh blocks (continuation lines joined,
/// comments dropped).
fn sh_commands(doc: &str) -> Vec<String> {
    let path = PathBuf::from(crate::support::ROOT).join(doc);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{doc}: {e}"));
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let line = match line.find(" #") {
            Some(at) => &line[..at],
            None if line.trim_start().starts_with('#') => "",
            None => line,
        };
        match line.trim_end().strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(line);
                let command = std::mem::take(&mut pending).trim().to_owned();
                if !command.is_empty() {
                    commands.push(command);
                }
            }
        }
    }
    commands
}

/// Why a documented command is not run offline here, or `None` to run it.
fn skip_reason(command: &str) -> Option<&'static str> {
    if command.starts_with("cargo ") || command.contains(" cargo ") {
        Some("builds the project (this test runs the binary that build made)")
    } else if command.starts_with("ANCHOR_DIR=") {
        Some("needs Karmada's reference binaries (the anchor build)")
    } else if command.starts_with("docker ") {
        Some("needs a container builder")
    } else if command.contains("--webhook-config") {
        Some("needs a running webhook")
    } else if command.contains(" serve") && !command.contains("--print-config") {
        Some("serves until stopped")
    } else if command.contains(" [") {
        Some("a synopsis, not a command")
    } else if command.contains("--profile karmada-next") && !cfg!(feature = "karmada-next") {
        Some("needs a build with the cargo feature karmada-next")
    } else {
        None
    }
}

/// Files the documents' examples name, as a user would have them.
fn readme_fixtures(dir: &std::path::Path) {
    let root = PathBuf::from(crate::support::ROOT);
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("thirdparty"), dir.join("thirdparty")).unwrap();
    // An Argo CD-format health-check folder (the project's own fixture).
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        root.join("tests/data/health-checks"),
        dir.join("resource_customizations"),
    )
    .unwrap();
    // A Flux healthCheckExprs rule file (the project's own fixture; it has a
    // rule for obj.yaml's Widget).
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        root.join("tests/data/health-exprs/rules.yaml"),
        dir.join("health.yaml"),
    )
    .unwrap();
    std::fs::write(
        dir.join("obj.yaml"),
        "apiVersion: example.io/v1\nkind: Widget\nmetadata: {name: w, namespace: shop, generation: 2}\nstatus: {observedGeneration: 1}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("my-customizations.yaml"),
        r#"apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: deployment-replicas
spec:
  target:
    apiVersion: apps/v1
    kind: Deployment
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(desiredObj)
          return desiredObj.spec.replicas, {}
        end
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("flink.yaml"),
        "apiVersion: flink.apache.org/v1beta1\nkind: FlinkDeployment\nmetadata: {name: f, namespace: default}\nspec:\n  jobManager: {replicas: 1}\n  taskManager: {replicas: 1}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("components.yaml"),
        "- {name: jobmanager, replicas: 1}\n- {name: taskmanager, replicas: 3}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("deploy.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers: [{name: web, image: nginx}]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("items.yaml"),
        "clusterName: member1\napplied: true\nstatus: {replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2}\n---\nclusterName: member2\napplied: true\nstatus: {replicas: 1, readyReplicas: 1, updatedReplicas: 1, availableReplicas: 1}\n",
    )
    .unwrap();
    // `customizations/` of the CI step: a folder `init` wrote.
    run_ok(
        crate::support::bin()
            .args(["init", "example.io/v1", "Gadget", "customizations"])
            .current_dir(dir),
    );
}

/// Every command of the README and the guides (`DOCUMENTS_RUN`) that runs
/// offline works as written, each document in a fresh folder holding the
/// files the examples name (the built binary on PATH). A redirect to a
/// system location (shell completions) is checked on stdout.
#[cfg(unix)]
#[test]
fn readme_commands_work_as_written() {
    let bin_dir = PathBuf::from(crate::support::BIN)
        .parent()
        .unwrap()
        .to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = Vec::new();
    for doc in DOCUMENTS_RUN {
        let dir = crate::support::scratch("readme");
        readme_fixtures(&dir);
        let mut ran_here = 0;
        for command in sh_commands(doc) {
            if skip_reason(&command).is_some() {
                continue;
            }
            // `> /etc/...`, `> ~/...`, `> "${fpath[1]}/..."`: outside the folder.
            let (to_run, check_stdout) = match command.split_once(" > ") {
                Some((head, target))
                    if target.starts_with('/')
                        || target.starts_with('~')
                        || target.starts_with('"') =>
                {
                    (head.to_owned(), true)
                }
                _ => (command.clone(), false),
            };
            let out = Command::new("sh")
                .args(["-c", &to_run])
                .current_dir(&dir)
                .env("PATH", &path)
                .output()
                .unwrap();
            let (stdout, stderr) = text(&out);
            assert!(
                out.status.success(),
                "{doc}: `{command}` failed:\n{stdout}\n{stderr}"
            );
            if check_stdout {
                assert!(
                    !stdout.trim().is_empty(),
                    "{doc}: `{command}` printed nothing"
                );
            }
            ran_here += 1;
            ran.push(format!("{doc}: {command}"));
        }
        assert!(ran_here > 0, "{doc}: no command ran: {ran:#?}");
    }
    for needle in [
        "serve --cert-dir ./certs --print-config",
        "init example.io/v1",
        "lint --deny-warnings",
        "bench ",
        "completions bash",
    ] {
        assert!(
            ran.iter().any(|c| c.contains(needle)),
            "no `{needle}` command ran: {ran:#?}"
        );
    }
    eprintln!("documented commands run: {ran:#?}");
    assert!(
        ran.len() >= 20,
        "only {} documented commands ran: {ran:#?}",
        ran.len()
    );
}
