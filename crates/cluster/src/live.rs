//! A layer that answers from the latest published snapshot.

use std::sync::Arc;

use arc_swap::ArcSwap;
use kube::core::GroupVersionKind;

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::interpreter::{
    CatalogEntry, InPlaceRequest, Layer, LayerKind, Outcome, OwnedRequest, Request, Route, Source,
    TypeRef,
};
use karmada_interpreter::Result;

/// Delegates every call to the snapshot current when the call starts; the
/// watcher swaps snapshots without waiting for calls in flight.
pub(crate) struct LiveLayer<L> {
    current: Arc<ArcSwap<L>>,
}

impl<L> LiveLayer<L> {
    pub(crate) fn new(current: Arc<ArcSwap<L>>) -> Self {
        Self { current }
    }
}

impl<L: Layer> Layer for LiveLayer<L> {
    fn kind(&self) -> LayerKind {
        self.current.load().kind()
    }

    fn source(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<Source> {
        self.current.load().source(gvk, operation)
    }

    /// The current layer's route. Its entry is not used: the layer may be
    /// replaced before the call is answered, so the answer goes through the
    /// current layer's `interpret` methods (the default `interpret_routed`).
    fn route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
        let route = self.current.load().route(ty, operation)?;
        Some(Route::from(route.source))
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        self.current.load_full().interpret(request)
    }

    fn interpret_owned(&self, request: OwnedRequest<'_>) -> Result<Outcome> {
        self.current.load_full().interpret_owned(request)
    }

    fn interpret_in_place(&self, request: InPlaceRequest<'_>) -> Result<()> {
        self.current.load_full().interpret_in_place(request)
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        self.current.load().catalog()
    }
}
