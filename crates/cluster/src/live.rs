//! A layer that answers from the latest published snapshot.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use kube::core::GroupVersionKind;

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::interpreter::{
    Below, CatalogEntry, InPlaceRequest, Layer, LayerKind, Outcome, OwnedRequest, Request, Route,
    Source, TypeRef, Written,
};
use karmada_interpreter::Result;

/// A published layer with its stamp, a number no other snapshot of the
/// process carries (modulo [`Snapshot::STAMP_BITS`]): a route taken on one
/// snapshot is answered by its entry only on the same snapshot.
pub(crate) struct Snapshot<L> {
    stamp: usize,
    layer: L,
}

impl<L> Snapshot<L> {
    /// The bits of a route's entry holding the snapshot's stamp (the high
    /// half); the low half holds the layer's own entry.
    const STAMP_BITS: u32 = usize::BITS / 2;
    /// The low half of an entry: the layer's own entry, all ones when it
    /// does not fit (then the call is answered without it).
    const ENTRY_MASK: usize = usize::MAX >> Self::STAMP_BITS;

    pub(crate) fn new(layer: L) -> Self {
        static STAMPS: AtomicUsize = AtomicUsize::new(0);
        Self {
            stamp: STAMPS.fetch_add(1, Ordering::Relaxed) & Self::ENTRY_MASK,
            layer,
        }
    }

    /// The route's entry for the layer's own `entry` on this snapshot.
    fn entry(&self, entry: usize) -> usize {
        let entry = if entry < Self::ENTRY_MASK {
            entry
        } else {
            Self::ENTRY_MASK
        };
        (self.stamp << Self::STAMP_BITS) | entry
    }

    /// The layer's own entry of a route's `entry` taken on this snapshot;
    /// `None` when it was taken on another one, or did not fit.
    fn own_entry(&self, entry: usize) -> Option<usize> {
        let own = entry & Self::ENTRY_MASK;
        (entry >> Self::STAMP_BITS == self.stamp && own != Self::ENTRY_MASK).then_some(own)
    }
}

impl<L: Layer> Snapshot<L> {
    /// The layer's own entry for `request`: the route's `entry` when taken
    /// on this snapshot, else the request routed again on it.
    fn entry_for(
        &self,
        entry: usize,
        object: &serde_json::Value,
        op: InterpreterOperation,
    ) -> Option<usize> {
        self.own_entry(entry)
            .or_else(|| Some(self.layer.route(TypeRef::of(object), op)?.entry))
    }
}

/// Delegates every call to the snapshot current when the call starts; the
/// watcher swaps snapshots without waiting for calls in flight.
pub(crate) struct LiveLayer<L> {
    current: Arc<ArcSwap<Snapshot<L>>>,
}

impl<L> LiveLayer<L> {
    pub(crate) fn new(current: Arc<ArcSwap<Snapshot<L>>>) -> Self {
        Self { current }
    }
}

impl<L: Layer> Layer for LiveLayer<L> {
    fn kind(&self) -> LayerKind {
        self.current.load().layer.kind()
    }

    fn source(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<Source> {
        self.current.load().layer.source(gvk, operation)
    }

    /// The current snapshot's route, its entry stamped with the snapshot:
    /// the snapshot may be replaced before the call is answered, and an
    /// entry is only answered by the snapshot that gave it.
    fn route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
        let snapshot = self.current.load();
        let route = snapshot.layer.route(ty, operation)?;
        Some(Route {
            entry: snapshot.entry(route.entry),
            source: route.source,
        })
    }

    /// The current snapshot answers by the route's entry if it gave it,
    /// else (replaced since) through its `interpret` methods.
    fn interpret_routed(&self, entry: usize, request: &Request<'_>) -> Result<Outcome> {
        let snapshot = self.current.load_full();
        match snapshot.own_entry(entry) {
            Some(entry) => snapshot.layer.interpret_routed(entry, request),
            None => snapshot.layer.interpret(request),
        }
    }

    fn edit_routed(&self, entry: usize, request: InPlaceRequest<'_>) -> Result<Written> {
        let snapshot = self.current.load_full();
        match snapshot.own_entry(entry) {
            Some(entry) => snapshot.layer.edit_routed(entry, request),
            None => {
                snapshot.layer.interpret_in_place(request)?;
                Ok(Written::unknown())
            }
        }
    }

    /// As `interpret_routed`, with the layers below at hand (composition):
    /// a snapshot replaced since routes the request again.
    fn interpret_over(
        &self,
        entry: usize,
        request: &Request<'_>,
        below: Below<'_>,
    ) -> Result<Outcome> {
        let snapshot = self.current.load_full();
        match snapshot.entry_for(entry, request.object(), request.operation()) {
            Some(entry) => snapshot.layer.interpret_over(entry, request, below),
            None => snapshot.layer.interpret(request),
        }
    }

    /// As `edit_routed`, with the layers below at hand (composition).
    fn edit_over(
        &self,
        entry: usize,
        request: InPlaceRequest<'_>,
        below: Below<'_>,
    ) -> Result<Written> {
        let snapshot = self.current.load_full();
        match snapshot.entry_for(entry, request.object(), request.operation()) {
            Some(entry) => snapshot.layer.edit_over(entry, request, below),
            None => {
                snapshot.layer.interpret_in_place(request)?;
                Ok(Written::unknown())
            }
        }
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        self.current.load_full().layer.interpret(request)
    }

    fn interpret_owned(&self, request: OwnedRequest<'_>) -> Result<Outcome> {
        self.current.load_full().layer.interpret_owned(request)
    }

    fn interpret_in_place(&self, request: InPlaceRequest<'_>) -> Result<()> {
        self.current.load_full().layer.interpret_in_place(request)
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        self.current.load().layer.catalog()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arc_swap::ArcSwap;
    use serde_json::json;

    use karmada_interpreter::api::InterpreterOperation as Op;
    use karmada_interpreter::declarative::LuaLayer;
    use karmada_interpreter::interpreter::{Layer, Outcome, Request, TypeRef};

    use super::{LiveLayer, Snapshot};

    /// Customizations answering InterpretHealth `true` for kind `A` and
    /// `false` for kind `B`.
    fn layer() -> LuaLayer {
        let yaml = "
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: a}
spec:
  target: {apiVersion: example.io/v1, kind: A}
  customizations:
    healthInterpretation: {luaScript: 'function InterpretHealth(obj) return true end'}
---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: b}
spec:
  target: {apiVersion: example.io/v1, kind: B}
  customizations:
    healthInterpretation: {luaScript: 'function InterpretHealth(obj) return false end'}
";
        let items = karmada_interpreter::load::customizations_from_str(yaml, "test").unwrap();
        LuaLayer::customizations(items).unwrap()
    }

    /// A routed call is answered from its entry by the snapshot that gave
    /// it, without a second lookup (another target's entry runs that
    /// target's script); once the snapshot is replaced, the entry is not
    /// trusted and the current snapshot looks the kind up itself.
    #[test]
    fn a_routed_call_uses_its_entry_on_the_snapshot_that_gave_it_only() {
        let current = Arc::new(ArcSwap::from_pointee(Snapshot::new(layer())));
        let live = LiveLayer::new(current.clone());
        let a = json!({"apiVersion": "example.io/v1", "kind": "A"});
        let b = json!({"apiVersion": "example.io/v1", "kind": "B"});
        let route_a = live.route(TypeRef::of(&a), Op::InterpretHealth).unwrap();
        let route_b = live.route(TypeRef::of(&b), Op::InterpretHealth).unwrap();
        let health = |entry| {
            let request = Request::InterpretHealth { object: &a };
            live.interpret_routed(entry, &request).unwrap()
        };
        assert_eq!(health(route_a.entry), Outcome::Healthy(true));
        assert_eq!(health(route_b.entry), Outcome::Healthy(false));
        current.store(Arc::new(Snapshot::new(layer())));
        assert_eq!(health(route_b.entry), Outcome::Healthy(true));
    }
}
