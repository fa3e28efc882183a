//! Karmada's own corpora, run whenever the shared folder sits next to the
//! repository (skipped cleanly when it does not):
//!
//! - Karmada's bundled customizations with their test data (Karmada's layout:
//!   each `testdata/` folder runs against the `customizations.yaml` beside it),
//!   so Karmada's scripts must give Karmada's answers through our engine;
//! - the same test data without those customizations, answered by the
//!   project's bundled set (known deviations listed in COMPATIBILITY.md);
//! - the reference cases produced by Karmada's code.

use std::path::{Path, PathBuf};

use karmada_interpreter_golden::{Report, Runner};

fn corpus(name: &str) -> Option<PathBuf> {
    crate::support::shared(name)
}

fn assert_no_failure(report: &Report, what: &str) {
    let failures: Vec<String> = report
        .cases
        .iter()
        .filter(|c| matches!(c.verdict, karmada_interpreter_golden::Verdict::Failed(_)))
        .map(|c| c.render())
        .collect();
    assert!(report.passed() > 0, "{what}: no case ran");
    assert!(
        failures.is_empty(),
        "{what}: {}\n{}",
        report.summary_line(),
        failures.join("\n")
    );
}

/// Copies every `testdata/` folder under `from` (and nothing else) to the
/// same relative place under `to`.
fn copy_testdata(from: &Path, to: &Path, rel: &Path) {
    let Ok(entries) = std::fs::read_dir(from.join(rel)) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let sub = rel.join(entry.file_name());
        if entry.file_name() == "testdata" {
            std::fs::create_dir_all(to.join(&sub)).unwrap();
            for file in std::fs::read_dir(&path).unwrap().flatten() {
                if file.path().is_file() {
                    std::fs::copy(file.path(), to.join(&sub).join(file.file_name())).unwrap();
                }
            }
        } else {
            copy_testdata(from, to, &sub);
        }
    }
}

#[test]
fn karmada_scripts_give_karmadas_answers_through_our_engine() {
    let Some(dir) = corpus("karmada-customizations") else {
        return;
    };
    let report = Runner::default().run(&[dir]).unwrap();
    assert_no_failure(&report, "karmada-customizations");
}

#[test]
fn karmada_test_data_against_the_bundled_set() {
    let Some(dir) = corpus("karmada-customizations") else {
        return;
    };
    let tmp = std::env::temp_dir().join(format!("karmada-testdata-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    copy_testdata(&dir, &tmp, Path::new(""));
    let report = Runner::default().run(std::slice::from_ref(&tmp));
    let _ = std::fs::remove_dir_all(&tmp);
    assert_no_failure(
        &report.unwrap(),
        "karmada test data against the bundled set",
    );
}

#[test]
fn reference_cases() {
    let Some(dir) = corpus("reference-cases") else {
        return;
    };
    let report = Runner::default().run(&[dir]).unwrap();
    assert_no_failure(&report, "reference-cases");
}
