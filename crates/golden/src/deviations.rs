//! Known deviations from Karmada, read from the project's compatibility
//! document (`COMPATIBILITY.md`): the one place that lists every golden case
//! the project deliberately answers differently, with the reason.
//!
//! Rows of the table under the heading `## Known deviations` have the form
//! `` | `path/of/case-file.yaml` | `case name` | reason | ``; the path is
//! matched as a suffix of the case file's path.

use std::path::Path;

/// One deliberate difference from Karmada.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deviation {
    /// Case file path suffix, e.g. `native/apps/v1/StatefulSet/aggregatestatus-test.yaml`.
    pub file: String,
    /// The case's `name`.
    pub case: String,
    /// Why the project differs.
    pub reason: String,
}

/// The list of known deviations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deviations(pub Vec<Deviation>);

/// The compatibility document shipped with the crate.
pub const COMPATIBILITY_MD: &str = include_str!("../COMPATIBILITY.md");

impl Deviations {
    /// The deviations listed in the crate's own `COMPATIBILITY.md`.
    pub fn project() -> Self {
        Self::parse_markdown(COMPATIBILITY_MD)
    }

    /// Reads the `## Known deviations` table of a markdown document.
    ///
    /// ```
    /// use karmada_interpreter_golden::Deviations;
    ///
    /// let d = Deviations::parse_markdown("## Known deviations\n\n| file | case | reason |\n|---|---|---|\n| `native/a.yaml` | `x` | because |\n");
    /// assert_eq!(d.0[0].case, "x");
    /// assert!(d.find("/tmp/ref/native/a.yaml".as_ref(), "x").is_some());
    /// ```
    pub fn parse_markdown(text: &str) -> Self {
        let mut out = Vec::new();
        let mut inside = false;
        for line in text.lines() {
            let trimmed = line.trim();
            if let Some(heading) = trimmed.strip_prefix("## ") {
                inside = heading.trim().eq_ignore_ascii_case("known deviations");
                continue;
            }
            if !inside || !trimmed.starts_with('|') {
                continue;
            }
            let cells: Vec<&str> = trimmed
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim())
                .collect();
            if cells.len() < 3 || cells[0].starts_with("---") || cells[0].starts_with(":-") {
                continue;
            }
            let unquote = |c: &str| c.trim_matches('`').trim_matches('"').to_owned();
            let file = unquote(cells[0]);
            if !file.ends_with(".yaml") && !file.ends_with(".yml") {
                continue; // the header row
            }
            out.push(Deviation {
                file,
                case: unquote(cells[1]),
                reason: cells[2..].join(" | "),
            });
        }
        Self(out)
    }

    /// The deviation listed for a case, if any.
    pub fn find(&self, file: &Path, case: &str) -> Option<&Deviation> {
        self.0
            .iter()
            .find(|d| d.case == case && file.ends_with(Path::new(&d.file)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_document_parses() {
        let d = Deviations::project();
        for dev in &d.0 {
            assert!(!dev.reason.trim().is_empty(), "{dev:?} has no reason");
        }
    }

    #[test]
    fn path_suffix_matching_is_per_component() {
        let d = Deviations::parse_markdown(
            "## Known deviations\n| `v1/Job/a.yaml` | `c` | r |\n## Other\n| `x.yaml` | `c` | r |\n",
        );
        assert_eq!(d.0.len(), 1);
        assert!(d.find(Path::new("ref/batch/v1/Job/a.yaml"), "c").is_some());
        assert!(d.find(Path::new("ref/batch/xv1/Job/a.yaml"), "c").is_none());
        assert!(d.find(Path::new("ref/batch/v1/Job/a.yaml"), "d").is_none());
    }
}
