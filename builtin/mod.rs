//! Native built-in interpreters: one module per kind, one table of
//! (apiVersion, kind, operation) → handler.
//!
//! Adding a kind means writing its module and adding its rows to [`TABLE`].

mod generic;
pub mod shared;

use kube::core::GroupVersionKind;
use std::sync::{Arc, OnceLock};

use crate::api::InterpreterOperation;
use crate::error::Result;
use crate::interpreter::{CatalogEntry, Layer, LayerKind, Outcome, Request, Source};

/// A native handler for one (kind, operation).
pub(crate) type Handler = fn(&Request<'_>) -> Result<Outcome>;

/// One row of the native table. `"*"` in `api_version` and `kind` marks a
/// fallback that serves every kind without a row of its own.
struct Row {
    api_version: &'static str,
    kind: &'static str,
    operation: InterpreterOperation,
    handler: Handler,
}

const fn row(
    api_version: &'static str,
    kind: &'static str,
    operation: InterpreterOperation,
    handler: Handler,
) -> Row {
    Row {
        api_version,
        kind,
        operation,
        handler,
    }
}

use InterpreterOperation as Op;

/// Every (kind, operation) Karmada's native interpreter serves.
static TABLE: &[Row] = &[row(
    "*",
    "*",
    Op::InterpretStatus,
    generic::reflect_whole_status,
)];

/// The native layer of the chain.
#[derive(Debug, Default)]
pub struct NativeLayer;

/// The shared native layer.
pub fn layer() -> Arc<dyn Layer> {
    static LAYER: OnceLock<Arc<dyn Layer>> = OnceLock::new();
    LAYER.get_or_init(|| Arc::new(NativeLayer)).clone()
}

fn api_version_of(gvk: &GroupVersionKind) -> String {
    if gvk.group.is_empty() {
        gvk.version.clone()
    } else {
        format!("{}/{}", gvk.group, gvk.version)
    }
}

impl NativeLayer {
    fn find(
        &self,
        gvk: &GroupVersionKind,
        operation: InterpreterOperation,
    ) -> Option<&'static Row> {
        // An apiVersion Karmada cannot parse (more than one `/`) matches nothing.
        if gvk.group.is_empty() && gvk.version.is_empty() {
            return None;
        }
        let api_version = api_version_of(gvk);
        let exact = TABLE.iter().find(|r| {
            r.operation == operation && r.api_version == api_version && r.kind == gvk.kind
        });
        exact.or_else(|| {
            TABLE
                .iter()
                .find(|r| r.operation == operation && r.api_version == "*" && r.kind == "*")
        })
    }
}

impl Layer for NativeLayer {
    fn kind(&self) -> LayerKind {
        LayerKind::Native
    }

    fn source(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<Source> {
        self.find(gvk, operation).map(|r| Source {
            layer: LayerKind::Native,
            name: format!("{}/{} {}", r.api_version, r.kind, r.operation),
        })
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let gvk = crate::interpreter::gvk_of(request.object());
        match self.find(&gvk, request.operation()) {
            Some(row) => (row.handler)(request),
            None => Err(crate::Error::NotServed {
                api_version: api_version_of(&gvk),
                kind: gvk.kind,
                operation: request.operation(),
            }),
        }
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        TABLE
            .iter()
            .map(|r| CatalogEntry {
                api_version: r.api_version.to_owned(),
                kind: r.kind.to_owned(),
                operation: r.operation,
                source: Source {
                    layer: LayerKind::Native,
                    name: format!("builtin {}/{}", r.api_version, r.kind),
                },
            })
            .collect()
    }
}
