//! A layer that answers from the latest published snapshot.

use std::sync::Arc;

use arc_swap::ArcSwap;
use kube::core::GroupVersionKind;

use crate::api::InterpreterOperation;
use crate::error::Result;
use crate::interpreter::{
    CatalogEntry, InPlaceRequest, Layer, LayerKind, Outcome, OwnedRequest, Request, Source,
};

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
