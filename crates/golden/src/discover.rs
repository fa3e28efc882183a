//! Finding case files, and the customization that goes with them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::error::{GoldenError, Result};

/// A case file and, in Karmada's layout, the `customizations.yaml` that
/// serves its cases.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CaseFile {
    /// The case file.
    pub path: PathBuf,
    /// `<dir>/customizations.yaml` when the case file sits in `<dir>/testdata/`.
    pub customization: Option<PathBuf>,
}

/// Case files under `paths`: a file named on the command line is a case file;
/// directories are searched recursively for `*.yaml`/`*.yml` files except
/// `customizations.yaml`/`.yml`. Sorted, without duplicates.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<CaseFile>> {
    let mut files = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|source| GoldenError::Io {
            path: path.clone(),
            source,
        })?;
        if meta.is_dir() {
            walk(path, &mut files)?;
        } else {
            files.push(path.clone());
        }
    }
    // Each real file once, however many links or paths lead to it, under
    // the path that involves no link when there is one.
    let mut keyed: Vec<(bool, PathBuf, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let real = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
            (real != p, p, real)
        })
        .collect();
    keyed.sort();
    let mut seen_files = HashSet::new();
    let mut files: Vec<PathBuf> = keyed
        .into_iter()
        .filter(|(_, _, real)| seen_files.insert(real.clone()))
        .map(|(_, p, _)| p)
        .collect();
    files.sort();
    Ok(files
        .into_iter()
        .map(|path| CaseFile {
            customization: customization_for(&path),
            path,
        })
        .collect())
}

/// The text of the file at `path` ([`GoldenError::Io`] naming it when it
/// cannot be read).
pub(crate) fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| GoldenError::Io {
        path: path.to_owned(),
        source,
    })
}

/// Collects the case files under `dir` with the one walker of Karmada's
/// layout (each real directory entered once, so a symlink loop ends).
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let found =
        karmada_interpreter_layout::files(dir, |path, _| is_case_file(path)).map_err(|e| {
            GoldenError::Io {
                path: e.path,
                source: e.source,
            }
        })?;
    files.extend(found);
    Ok(())
}

fn is_case_file(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str());
    let stem = path.file_stem().and_then(|s| s.to_str());
    matches!(ext, Some("yaml" | "yml")) && stem != Some("customizations")
}

/// A directory holding a file of this name contains cases meant only for
/// webhooks (e.g. the example Workload webhook's): runs against the
/// built-in chain skip them.
pub const WEBHOOK_ONLY_MARKER: &str = "WEBHOOK-ONLY";

/// Whether `case_file` sits under a directory marked [`WEBHOOK_ONLY_MARKER`].
pub fn is_webhook_only(case_file: &Path) -> bool {
    under_marker(case_file, WEBHOOK_ONLY_MARKER)
}

/// Whether a directory above `case_file` holds a file named `marker`.
fn under_marker(case_file: &Path, marker: &str) -> bool {
    case_file
        .ancestors()
        .skip(1)
        .any(|dir| dir.join(marker).is_file())
}

/// A directory holding a file of this name contains cases of the
/// `karmada-next` profile (Karmada's open pull requests): runs without the
/// profile skip them, saying why.
pub const KARMADA_NEXT_MARKER: &str = "KARMADA-NEXT";

/// Whether `case_file` sits under a directory marked [`KARMADA_NEXT_MARKER`].
pub fn is_karmada_next(case_file: &Path) -> bool {
    under_marker(case_file, KARMADA_NEXT_MARKER)
}

/// Karmada's layout: `<dir>/customizations.yaml` next to `<dir>/testdata/`.
fn customization_for(case: &Path) -> Option<PathBuf> {
    case.ancestors()
        .skip(1)
        .find(|a| a.file_name().is_some_and(|n| n == "testdata"))
        .and_then(Path::parent)
        .and_then(|dir| {
            ["customizations.yaml", "customizations.yml"]
                .iter()
                .map(|f| dir.join(f))
                .find(|p| p.is_file())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cases_and_their_customization() {
        let root = std::env::temp_dir().join(format!("ki-discover-{}", std::process::id()));
        let kind = root.join("example.io/v1/Thing");
        std::fs::create_dir_all(kind.join("testdata")).unwrap();
        std::fs::write(kind.join("customizations.yaml"), "x").unwrap();
        std::fs::write(kind.join("testdata/health-test.yaml"), "x").unwrap();
        std::fs::write(kind.join("testdata/notes.txt"), "x").unwrap();
        std::fs::write(root.join("loose.yml"), "x").unwrap();
        let found = discover(std::slice::from_ref(&root)).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(found.len(), 2, "{found:?}");
        let case = found
            .iter()
            .find(|c| c.path.ends_with("health-test.yaml"))
            .unwrap();
        assert!(case
            .customization
            .as_ref()
            .unwrap()
            .ends_with("Thing/customizations.yaml"));
        let loose = found
            .iter()
            .find(|c| c.path.ends_with("loose.yml"))
            .unwrap();
        assert_eq!(loose.customization, None);
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_count_each_real_file_once() {
        let root = std::env::temp_dir().join(format!("ki-discover-loop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let inner = root.join("a/b");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(root.join("a/health-test.yaml"), "x").unwrap();
        // b/up -> a and b/self -> b: loops; b/same.yaml -> the case file.
        std::os::unix::fs::symlink(root.join("a"), inner.join("up")).unwrap();
        std::os::unix::fs::symlink(&inner, inner.join("self")).unwrap();
        std::os::unix::fs::symlink(root.join("a/health-test.yaml"), inner.join("same.yaml"))
            .unwrap();
        let found = discover(&[root.clone(), root.join("a")]).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].path.ends_with("a/health-test.yaml"), "{found:?}");
    }

    #[test]
    fn missing_paths_are_errors() {
        let err = discover(&[PathBuf::from("/no/such/dir")]).unwrap_err();
        assert!(err.to_string().contains("/no/such/dir"));
    }
}
