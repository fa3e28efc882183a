//! Line coverage of customization scripts (`test --coverage`).
//!
//! An engine with coverage (see [`super::LuaLayer::with_coverage`]) adds
//! the line event to its states' hook: every line a script runs is noted
//! while the script runs and credited to the script's text when the run
//! ends. Without coverage the hook is the deadline hook alone.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// The lines of each script that ran, shared by every state of an engine
/// (and by clones of this handle).
///
/// ```
/// use karmada_interpreter::api::ResourceInterpreterCustomization;
/// use karmada_interpreter::interpreter::Request;
/// use karmada_interpreter::declarative::{Coverage, LuaLayer};
/// use karmada_interpreter::Interpreter;
///
/// let script = "function InterpretHealth(o)\n  if o.status then\n    return true\n  end\n  return false\nend";
/// let c: ResourceInterpreterCustomization = serde_json::from_value(serde_json::json!({
///     "metadata": {"name": "w"},
///     "spec": {"target": {"apiVersion": "example.io/v1", "kind": "W"},
///              "customizations": {"healthInterpretation": {"luaScript": script}}}
/// })).unwrap();
/// let coverage = Coverage::default();
/// let layer = LuaLayer::customizations(vec![c]).unwrap().with_coverage(coverage.clone());
/// let chain = Interpreter::builder().declarative_layer(std::sync::Arc::new(layer)).build().unwrap();
/// let obj = serde_json::json!({"apiVersion": "example.io/v1", "kind": "W", "metadata": {"name": "a"}});
/// chain.interpret(&Request::InterpretHealth { object: &obj }).unwrap();
/// let ran = coverage.lines(script);
/// // Line 3 (`return true`) did not run; the lines around it did.
/// assert!(ran.contains(&2) && !ran.contains(&3) && ran.contains(&5));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    hits: Arc<Mutex<HashMap<Arc<str>, BTreeSet<usize>>>>,
}

impl Coverage {
    /// The lines of `script` (by its text) that ran, 1-based; empty when it
    /// never ran.
    pub fn lines(&self, script: &str) -> BTreeSet<usize> {
        self.hits
            .lock()
            .map(|h| h.get(script).cloned().unwrap_or_default())
            .unwrap_or_default()
    }

    /// Every script that ran, with the lines that ran (1-based), by text.
    pub fn scripts(&self) -> Vec<(String, BTreeSet<usize>)> {
        let mut out: Vec<(String, BTreeSet<usize>)> = self
            .hits
            .lock()
            .map(|h| h.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
            .unwrap_or_default();
        out.sort();
        out
    }

    /// Notes that `line` of `script` (by its text) ran: for engines other
    /// than Lua's (the CEL health layer notes the file line of each
    /// expression it evaluates, keyed by the rule file's text).
    pub fn record(&self, script: &str, line: usize) {
        if let Ok(mut h) = self.hits.lock() {
            match h.get_mut(script) {
                Some(lines) => {
                    lines.insert(line);
                }
                None => {
                    h.insert(Arc::from(script), BTreeSet::from([line]));
                }
            }
        }
    }

    /// Credits the lines a state noted to `script`.
    pub(crate) fn credit(&self, script: &Arc<str>, noted: &LineNotes) {
        let lines = noted.take();
        if lines.is_empty() {
            return;
        }
        if let Ok(mut h) = self.hits.lock() {
            h.entry(script.clone()).or_default().extend(lines);
        }
    }
}

/// The lines one state ran since the last [`LineNotes::take`] (filled by
/// the hook).
#[derive(Debug, Clone, Default)]
pub(crate) struct LineNotes(Arc<Mutex<BTreeSet<usize>>>);

impl LineNotes {
    pub(crate) fn note(&self, line: usize) {
        if let Ok(mut s) = self.0.lock() {
            s.insert(line);
        }
    }

    pub(crate) fn take(&self) -> BTreeSet<usize> {
        self.0
            .lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default()
    }
}
