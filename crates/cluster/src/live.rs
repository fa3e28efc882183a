//! A layer that answers from the latest published snapshot.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::interpreter::{
    Below, CatalogEntry, InPlaceRequest, Layer, LayerKind, Outcome, OwnedRequest, Request, Route,
    TypeRef, Written,
};
use karmada_interpreter::Result;

use crate::shadow::Baseline;
use crate::Shared;

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
            // Never all ones: no stamped entry is [`BASELINE`].
            stamp: STAMPS.fetch_add(1, Ordering::Relaxed) & (Self::ENTRY_MASK >> 1),
            layer,
        }
    }

    /// The published layer.
    pub(crate) fn layer(&self) -> &L {
        &self.layer
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
///
/// The customization layer's calls are also watched (`calls`): a failing
/// script is counted per customization and rule, and a call a shadow
/// customization serves is copied for the shadow thread
/// ([`crate::shadow`]). The webhook layer's are not.
///
/// With a `baseline`, the calls of a kind and operation that only a shadow
/// defines are routed here too and answered by the baseline — the chain's
/// own layers below this one — so the shadow can be compared with them.
pub(crate) struct LiveLayer<L> {
    current: Arc<ArcSwap<Snapshot<L>>>,
    calls: Option<Arc<Shared>>,
    baseline: Option<Arc<Baseline>>,
}

/// The route entry of a call the baseline answers.
const BASELINE: usize = usize::MAX;

impl<L> LiveLayer<L> {
    pub(crate) fn new(current: Arc<ArcSwap<Snapshot<L>>>) -> Self {
        Self {
            current,
            calls: None,
            baseline: None,
        }
    }

    /// The same, with its calls watched and compared with `baseline` where
    /// only a shadow serves.
    pub(crate) fn watched(
        current: Arc<ArcSwap<Snapshot<L>>>,
        shared: Arc<Shared>,
        baseline: Option<Arc<Baseline>>,
    ) -> Self {
        Self {
            current,
            calls: Some(shared),
            baseline,
        }
    }

    /// A route to the baseline for a kind and operation only a shadow defines.
    fn baseline_route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
        let (shared, baseline) = (self.calls.as_ref()?, self.baseline.as_ref()?);
        if !shared.shadows.load().serves_type(ty, operation) {
            return None;
        }
        let source = baseline.get()?.served_by(&ty.to_gvk(), operation)?;
        Some(Route {
            entry: BASELINE,
            source,
        })
    }

    /// The baseline's answer, handed to the shadow (a failure below is not
    /// a customization's: it is not counted).
    fn answer_by_baseline(&self, request: &Request<'_>) -> Result<Outcome> {
        let (Some(shared), Some(chain)) = (
            self.calls.as_ref(),
            self.baseline.as_ref().and_then(|b| b.get()),
        ) else {
            return Err(karmada_interpreter::Error::not_served(
                request.object(),
                request.operation(),
            ));
        };
        let copy = shared.tap.before(shared, request);
        let result = chain.interpret(request).map(|answer| answer.value);
        if let Some(copy) = copy {
            shared.tap.after(shared, copy, result.as_ref());
        }
        result
    }
}

impl<L: Layer> LiveLayer<L> {
    /// Runs `call` for `request`, counting a script failure and handing the
    /// answer to a shadow that serves the request.
    fn observed(
        &self,
        request: &Request<'_>,
        call: impl FnOnce() -> Result<Outcome>,
    ) -> Result<Outcome> {
        let Some(shared) = &self.calls else {
            return call();
        };
        let copy = shared.tap.before(shared, request);
        let result = call();
        if let Err(error) = &result {
            shared.failed(error);
        }
        if let Some(copy) = copy {
            shared.tap.after(shared, copy, result.as_ref());
        }
        result
    }

    /// A failure of an editing call answered in place (no shadow copy).
    fn counted<T>(&self, result: Result<T>) -> Result<T> {
        if let (Some(shared), Err(error)) = (&self.calls, &result) {
            shared.failed(error);
        }
        result
    }

    /// Whether a shadow serves `request` (its calls then take the borrowed
    /// path, whose answer can be compared).
    fn shadowed(&self, request: &Request<'_>) -> bool {
        self.calls
            .as_ref()
            .is_some_and(|shared| shared.shadows.load().serves(request))
    }
}

impl<L: Layer> Layer for LiveLayer<L> {
    fn kind(&self) -> LayerKind {
        self.current.load().layer.kind()
    }

    /// The current snapshot's route, its entry stamped with the snapshot:
    /// the snapshot may be replaced before the call is answered, and an
    /// entry is only answered by the snapshot that gave it.
    fn route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
        let snapshot = self.current.load();
        match snapshot.layer.route(ty, operation) {
            Some(route) => Some(Route {
                entry: snapshot.entry(route.entry),
                source: route.source,
            }),
            None => self.baseline_route(ty, operation),
        }
    }

    /// The current snapshot answers by the route's entry if it gave it,
    /// else (replaced since) through its `interpret` methods.
    fn interpret_routed(&self, entry: usize, request: &Request<'_>) -> Result<Outcome> {
        if entry == BASELINE {
            return self.answer_by_baseline(request);
        }
        let snapshot = self.current.load_full();
        self.observed(request, || match snapshot.own_entry(entry) {
            Some(entry) => snapshot.layer.interpret_routed(entry, request),
            None => snapshot.layer.interpret(request),
        })
    }

    fn edit_routed(&self, entry: usize, request: InPlaceRequest<'_>) -> Result<Written> {
        let snapshot = self.current.load_full();
        if entry == BASELINE || self.shadowed(&request.as_request()) {
            let outcome = self.interpret_routed(entry, &request.as_request())?;
            request.store(outcome)?;
            return Ok(Written::unknown());
        }
        self.counted(match snapshot.own_entry(entry) {
            Some(entry) => snapshot.layer.edit_routed(entry, request),
            None => snapshot
                .layer
                .interpret_in_place(request)
                .map(|()| Written::unknown()),
        })
    }

    /// As `interpret_routed`, with the layers below at hand (composition):
    /// a snapshot replaced since routes the request again.
    fn interpret_over(
        &self,
        entry: usize,
        request: &Request<'_>,
        below: Below<'_>,
    ) -> Result<Outcome> {
        if entry == BASELINE {
            return self.answer_by_baseline(request);
        }
        let snapshot = self.current.load_full();
        self.observed(request, || {
            match snapshot.entry_for(entry, request.object(), request.operation()) {
                Some(entry) => snapshot.layer.interpret_over(entry, request, below),
                None => snapshot.layer.interpret(request),
            }
        })
    }

    /// As `edit_routed`, with the layers below at hand (composition).
    fn edit_over(
        &self,
        entry: usize,
        request: InPlaceRequest<'_>,
        below: Below<'_>,
    ) -> Result<Written> {
        if entry == BASELINE || self.shadowed(&request.as_request()) {
            let outcome = self.interpret_over(entry, &request.as_request(), below)?;
            request.store(outcome)?;
            return Ok(Written::unknown());
        }
        let snapshot = self.current.load_full();
        self.counted(
            match snapshot.entry_for(entry, request.object(), request.operation()) {
                Some(entry) => snapshot.layer.edit_over(entry, request, below),
                None => snapshot
                    .layer
                    .interpret_in_place(request)
                    .map(|()| Written::unknown()),
            },
        )
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let snapshot = self.current.load_full();
        self.observed(request, || snapshot.layer.interpret(request))
    }

    fn interpret_owned(&self, request: OwnedRequest<'_>) -> Result<Outcome> {
        if self.shadowed(&request.as_request()) {
            return self.interpret(&request.as_request());
        }
        self.counted(self.current.load_full().layer.interpret_owned(request))
    }

    fn interpret_in_place(&self, request: InPlaceRequest<'_>) -> Result<()> {
        if self.shadowed(&request.as_request()) {
            let outcome = self.interpret(&request.as_request())?;
            return request.store(outcome);
        }
        self.counted(self.current.load_full().layer.interpret_in_place(request))
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
