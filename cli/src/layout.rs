//! Warnings about Karmada's layout for `check` and `test`: a customization
//! whose target differs from its `<group>/<version>/<Kind>` folder, and,
//! for cases nothing served, which target the folder's customization serves.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use karmada_interpreter::lint::layout_mismatch;
use karmada_interpreter::load;
use karmada_interpreter_golden::{CaseFile, Report, Verdict};

/// Prints a warning for each customization of `files` whose target
/// differs from its folder.
pub fn warn_mismatches(files: impl IntoIterator<Item = PathBuf>) {
    for file in files.into_iter().collect::<BTreeSet<_>>() {
        for c in load::customizations_from_file(&file).unwrap_or_default() {
            if let Some(warning) = layout_mismatch(&file, &c) {
                eprintln!("warning: {}: {warning}", file.display());
            }
        }
    }
}

/// Adds to each case that failed because nothing serves its object, and
/// that sits next to a customization (Karmada's layout), the targets that
/// customization serves: the failure names the target the case reached.
pub fn explain_not_served(report: &mut Report, case_files: &[CaseFile]) {
    let mut served: BTreeMap<&Path, String> = BTreeMap::new();
    for file in case_files {
        let Some(customization) = &file.customization else {
            continue;
        };
        served.entry(customization).or_insert_with(|| {
            load::customizations_from_file(customization)
                .unwrap_or_default()
                .iter()
                .map(|c| format!("{} {}", c.spec.target.api_version, c.spec.target.kind))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
                .join(", ")
        });
    }
    let by_case: BTreeMap<&Path, &Path> = case_files
        .iter()
        .filter_map(|f| Some((f.path.as_path(), f.customization.as_deref()?)))
        .collect();
    for case in &mut report.cases {
        let Verdict::Failed(lines) = &mut case.verdict else {
            continue;
        };
        let Some(customization) = by_case.get(case.file.as_path()) else {
            continue;
        };
        if lines.iter().any(|l| l.contains(" is not served for ")) {
            let targets = served.get(customization).map_or("", String::as_str);
            lines.push(format!(
                "note: the case reached the target named above; {} next to it serves {}",
                customization.display(),
                if targets.is_empty() {
                    "nothing"
                } else {
                    targets
                }
            ));
        }
    }
}
