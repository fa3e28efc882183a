//! The command line as a new user meets it: shell completions, the default
//! case set wherever the binary runs, pointers instead of bare clap errors,
//! and every offline command of the README run as written.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_karmada-interpreter"))
}

/// An empty folder of this test's own under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("new_user-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

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
        "check", "run", "test", "list", "serve", "lint", "init", "completions",
    ];
    for shell in ["bash", "zsh", "fish"] {
        let out = bin().args(["completions", shell]).output().unwrap();
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{shell}: {stderr}");
        assert!(stdout.contains("karmada-interpreter"), "{shell}: {stdout}");
        for sub in subcommands {
            assert!(stdout.contains(sub), "{shell} script lacks `{sub}`");
        }
    }
    let out = bin().args(["completions", "tcsh"]).output().unwrap();
    assert!(!out.status.success());
}
