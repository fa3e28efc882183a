//! The chain's decision, made visible: for a (kind, operation), which layer
//! answers and why each earlier layer does not (`karmada-interpreter
//! explain`).

use kube::core::GroupVersionKind;

use super::chain::Chain;
use super::layer::{CatalogEntry, Layer, LayerKind, Source};
use crate::api::InterpreterOperation;

/// One layer's part in dispatching a (kind, operation).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LayerDecision {
    /// The layer.
    pub layer: LayerKind,
    /// What in it serves the pair; `None` when it does not.
    pub serves: Option<Source>,
    /// Why it serves or does not, from what the layer serves.
    pub reason: String,
}

impl serde::Serialize for LayerKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl serde::Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Source", 2)?;
        st.serialize_field("layer", &self.layer)?;
        st.serialize_field("name", &self.name)?;
        st.end()
    }
}

fn api_version(gvk: &GroupVersionKind) -> String {
    if gvk.group.is_empty() {
        gvk.version.clone()
    } else {
        format!("{}/{}", gvk.group, gvk.version)
    }
}

/// Whether a catalog pattern (`*` for any run of characters, as catalogs
/// write wildcards) matches `text`.
fn matches(pattern: &str, text: &str) -> bool {
    segment_match(pattern, text, '*')
}

/// Whether `pattern` matches `text`, `wildcard` standing for any run of
/// characters (Argo CD's rule for its `_` folders, and catalogs' `*`).
pub fn segment_match(pattern: &str, text: &str, wildcard: char) -> bool {
    let parts: Vec<&str> = pattern.split(wildcard).collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == text;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

fn join(mut items: Vec<String>) -> String {
    items.sort();
    items.dedup();
    items.join(", ")
}

/// Why `layer` does not serve `operation` for `gvk`, from its catalog.
fn why_not(layer: &dyn Layer, gvk: &GroupVersionKind, operation: InterpreterOperation) -> String {
    let wanted = api_version(gvk);
    let catalog = layer.catalog();
    // Entries for this kind at this apiVersion (wildcards included): the
    // layer serves the kind, for other operations.
    let other_operations: Vec<String> = catalog
        .iter()
        .filter(|e| matches(&e.kind, &gvk.kind) && matches(&e.api_version, &wanted))
        .map(|e| e.operation.to_string())
        .collect();
    if !other_operations.is_empty() {
        return format!(
            "serves {wanted} {} for {} only, not {operation}",
            gvk.kind,
            join(other_operations)
        );
    }
    // Entries naming this very kind at other apiVersions.
    let named: Vec<&CatalogEntry> = catalog.iter().filter(|e| e.kind == gvk.kind).collect();
    let same_operation: Vec<String> = named
        .iter()
        .filter(|e| e.operation == operation)
        .map(|e| e.api_version.clone())
        .collect();
    if !same_operation.is_empty() {
        return format!(
            "serves {operation} for {} only at {} (not {wanted}: a rule matches its exact apiVersion)",
            gvk.kind,
            join(same_operation)
        );
    }
    if !named.is_empty() {
        return format!(
            "serves {} only at {} (not {wanted}), and not for {operation}",
            gvk.kind,
            join(named.iter().map(|e| e.api_version.clone()).collect())
        );
    }
    format!("serves nothing for {wanted} {}", gvk.kind)
}

impl Chain {
    /// How the chain dispatches `operation` for objects of `gvk`: each
    /// layer in order up to (and including) the one that answers, with why
    /// the earlier ones do not. When no layer serves the pair, every layer
    /// is listed and none has `serves`.
    ///
    /// ```
    /// use karmada_interpreter::{api::InterpreterOperation, interpreter::LayerKind, Interpreter};
    /// use kube::core::GroupVersionKind;
    ///
    /// let chain = Interpreter::default();
    /// let gvk = GroupVersionKind::gvk("apps", "v1", "Deployment");
    /// let decisions = chain.decisions(&gvk, InterpreterOperation::InterpretReplica);
    /// let last = decisions.last().unwrap();
    /// assert_eq!(last.layer, LayerKind::Native);
    /// assert!(last.serves.is_some());
    /// assert_eq!(decisions[0].layer, LayerKind::Thirdparty);
    /// assert_eq!(decisions[0].reason, "serves nothing for apps/v1 Deployment");
    /// ```
    pub fn decisions(
        &self,
        gvk: &GroupVersionKind,
        operation: InterpreterOperation,
    ) -> Vec<LayerDecision> {
        let mut out = Vec::new();
        for layer in self.layers() {
            match layer.source(gvk, operation) {
                Some(source) => {
                    out.push(LayerDecision {
                        layer: layer.kind(),
                        reason: format!("serves it ({})", source.name),
                        serves: Some(source),
                    });
                    return out;
                }
                None => out.push(LayerDecision {
                    layer: layer.kind(),
                    serves: None,
                    reason: why_not(layer.as_ref(), gvk, operation),
                }),
            }
        }
        out
    }
}
