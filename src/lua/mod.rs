//! The declarative layer: `ResourceInterpreterCustomization` Lua scripts.
//!
//! This module loads and merges customizations exactly as Karmada does
//! (`lua-environment.md` §1.6). The Lua engine itself arrives with the Lua
//! engine issue; until then an enabled script answers with an error.

use std::collections::BTreeMap;

use kube::core::GroupVersionKind;

use crate::api::{InterpreterOperation, ResourceInterpreterCustomization};
use crate::error::{Error, Result};
use crate::interpreter::{CatalogEntry, Layer, LayerKind, Outcome, Request, Source};

/// Group, version and kind a customization targets, parsed like Karmada:
/// `""` → empty group and version; no `/` → core group; more than one `/` →
/// empty group and version.
pub(crate) type TargetKey = (String, String, String);

fn target_key(c: &ResourceInterpreterCustomization) -> TargetKey {
    let (g, v) = crate::interpreter::split_api_version(&c.spec.target.api_version);
    (g.to_owned(), v.to_owned(), c.spec.target.kind.clone())
}

/// The effective scripts for one target after merging.
#[derive(Debug, Clone, Default)]
pub(crate) struct MergedRules {
    /// `target.apiVersion` as written by the first customization.
    pub api_version: String,
    /// For each single-script operation: (customization name, script).
    pub single: BTreeMap<InterpreterOperation, (String, String)>,
    /// Every non-empty dependency script, in name order.
    pub dependencies: Vec<(String, String)>,
}

/// A Lua-backed layer: user customizations or the bundled third-party set.
#[derive(Debug)]
pub struct LuaLayer {
    kind: LayerKind,
    rules: BTreeMap<TargetKey, MergedRules>,
}

impl LuaLayer {
    /// The declarative layer for user customizations.
    pub fn customizations(items: Vec<ResourceInterpreterCustomization>) -> Result<Self> {
        Ok(Self::merge(LayerKind::Customization, items))
    }

    /// The bundled third-party layer.
    pub(crate) fn bundled(items: Vec<ResourceInterpreterCustomization>) -> Self {
        Self::merge(LayerKind::Bundled, items)
    }

    fn merge(kind: LayerKind, mut items: Vec<ResourceInterpreterCustomization>) -> Self {
        items.sort_by(|a, b| a.name().cmp(b.name()));
        let mut rules: BTreeMap<TargetKey, MergedRules> = BTreeMap::new();
        for c in &items {
            let entry = rules.entry(target_key(c)).or_insert_with(|| MergedRules {
                api_version: c.spec.target.api_version.clone(),
                ..MergedRules::default()
            });
            for op in InterpreterOperation::ALL {
                let Some(script) = c.script(op) else { continue };
                if op == InterpreterOperation::InterpretDependency {
                    entry
                        .dependencies
                        .push((c.name().to_owned(), script.to_owned()));
                } else {
                    entry
                        .single
                        .entry(op)
                        .or_insert_with(|| (c.name().to_owned(), script.to_owned()));
                }
            }
        }
        Self { kind, rules }
    }

    fn names(&self, gvk: &GroupVersionKind, op: InterpreterOperation) -> Option<String> {
        let key = (gvk.group.clone(), gvk.version.clone(), gvk.kind.clone());
        let rules = self.rules.get(&key)?;
        if op == InterpreterOperation::InterpretDependency {
            let names: Vec<&str> = rules.dependencies.iter().map(|(n, _)| n.as_str()).collect();
            (!names.is_empty()).then(|| names.join(","))
        } else {
            rules.single.get(&op).map(|(n, _)| n.clone())
        }
    }
}

impl Layer for LuaLayer {
    fn kind(&self) -> LayerKind {
        self.kind
    }

    fn source(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<Source> {
        self.names(gvk, operation).map(|name| Source {
            layer: self.kind,
            name: name.into(),
        })
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let gvk = crate::interpreter::gvk_of(request.object());
        Err(Error::Lua {
            customization: self.names(&gvk, request.operation()).unwrap_or_default(),
            operation: request.operation(),
            message: "the Lua engine is not available in this build yet".to_owned(),
        })
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        let mut out = Vec::new();
        for ((_, _, kind), rules) in &self.rules {
            let mut push = |op, name: &str| {
                out.push(CatalogEntry {
                    api_version: rules.api_version.clone(),
                    kind: kind.clone(),
                    operation: op,
                    source: Source {
                        layer: self.kind,
                        name: name.to_owned().into(),
                    },
                })
            };
            for (op, (name, _)) in &rules.single {
                push(*op, name);
            }
            if let Some((name, _)) = rules.dependencies.first() {
                push(InterpreterOperation::InterpretDependency, name);
            }
        }
        out
    }
}
