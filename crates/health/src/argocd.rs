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
    describe, segment_match, CatalogEntry, Layer, LayerKind, Outcome, Request, Route, Source,
    TypeRef,
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

    /// Karmada's boolean for this status, by the one table
    /// ([`crate::meaning::from_argocd`]): `Healthy` and `Suspended` (paused
    /// on purpose, not failing) are healthy; `Progressing`, `Degraded` and
    /// `Missing` are not; `Unknown` and no status have no boolean (`None`),
    /// which the layer answers as [`HealthError::Unknown`] so that Karmada
    /// records the health as Unknown.
    pub fn healthy(&self) -> Option<bool> {
        crate::meaning::from_argocd(&self.status)
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
    /// Every check: the exact folders, sorted, then the folders with `_` in
    /// their path, sorted (Argo CD's order). A route's entry is an index
    /// into it.
    checks: Vec<Check>,
    /// The exact folders' indices in `checks`, by folder.
    exact: BTreeMap<String, usize>,
    /// Where the wildcard folders start in `checks`.
    wildcards: usize,
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
        // Exact folders first, then the wildcards, each sorted.
        checks.sort_by(|a, b| (a.key.contains('_'), &a.key).cmp(&(b.key.contains('_'), &b.key)));
        let wildcards = checks.partition_point(|c| !c.key.contains('_'));
        let exact = checks
            .iter()
            .take(wildcards)
            .enumerate()
            .map(|(i, c)| (c.key.clone(), i))
            .collect();
        Ok(Self {
            root: root.to_owned(),
            checks,
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
        self.checks.len()
    }

    /// Whether the folder holds no check (never true for a loaded layer).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The index in `checks` of the check serving objects of type `ty`:
    /// the exact `group/Kind` folder, else the first wildcard folder
    /// (sorted) that matches. The layer's one lookup per call.
    fn check_of(&self, ty: TypeRef<'_>) -> Option<usize> {
        let key = if ty.group.is_empty() {
            ty.kind.to_owned()
        } else {
            format!("{}/{}", ty.group, ty.kind)
        };
        self.exact.get(&key).copied().or_else(|| {
            let wildcards = self.checks.get(self.wildcards..)?;
            let i = wildcards
                .iter()
                .position(|c| wildcard_match(&c.key, &key))?;
            Some(self.wildcards + i)
        })
    }

    /// The script text of the check serving `gvk` and its name, if any.
    pub fn script_for(&self, gvk: &GroupVersionKind) -> Option<(String, &str)> {
        let check = self.checks.get(self.check_of(TypeRef::from_gvk(gvk))?)?;
        Some((check_name(&check.key), check.script.text()))
    }

    /// Runs the check serving `object`'s kind and reads its answer as Argo
    /// CD's `ExecuteHealthLua` does: `nil` or an empty table is no status; a
    /// table whose `status`/`message` are not strings is no status (Argo
    /// CD's decoding ignores such a table); a status outside the six codes
    /// is `Unknown` with Argo CD's message; any other result type is an
    /// error. `Ok(None)` when no check serves the kind.
    pub fn status(&self, object: &Value) -> Result<Option<HealthStatus>> {
        match self
            .check_of(TypeRef::of(object))
            .and_then(|i| self.checks.get(i))
        {
            Some(check) => self.run(check, object).map(Some),
            None => Ok(None),
        }
    }

    /// Answers `request` (`InterpretHealth` only) with check `entry` (an
    /// index in `checks`, from [`Layer::route`]); another operation, or an
    /// entry that is not one, is not served.
    fn answer(&self, entry: Option<usize>, request: &Request<'_>) -> Result<Outcome> {
        let object = request.object();
        let not_served = || Error::not_served(object, request.operation());
        let check = match (request, entry.and_then(|entry| self.checks.get(entry))) {
            (Request::InterpretHealth { .. }, Some(check)) => check,
            _ => return Err(not_served()),
        };
        let status = self.run(check, object)?;
        match status.healthy() {
            Some(healthy) => Ok(Outcome::Healthy(healthy)),
            None => Err(Error::Layer {
                what: "health check",
                name: check_name(&check.key),
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

    /// Runs `check` on `object` and reads its answer ([`ArgoCdHealth::status`]).
    fn run(&self, check: &Check, object: &Value) -> Result<HealthStatus> {
        let name = check_name(&check.key);
        let lua_error =
            |source: ScriptError| source.into_error(&name, InterpreterOperation::InterpretHealth);
        let result =
            run_top_level(&self.engine, &check.script, "obj", object).map_err(lua_error)?;
        let table = match result {
            TopLevelResult::Nil => return Ok(HealthStatus::default()),
            TopLevelResult::Table(t) => t,
            TopLevelResult::Other(type_name) => {
                return Err(lua_error(ScriptError::Runtime(format!(
                    "expect table output from Lua script, not {type_name}"
                ))))
            }
        };
        let Value::Object(map) = table else {
            return Ok(HealthStatus::default());
        };
        let field = |k: &str| match map.get(k) {
            None | Some(Value::Null) => Some(String::new()),
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => None,
        };
        let (Some(status), Some(message)) = (field("status"), field("message")) else {
            return Ok(HealthStatus::default());
        };
        if !HealthStatus::CODES.contains(&status.as_str()) {
            return Ok(HealthStatus {
                status: "Unknown".into(),
                message: INVALID_STATUS.into(),
            });
        }
        Ok(HealthStatus { status, message })
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

    /// The check serving `ty`; the route's entry is its index, which
    /// [`Layer::interpret_routed`] runs without looking it up again.
    fn route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
        if operation != InterpreterOperation::InterpretHealth {
            return None;
        }
        let entry = self.check_of(ty)?;
        let check = self.checks.get(entry)?;
        Some(Route {
            source: Source {
                layer: ARGOCD,
                name: check_name(&check.key).into(),
            },
            entry,
        })
    }

    fn interpret_routed(&self, entry: usize, request: &Request<'_>) -> Result<Outcome> {
        self.answer(Some(entry), request)
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        self.answer(self.check_of(TypeRef::of(request.object())), request)
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        self.checks
            .iter()
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

    /// The layer resolves a call once: `route` finds the check and
    /// `interpret_routed` runs the check of the entry it is handed, without
    /// looking the object's kind up again (the wildcard check of another
    /// kind's entry answers for a Widget; an entry that is no check is not
    /// served).
    #[test]
    fn a_routed_call_runs_the_check_of_its_entry_without_a_second_lookup() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/health-checks");
        let layer = ArgoCdHealth::from_dir(&root).expect("checks");
        let widget = serde_json::json!({"apiVersion": "example.io/v1", "kind": "Widget",
            "spec": {"parts": 1}, "status": {"phase": "Ready", "ready": 1}});
        let gadget = serde_json::json!({"apiVersion": "a.gadgets.example.org/v1", "kind": "G"});
        let op = InterpreterOperation::InterpretHealth;
        let route_w = layer.route(TypeRef::of(&widget), op).expect("widget");
        let route_g = layer.route(TypeRef::of(&gadget), op).expect("gadget");
        assert_eq!(route_w.source.name, "example.io/Widget/health.lua");
        assert_eq!(route_g.source.name, "_.gadgets.example.org/_/health.lua");
        let health = |entry| {
            let request = Request::InterpretHealth { object: &widget };
            layer.interpret_routed(entry, &request)
        };
        assert_eq!(health(route_w.entry).unwrap(), Outcome::Healthy(true));
        assert_eq!(health(route_g.entry).unwrap(), Outcome::Healthy(false));
        assert!(matches!(health(usize::MAX), Err(Error::NotServed { .. })));
    }

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
