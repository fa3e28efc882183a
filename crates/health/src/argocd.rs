//! Argo CD health checks as a layer: `health.lua` files in Argo CD's
//! folder layout, run unchanged, answering `InterpretHealth`.
//!
//! A folder holds `<group>/<Kind>/health.lua` (and `<Kind>/health.lua` for
//! the core group, Argo CD's key for it being the kind alone). A folder
//! name with `_` is a wildcard: `_` stands for `*`, as Argo CD reads its
//! built-in folders (`_.crossplane.io/_` serves every kind of every group
//! ending in `.crossplane.io`). A kind is looked up as Argo CD's
//! `GetHealthScript` looks up a built-in check: the exact `group/Kind`
//! first, then the wildcard folders in sorted order, the first match
//! winning.
//!
//! Each check runs in the same sandbox, with the same limits and error
//! kinds, as Karmada's customization scripts (`karmada-interpreter-declarative`), with the
//! object as the global `obj`; the table it returns is read as Argo CD reads
//! it ([`ArgoCdHealth::status`]) and mapped to Karmada's boolean
//! ([`HealthStatus::healthy`]). `docs/health.md` documents the mapping and
//! the differences from Argo CD's Lua environment.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kube::core::GroupVersionKind;
use serde_json::Value;

use karmada_interpreter_core::api::InterpreterOperation;
use karmada_interpreter_core::interpreter::{
    describe, gvk_of, segment_match, CatalogEntry, Layer, LayerKind, Outcome, Request, Source,
};
use karmada_interpreter_core::{Error, Result};
use karmada_interpreter_declarative::{
    run_top_level, Coverage, Engine, Limits, Script, ScriptError, TopLevelResult,
};

use crate::{HealthError, ARGOCD};

pub use crate::{HEALTH_SCRIPT, HEALTH_TEST};

/// Argo CD's message for a status outside the six codes.
const INVALID_STATUS: &str = "Lua returned an invalid health status";

/// What an Argo CD check answers: `status` (one of [`HealthStatus::CODES`],
/// or empty when the check returned no status) and `message`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct HealthStatus {
    /// `Healthy`, `Progressing`, `Degraded`, `Suspended`, `Missing`,
    /// `Unknown`; empty when the check returned nothing.
    pub status: String,
    /// The check's message (may be empty).
    pub message: String,
}

impl HealthStatus {
    /// Argo CD's health codes.
    pub const CODES: [&'static str; 6] = [
        "Healthy",
        "Progressing",
        "Degraded",
        "Suspended",
        "Missing",
        "Unknown",
    ];

    /// Karmada's boolean for this status: `Healthy` and `Suspended` (paused
    /// on purpose, not failing) are healthy; `Progressing`, `Degraded` and
    /// `Missing` are not; `Unknown` and no status have no boolean (`None`),
    /// which the layer answers as [`HealthError::Unknown`] so that Karmada
    /// records the health as Unknown.
    pub fn healthy(&self) -> Option<bool> {
        match self.status.as_str() {
            "Healthy" | "Suspended" => Some(true),
            "Progressing" | "Degraded" | "Missing" => Some(false),
            _ => None,
        }
    }
}

/// One check of the folder.
#[derive(Debug, Clone)]
struct Check {
    /// The folder relative to the root, `/`-separated (`apps/Deployment`,
    /// `_.crossplane.io/_`).
    key: String,
    script: Script,
}

/// The Argo CD health-check layer over one folder.
#[derive(Debug)]
pub struct ArgoCdHealth {
    root: PathBuf,
    exact: BTreeMap<String, Check>,
    /// Folders with `_` in their path, sorted (Argo CD's order).
    wildcards: Vec<Check>,
    engine: Engine,
}

impl ArgoCdHealth {
    /// Loads every `<group>/<Kind>/health.lua` (and core `<Kind>/health.lua`)
    /// under `root`. A folder that cannot be read, or holds no check at all,
    /// is an error naming it.
    pub fn from_dir(root: &Path) -> Result<Self, HealthError> {
        Self::from_dir_with_limits(root, Limits::default())
    }

    /// [`ArgoCdHealth::from_dir`] with the checks run under `limits` (the
    /// same time and memory limits as customization scripts).
    pub fn from_dir_with_limits(root: &Path, limits: Limits) -> Result<Self, HealthError> {
        let mut checks = Vec::new();
        collect(root, root, 0, &mut checks)?;
        if checks.is_empty() {
            return Err(HealthError::NoChecks {
                root: root.to_owned(),
            });
        }
        let mut exact = BTreeMap::new();
        let mut wildcards = Vec::new();
        for check in checks {
            if check.key.contains('_') {
                wildcards.push(check);
            } else {
                exact.insert(check.key.clone(), check);
            }
        }
        wildcards.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Self {
            root: root.to_owned(),
            exact,
            wildcards,
            engine: Engine::new(limits),
        })
    }

    /// The same layer, recording which lines of the checks run.
    pub fn with_coverage(self, coverage: Coverage) -> Self {
        Self {
            engine: self.engine.with_coverage(coverage),
            ..self
        }
    }

    /// The folder the checks come from.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How many checks the folder holds.
    pub fn len(&self) -> usize {
        self.exact.len() + self.wildcards.len()
    }

    /// Whether the folder holds no check (never true for a loaded layer).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The check serving `gvk`: the exact `group/Kind` folder, else the
    /// first wildcard folder (sorted) that matches.
    fn check_for(&self, gvk: &GroupVersionKind) -> Option<&Check> {
        let key = if gvk.group.is_empty() {
            gvk.kind.clone()
        } else {
            format!("{}/{}", gvk.group, gvk.kind)
        };
        self.exact
            .get(&key)
            .or_else(|| self.wildcards.iter().find(|c| wildcard_match(&c.key, &key)))
    }

    /// The script text of the check serving `gvk` and its name, if any.
    pub fn script_for(&self, gvk: &GroupVersionKind) -> Option<(String, &str)> {
        self.check_for(gvk)
            .map(|c| (check_name(&c.key), c.script.text()))
    }

    /// Runs the check serving `object`'s kind and reads its answer as Argo
    /// CD's `ExecuteHealthLua` does: `nil` or an empty table is no status; a
    /// table whose `status`/`message` are not strings is no status (Argo
    /// CD's decoding ignores such a table); a status outside the six codes
    /// is `Unknown` with Argo CD's message; any other result type is an
    /// error. `Ok(None)` when no check serves the kind.
    pub fn status(&self, object: &Value) -> Result<Option<HealthStatus>> {
        let gvk = gvk_of(object);
        let Some(check) = self.check_for(&gvk) else {
            return Ok(None);
        };
        let name = check_name(&check.key);
        let lua_error =
            |source: ScriptError| source.into_error(&name, InterpreterOperation::InterpretHealth);
        let result =
            run_top_level(&self.engine, &check.script, "obj", object).map_err(lua_error)?;
        let table = match result {
            TopLevelResult::Nil => return Ok(Some(HealthStatus::default())),
            TopLevelResult::Table(t) => t,
            TopLevelResult::Other(type_name) => {
                return Err(lua_error(ScriptError::Runtime(format!(
                    "expect table output from Lua script, not {type_name}"
                ))))
            }
        };
        let Value::Object(map) = table else {
            return Ok(Some(HealthStatus::default()));
        };
        let field = |k: &str| match map.get(k) {
            None | Some(Value::Null) => Some(String::new()),
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => None,
        };
        let (Some(status), Some(message)) = (field("status"), field("message")) else {
            return Ok(Some(HealthStatus::default()));
        };
        if !HealthStatus::CODES.contains(&status.as_str()) {
            return Ok(Some(HealthStatus {
                status: "Unknown".into(),
                message: INVALID_STATUS.into(),
            }));
        }
        Ok(Some(HealthStatus { status, message }))
    }
}

/// The printed name of the check in folder `key`.
fn check_name(key: &str) -> String {
    format!("{key}/{HEALTH_SCRIPT}")
}

/// Folders under `dir` (depth 1 or 2 below `root`) holding a check.
fn collect(root: &Path, dir: &Path, depth: usize, out: &mut Vec<Check>) -> Result<(), HealthError> {
    let io = |source| HealthError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::result::Result<_, _>>()
        .map_err(io)?;
    entries.sort();
    for path in entries {
        if !path.is_dir() {
            continue;
        }
        let script = path.join(HEALTH_SCRIPT);
        if script.is_file() {
            let text = std::fs::read_to_string(&script).map_err(|source| HealthError::Io {
                path: script.clone(),
                source,
            })?;
            let key = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            out.push(Check {
                key,
                script: Script::new(&text),
            });
        } else if depth == 0 {
            collect(root, &path, depth + 1, out)?;
        }
    }
    Ok(())
}

/// Whether `key` (`group/Kind`) matches folder `pattern` with `_` read as
/// `*`: segment by segment, `*` matching any run of characters within a
/// segment (doublestar's `*`, the only glob character Argo CD's folders
/// produce).
fn wildcard_match(pattern: &str, key: &str) -> bool {
    let p: Vec<&str> = pattern.split('/').collect();
    let k: Vec<&str> = key.split('/').collect();
    p.len() == k.len() && p.iter().zip(&k).all(|(p, k)| segment_match(p, k, '_'))
}

impl Layer for ArgoCdHealth {
    fn kind(&self) -> LayerKind {
        ARGOCD
    }

    fn source(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<Source> {
        if operation != InterpreterOperation::InterpretHealth {
            return None;
        }
        self.check_for(gvk).map(|c| Source {
            layer: ARGOCD,
            name: check_name(&c.key).into(),
        })
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let object = request.object();
        let not_served = || Error::not_served(object, request.operation());
        if !matches!(request, Request::InterpretHealth { .. }) {
            return Err(not_served());
        }
        let status = self.status(object)?.ok_or_else(not_served)?;
        match status.healthy() {
            Some(healthy) => Ok(Outcome::Healthy(healthy)),
            None => Err(Error::Layer {
                what: "health check",
                name: self
                    .check_for(&gvk_of(object))
                    .map(|c| check_name(&c.key))
                    .unwrap_or_default(),
                operation: InterpreterOperation::InterpretHealth,
                object: Some(describe(object)),
                source: Box::new(HealthError::Unknown {
                    reason: if status.status.is_empty() {
                        "the check returned no health status".to_owned()
                    } else {
                        format!("status {}: {}", status.status, status.message)
                    },
                }),
            }),
        }
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        self.exact
            .values()
            .chain(&self.wildcards)
            .map(|c| {
                let (group, kind) = match c.key.split_once('/') {
                    Some((g, k)) => (g.replace('_', "*"), k.replace('_', "*")),
                    None => (String::new(), c.key.replace('_', "*")),
                };
                CatalogEntry {
                    api_version: if group.is_empty() {
                        "v1".to_owned()
                    } else {
                        format!("{group}/*")
                    },
                    kind,
                    operation: InterpreterOperation::InterpretHealth,
                    source: Source {
                        layer: ARGOCD,
                        name: check_name(&c.key).into(),
                    },
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("_.crossplane.io/_", "pkg.crossplane.io/Provider", true)]
    #[case("_.crossplane.io/_", "crossplane.io/Provider", false)]
    #[case("_.upbound.io/_", "s3.aws.upbound.io/Bucket", true)]
    #[case("_.upbound.io/_", "upbound.io.example.com/Bucket", false)]
    #[case("_.crossplane.io/_", "Provider", false)]
    #[case("a_c/K", "abbbc/K", true)]
    #[case("a_c/K", "abbbd/K", false)]
    fn wildcard_folders_match_as_argo_cd_globs(
        #[case] pattern: &str,
        #[case] key: &str,
        #[case] expected: bool,
    ) {
        assert_eq!(wildcard_match(pattern, key), expected);
    }

    #[rstest]
    #[case("Healthy", Some(true))]
    #[case("Suspended", Some(true))]
    #[case("Progressing", Some(false))]
    #[case("Degraded", Some(false))]
    #[case("Missing", Some(false))]
    #[case("Unknown", None)]
    #[case("", None)]
    fn statuses_map_to_karmadas_boolean(#[case] status: &str, #[case] expected: Option<bool>) {
        let s = HealthStatus {
            status: status.into(),
            message: String::new(),
        };
        assert_eq!(s.healthy(), expected);
    }
}
