//! Karmada's folder layout for bundled resource interpreter customizations.
//!
//! Karmada keeps each bundled customization in a folder named for its target
//! and puts the folder's golden cases beside it:
//!
//! ```text
//! <group>/<version>/<Kind>/customizations.yaml
//! <group>/<version>/<Kind>/testdata/*.yaml
//! ```
//!
//! This crate is the one walker of that layout: the thirdparty crate's build
//! script embeds what it finds, and the golden runner, the loader and the
//! linter find files with it. It has no dependencies, so a build script can
//! use it.
//!
//! ```
//! use std::path::Path;
//! use karmada_interpreter_layout::Target;
//!
//! let target = Target::of_folder(Path::new("thirdparty/apps.kruise.io/v1alpha1/CloneSet")).unwrap();
//! assert_eq!(target.api_version(), "apps.kruise.io/v1alpha1");
//! assert_eq!(target.kind, "CloneSet");
//! ```

#![forbid(unsafe_code)]

use std::io;
use std::path::{Path, PathBuf};

/// The file that holds a folder's customizations.
pub const CUSTOMIZATIONS_FILE: &str = "customizations.yaml";

/// The folder that holds a customization's golden cases.
pub const TESTDATA_DIR: &str = "testdata";

/// Whether `path` names a YAML file (`.yaml` or `.yml`).
pub fn is_yaml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yaml" || e == "yml")
}

/// A folder or file the walker could not read.
#[derive(Debug)]
pub struct WalkError {
    /// The folder or file.
    pub path: PathBuf,
    /// Why.
    pub source: io::Error,
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for WalkError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Every file under `dir` (recursively, in name order at every level) for
/// which `keep(path, in_testdata)` holds, where `in_testdata` tells whether
/// the file sits directly in a `testdata/` folder. Directories entered twice
/// through links are entered once.
pub fn files(
    dir: &Path,
    mut keep: impl FnMut(&Path, bool) -> bool,
) -> Result<Vec<PathBuf>, WalkError> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    walk(dir, &mut keep, &mut out, &mut seen)?;
    Ok(out)
}

fn walk(
    dir: &Path,
    keep: &mut impl FnMut(&Path, bool) -> bool,
    out: &mut Vec<PathBuf>,
    seen: &mut Vec<PathBuf>,
) -> Result<(), WalkError> {
    let failed = |source| WalkError {
        path: dir.to_owned(),
        source,
    };
    let canonical = dir.canonicalize().map_err(failed)?;
    if seen.contains(&canonical) {
        return Ok(());
    }
    seen.push(canonical);
    let in_testdata = dir.file_name().is_some_and(|n| n == TESTDATA_DIR);
    let mut entries = std::fs::read_dir(dir)
        .and_then(|entries| entries.map(|entry| entry.map(|e| e.path())).collect())
        .map_err(failed)?;
    let entries: &mut Vec<PathBuf> = &mut entries;
    entries.sort();
    for path in entries.drain(..) {
        if path.is_dir() {
            walk(&path, keep, out, seen)?;
        } else if keep(&path, in_testdata) {
            out.push(path);
        }
    }
    Ok(())
}

/// Every `customizations.yaml` under `dir`, in path order.
pub fn customization_files(dir: &Path) -> Result<Vec<PathBuf>, WalkError> {
    files(dir, |path, in_testdata| {
        !in_testdata && path.file_name().is_some_and(|n| n == CUSTOMIZATIONS_FILE)
    })
}

/// Every YAML file in a `testdata/` folder under `dir`, in path order.
pub fn case_files(dir: &Path) -> Result<Vec<PathBuf>, WalkError> {
    files(dir, |path, in_testdata| in_testdata && is_yaml(path))
}

/// The target a Karmada-layout folder names: `<group>/<version>/<Kind>`, the
/// core group's folder being `core`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The API group (empty for the core group).
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
}

impl Target {
    /// The target named by the last three components of `folder`
    /// (`.../<group>/<version>/<Kind>`), when they are one: a group with a
    /// dot (or `core`), a Kubernetes version (`v1`, `v1beta2`, `v2alpha1`)
    /// and a CamelCase kind.
    pub fn of_folder(folder: &Path) -> Option<Target> {
        let mut dirs = folder.iter().rev().map(|d| d.to_str());
        let kind = dirs.next()??;
        let version = dirs.next()??;
        let group = dirs.next()??;
        let is_version = version
            .strip_prefix('v')
            .and_then(|rest| {
                let digits = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                (digits > 0).then(|| &rest[digits..])
            })
            .is_some_and(|tail| {
                tail.is_empty()
                    || ["alpha", "beta"].iter().any(|stage| {
                        tail.strip_prefix(stage)
                            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
                    })
            });
        let is_group = group == "core" || (group.contains('.') && !group.starts_with('.'));
        let is_kind = kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && kind.chars().all(|c| c.is_ascii_alphanumeric());
        (is_version && is_group && is_kind).then(|| Target {
            group: if group == "core" {
                String::new()
            } else {
                group.to_owned()
            },
            version: version.to_owned(),
            kind: kind.to_owned(),
        })
    }

    /// The target of a `customizations.yaml` (or `.yml`) in such a folder.
    pub fn of_file(file: &Path) -> Option<Target> {
        let name = file.file_name()?.to_str()?;
        if !matches!(name, "customizations.yaml" | "customizations.yml") {
            return None;
        }
        Self::of_folder(file.parent()?)
    }

    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_name_their_target() {
        let t = Target::of_folder(Path::new("a/kyverno.io/v1/ClusterPolicy")).unwrap();
        assert_eq!(
            (t.group.as_str(), t.version.as_str(), t.kind.as_str()),
            ("kyverno.io", "v1", "ClusterPolicy")
        );
        assert_eq!(t.api_version(), "kyverno.io/v1");
        let core = Target::of_folder(Path::new("x/core/v1/Pod")).unwrap();
        assert_eq!(
            (core.group.as_str(), core.api_version().as_str()),
            ("", "v1")
        );
        assert_eq!(Target::of_folder(Path::new("x/v1/Pod")), None);
        let file = Target::of_file(Path::new("g.io/v2/K/customizations.yml")).unwrap();
        assert_eq!(file.api_version(), "g.io/v2");
        assert_eq!(Target::of_file(Path::new("g.io/v2/K/cases.yaml")), None);
        assert_eq!(Target::of_folder(Path::new("kyverno.io/v1/testdata")), None);
        assert_eq!(Target::of_folder(Path::new("kyverno.io/beta/Policy")), None);
    }

    #[test]
    fn the_walker_finds_customizations_and_cases_in_path_order() {
        let root = std::env::temp_dir().join(format!("layout-walk-{}", std::process::id()));
        let kind = root.join("g.io/v1/K");
        std::fs::create_dir_all(kind.join("testdata")).unwrap();
        std::fs::write(kind.join(CUSTOMIZATIONS_FILE), "").unwrap();
        std::fs::write(kind.join("testdata/b.yaml"), "").unwrap();
        std::fs::write(kind.join("testdata/a.yml"), "").unwrap();
        std::fs::write(kind.join("testdata/notes.txt"), "").unwrap();
        std::fs::write(kind.join("testdata").join(CUSTOMIZATIONS_FILE), "").unwrap();
        assert_eq!(
            customization_files(&root).unwrap(),
            vec![kind.join(CUSTOMIZATIONS_FILE)]
        );
        assert_eq!(
            case_files(&root).unwrap(),
            vec![
                kind.join("testdata/a.yml"),
                kind.join("testdata/b.yaml"),
                kind.join("testdata").join(CUSTOMIZATIONS_FILE)
            ]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
