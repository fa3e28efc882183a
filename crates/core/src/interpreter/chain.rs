//! [`Chain`]: the layers consulted in order, and the eight operations.

use std::borrow::Cow;
use std::sync::Arc;

use kube::core::GroupVersionKind;
use serde_json::Value;

use super::layer::{
    Answer, CatalogEntry, InPlaceRequest, Layer, Outcome, OwnedRequest, ReplicaResult, Request,
    Route, Source,
};
use super::object::TypeRef;
use super::typed::ObjectArg;
use crate::api::{AggregatedStatusItem, Component, DependentObjectReference, InterpreterOperation};
use crate::error::{Error, Result};
use crate::k8s::field::type_phrase as type_name;
use crate::k8s::written::Written;

/// Karmada's resource interpreter: customizations, webhooks, bundled
/// third-party customizations and native built-ins, consulted in that order.
///
/// ```
/// use karmada_interpreter::{Interpreter, interpreter::LayerKind};
/// use serde_json::json;
///
/// let chain = Interpreter::builder().build().unwrap();
/// let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
///                  "status": {"phase": "Running"}});
/// // Whole-status reflection is native for every kind.
/// let answer = chain.reflect_status(&pod).unwrap();
/// assert_eq!(answer.served_by.layer, LayerKind::Native);
///
/// // Replicas and what each replica needs, for Karmada's scheduler.
/// let deployment = json!({
///     "apiVersion": "apps/v1", "kind": "Deployment",
///     "metadata": {"name": "web", "namespace": "shop"},
///     "spec": {"replicas": 3, "template": {"spec": {"containers": [
///         {"name": "app", "resources": {"requests": {"cpu": "250m"}}}]}}}
/// });
/// let replicas = chain.get_replicas(&deployment).unwrap().value;
/// assert_eq!(replicas.replicas, 3);
/// let needs = replicas.requirements.unwrap();
/// assert_eq!(needs.resource_request["cpu"].0, "250m");
///
/// // Scale it down for one member cluster.
/// let revised = chain.revise_replica(&deployment, 1).unwrap().value;
/// assert_eq!(revised["spec"]["replicas"], 1);
///
/// // Bad input is a typed error naming the field, never a panic.
/// let bad = json!({"apiVersion": "apps/v1", "kind": "Deployment",
///                  "metadata": {"name": "web"}, "spec": {"replicas": "three"}});
/// let error = chain.get_replicas(&bad).unwrap_err();
/// assert!(error.to_string().contains("spec.replicas"), "{error}");
/// ```
#[derive(Clone)]
pub struct Chain {
    layers: Vec<Arc<dyn Layer>>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field(
                "layers",
                &self.layers.iter().map(|l| l.kind()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Chain {
    /// A chain of `layers`, consulted in the order given. The
    /// `karmada-interpreter` crate assembles Karmada's four layers in
    /// Karmada's order (`Interpreter::default`, `Interpreter::builder`).
    pub fn new(layers: Vec<Arc<dyn Layer>>) -> Self {
        Self { layers }
    }

    /// The layers, in consultation order.
    pub fn layers(&self) -> &[Arc<dyn Layer>] {
        &self.layers
    }

    /// Which layer would answer `operation` for objects of `gvk`.
    pub fn served_by(
        &self,
        gvk: &GroupVersionKind,
        operation: InterpreterOperation,
    ) -> Option<Source> {
        self.route(TypeRef::from_gvk(gvk), operation)
            .map(|(_, route)| route.source)
    }

    /// The first layer serving `operation` for objects of type `ty`, and
    /// its route: resolved once per call, without allocating.
    pub(super) fn route(
        &self,
        ty: TypeRef<'_>,
        operation: InterpreterOperation,
    ) -> Option<(&dyn Layer, Route)> {
        route_in(&self.layers, ty, operation).map(|(layer, _, route)| (layer, route))
    }

    /// Whether any layer serves `operation` for objects of `gvk`.
    pub fn hook_enabled(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> bool {
        self.served_by(gvk, operation).is_some()
    }

    /// Every (kind, operation) each layer serves, in layer order, with the
    /// entries hidden by an earlier layer left out.
    pub fn catalog(&self) -> Vec<CatalogEntry> {
        let entries: Vec<CatalogEntry> = self.layers.iter().flat_map(|l| l.catalog()).collect();
        // The first entry of each (kind, operation) is kept: one look-up
        // per entry, not a pass over those kept so far.
        let mut seen = std::collections::HashSet::new();
        let kept: Vec<bool> = entries
            .iter()
            .map(|e| seen.insert((e.api_version.as_str(), e.kind.as_str(), e.operation)))
            .collect();
        entries
            .into_iter()
            .zip(kept)
            .filter_map(|(entry, kept)| kept.then_some(entry))
            .collect()
    }

    /// Runs one operation through the chain.
    pub fn interpret(&self, request: &Request<'_>) -> Result<Answer<Outcome>> {
        self.ask(request, |operation, outcome| {
            if outcome.operation() == operation {
                Ok(outcome)
            } else {
                Err(outcome)
            }
        })
    }

    /// Runs a reading operation through the chain and converts its outcome
    /// to the operation's result type (the conversion is the one check that
    /// the layer answered the operation asked).
    fn read<T: TryFrom<Outcome, Error = Outcome>>(
        &self,
        request: &Request<'_>,
    ) -> Result<Answer<T>> {
        self.ask(request, |_, outcome| T::try_from(outcome))
    }

    /// Resolves `request` to the first layer serving its object and
    /// operation (once, from the object's borrowed apiVersion and kind),
    /// has that layer answer it and takes the answer with `take`, which
    /// gives back an outcome that does not answer the operation.
    fn ask<T>(
        &self,
        request: &Request<'_>,
        take: impl FnOnce(InterpreterOperation, Outcome) -> std::result::Result<T, Outcome>,
    ) -> Result<Answer<T>> {
        let operation = request.operation();
        let (layer, below, route) = self.resolve(request.object(), operation)?;
        let source = route.source;
        match take(
            operation,
            layer.interpret_over(route.entry, request, below)?,
        ) {
            Ok(value) => Ok(Answer {
                value,
                served_by: source,
            }),
            Err(other) => Err(answered_instead(operation, &source, &other)),
        }
    }

    /// Runs one operation whose object the caller hands over (no copy of it
    /// when the serving layer edits it in place, as the native one does).
    ///
    /// The object stays where the caller put it: the request runs as an
    /// edit in place ([`Chain::interpret_in_place`]; a layer that does not
    /// edit in place answers and its answer is stored), and the edited
    /// object is handed back in the outcome.
    pub fn interpret_owned(&self, mut request: OwnedRequest<'_>) -> Result<Answer<Outcome>> {
        let answer = self.interpret_in_place(request.lend())?;
        Ok(answer.map(|()| request.into_outcome()))
    }

    /// An editing operation on an object handed over: edited in place
    /// ([`Chain::interpret_in_place`]) and handed back as the answer.
    fn edit_owned(&self, mut request: OwnedRequest<'_>) -> Result<Answer<Value>> {
        let answer = self.interpret_in_place(request.lend())?;
        Ok(answer.map(|()| request.into_object()))
    }

    /// An editing operation on a lent object: the edited copy the layer
    /// answers, taken only from an outcome of the operation asked.
    fn edit_copy(&self, request: &Request<'_>) -> Result<Answer<Value>> {
        use InterpreterOperation as Op;
        self.ask(request, |operation, outcome| match (operation, outcome) {
            (Op::ReviseReplica, Outcome::Revised(object))
            | (Op::Retain, Outcome::Retained(object))
            | (Op::AggregateStatus, Outcome::Aggregated(object)) => Ok(object),
            #[cfg(feature = "karmada-next")]
            (Op::ReviseComponents, Outcome::ComponentsRevised(object)) => Ok(object),
            (_, other) => Err(other),
        })
    }

    /// The first layer serving `operation` for `object`, and its route; an
    /// error when `object` is not a JSON object or no layer serves it.
    fn resolve(
        &self,
        object: &Value,
        operation: InterpreterOperation,
    ) -> Result<(&dyn Layer, Below<'_>, Route)> {
        resolve_in(&self.layers, object, operation)?
            .ok_or_else(|| Error::not_served(object, operation))
    }

    /// `ReviseComponents` (the `karmada-next` profile, Karmada's pull request
    /// #7830): a copy of `object` with each component's replica count set
    /// from `components`, as the serving layer's rule writes it.
    #[cfg(feature = "karmada-next")]
    pub fn revise_components(
        &self,
        object: &Value,
        components: &[crate::api::TargetComponent],
    ) -> Result<Answer<Value>> {
        self.edit_copy(&Request::ReviseComponents {
            object,
            components: Some(components),
        })
    }

    /// `InterpretReplica`: replica count and per-replica requirements.
    pub fn get_replicas<'a>(&self, object: impl ObjectArg<'a>) -> Result<Answer<ReplicaResult>> {
        let object = &*object.json()?;
        self.read(&Request::InterpretReplica { object })
    }

    /// `InterpretComponent`: per-component replicas and requirements.
    pub fn get_components<'a>(&self, object: impl ObjectArg<'a>) -> Result<Answer<Vec<Component>>> {
        let object = &*object.json()?;
        self.read(&Request::InterpretComponent { object })
    }

    /// `ReviseReplica`: the object with its replica count set to `replicas`.
    ///
    /// What it costs depends on how the object is passed ([`EditedObject`]):
    ///
    /// - `&mut object` — **edited in place**, as Karmada edits the object it
    ///   is given: nothing is copied, the native layer writes only
    ///   `spec.replicas` (or `spec.parallelism`), and the answer's value is
    ///   `()`. On error the object is unchanged.
    /// - `object` (by value) — the same in-place edit, the edited object
    ///   handed back.
    /// - `&object` — the object is **copied** first (a deep copy, which for
    ///   a typical Deployment costs far more than the edit), then edited.
    ///
    /// ```
    /// use karmada_interpreter::Interpreter;
    /// use serde_json::json;
    ///
    /// let chain = Interpreter::builder().thirdparty(false).build().unwrap();
    /// let mut deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
    ///                             "metadata": {"name": "web"}, "spec": {"replicas": 1}});
    /// let copy = chain.revise_replica(&deployment, 3).unwrap().value;
    /// chain.revise_replica(&mut deployment, 3).unwrap();
    /// assert_eq!(deployment, copy);
    /// let moved = chain.revise_replica(deployment, 4).unwrap().value;
    /// assert_eq!(moved["spec"]["replicas"], 4);
    /// ```
    pub fn revise_replica<'a, O: EditedObject<'a>>(
        &self,
        object: O,
        replicas: i64,
    ) -> Result<Answer<O::Output>> {
        object.revise(self, replicas)
    }

    /// `Retain`: the desired object with member-owned fields kept from
    /// `observed`. As with [`Chain::revise_replica`], `&mut desired`
    /// is edited in place (only the retained fields are written), a desired
    /// object handed over is edited in place and handed back, and a lent
    /// `&desired` is copied first.
    ///
    /// ```
    /// use karmada_interpreter::Interpreter;
    /// use serde_json::json;
    ///
    /// let chain = Interpreter::builder().thirdparty(false).build().unwrap();
    /// let mut desired = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
    ///                          "metadata": {"name": "data"}, "spec": {}});
    /// let observed = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
    ///                       "spec": {"volumeName": "pv-1"}});
    /// chain.retain(&mut desired, &observed).unwrap();
    /// assert_eq!(desired["spec"]["volumeName"], "pv-1");
    /// ```
    pub fn retain<'a, O: EditedObject<'a>>(
        &self,
        desired: O,
        observed: &Value,
    ) -> Result<Answer<O::Output>> {
        desired.retain(self, observed)
    }

    /// Runs an editing operation on an object the caller lends mutably
    /// (what `revise_replica(&mut object, n)` and `retain(&mut desired, ..)`
    /// do): on success the object is the answer, on error it is unchanged.
    pub fn interpret_in_place(&self, request: InPlaceRequest<'_>) -> Result<Answer<()>> {
        Ok(self.edit_in_place(request)?.map(|_| ()))
    }

    /// [`Chain::interpret_in_place`], saying what the edit wrote: the JSON
    /// Patch operations the serving layer applied, when it edits field by
    /// field as the native layer does ([`Written`]).
    ///
    /// ```
    /// use karmada_interpreter::interpreter::InPlaceRequest;
    /// use karmada_interpreter::Interpreter;
    /// use serde_json::json;
    ///
    /// let chain = Interpreter::builder().thirdparty(false).build().unwrap();
    /// let mut object = json!({"apiVersion": "apps/v1", "kind": "Deployment",
    ///                         "metadata": {"name": "web"}, "spec": {"replicas": 1}});
    /// let written = chain
    ///     .edit_in_place(InPlaceRequest::ReviseReplica { object: &mut object, replicas: 3 })
    ///     .unwrap()
    ///     .value;
    /// assert_eq!(written.writes().unwrap()[0].pointer(), "/spec/replicas");
    /// assert_eq!(object["spec"]["replicas"], 3);
    /// ```
    pub fn edit_in_place(&self, request: InPlaceRequest<'_>) -> Result<Answer<Written>> {
        let (layer, below, route) = self.resolve(request.object(), request.operation())?;
        let written = layer.edit_over(route.entry, request, below)?;
        Ok(Answer {
            value: written,
            served_by: route.source,
        })
    }

    /// `AggregateStatus`: the template with the members' statuses folded
    /// in. As with [`Chain::revise_replica`], the argument's type says what
    /// comes back: `&template` gives a new object, `&mut template` is edited
    /// into the answer (the native layer writes only what differs: the
    /// status, fields Go's encoding adds or drops; on error the template is
    /// unchanged), `template` by value is edited so and handed back, and
    /// `Typed(&template)` gives its own type back.
    pub fn aggregate_status<'a, O: EditedObject<'a>>(
        &self,
        object: O,
        items: Option<&[AggregatedStatusItem]>,
    ) -> Result<Answer<O::Output>> {
        object.aggregate(self, items)
    }

    /// `InterpretStatus`: the status to report (`None` when nothing is reflected).
    pub fn reflect_status<'a>(&self, object: impl ObjectArg<'a>) -> Result<Answer<Option<Value>>> {
        let object = &*object.json()?;
        self.read(&Request::InterpretStatus { object })
    }

    /// `InterpretHealth`.
    pub fn interpret_health<'a>(&self, object: impl ObjectArg<'a>) -> Result<Answer<bool>> {
        let object = &*object.json()?;
        self.read(&Request::InterpretHealth { object })
    }

    /// `InterpretDependency`: objects to propagate together with this one.
    pub fn get_dependencies<'a>(
        &self,
        object: impl ObjectArg<'a>,
    ) -> Result<Answer<Vec<DependentObjectReference>>> {
        let object = &*object.json()?;
        self.read(&Request::InterpretDependency { object })
    }
}

/// The first of `layers` serving `operation` for objects of type `ty`, the
/// layers after it, and its route.
fn route_in<'a>(
    layers: &'a [Arc<dyn Layer>],
    ty: TypeRef<'_>,
    operation: InterpreterOperation,
) -> Option<(&'a dyn Layer, Below<'a>, Route)> {
    layers.iter().enumerate().find_map(|(i, l)| {
        let route = l.route(ty, operation)?;
        let after = layers.get(i + 1..).unwrap_or_default();
        Some((l.as_ref(), Below { layers: after }, route))
    })
}

/// [`route_in`] for `object`: an error when it is not a JSON object,
/// `None` when none of `layers` serves it.
fn resolve_in<'a>(
    layers: &'a [Arc<dyn Layer>],
    object: &Value,
    operation: InterpreterOperation,
) -> Result<Option<(&'a dyn Layer, Below<'a>, Route)>> {
    if !object.is_object() {
        return Err(Error::InvalidInput {
            operation,
            reason: format!(
                "the object must be a JSON object, got {}",
                type_name(object)
            ),
        });
    }
    Ok(route_in(layers, TypeRef::of(object), operation))
}

/// A layer answered another operation than the one asked.
fn answered_instead(operation: InterpreterOperation, source: &Source, other: &Outcome) -> Error {
    Error::InvalidInput {
        operation,
        reason: format!("layer {source} answered {} instead", other.operation()),
    }
}

/// The layers after the one answering a request, in the chain's order:
/// what would answer it if that layer did not serve it. A layer that
/// composes with them ([`Layer::interpret_over`]) asks them through
/// [`Below::interpret`], where they dispatch as in the chain: the first
/// that serves the request answers, with the layers after *it* below it.
///
/// ```
/// use karmada_interpreter::interpreter::{Below, Outcome, Request};
/// use karmada_interpreter::Interpreter;
/// use serde_json::json;
///
/// let chain = Interpreter::builder().thirdparty(false).build().unwrap();
/// let below = Below::new(chain.layers());
/// let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
///                  "spec": {"parallelism": 1}});
/// let answer = below.interpret(&Request::ReviseReplica { object: &job, replicas: 2 }).unwrap().unwrap();
/// let Outcome::Revised(revised) = answer.value else { unreachable!() };
/// assert_eq!(revised["spec"]["parallelism"], 2);
/// // Nothing below the last layer.
/// let request = Request::InterpretReplica { object: &job };
/// assert!(Below::none().interpret(&request).unwrap().is_none());
/// ```
#[derive(Clone, Copy)]
pub struct Below<'a> {
    layers: &'a [Arc<dyn Layer>],
}

impl std::fmt::Debug for Below<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.layers.iter().map(|l| l.kind()))
            .finish()
    }
}

impl<'a> Below<'a> {
    /// `layers`, consulted in the order given.
    pub fn new(layers: &'a [Arc<dyn Layer>]) -> Self {
        Self { layers }
    }

    /// No layers: nothing serves any request (what a layer called outside
    /// a chain, or the last one, has below it).
    pub fn none() -> Below<'static> {
        Below { layers: &[] }
    }

    /// The layers, in consultation order.
    pub fn layers(&self) -> &'a [Arc<dyn Layer>] {
        self.layers
    }

    /// What would answer `operation` for objects of type `ty`.
    pub fn source(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Source> {
        route_in(self.layers, ty, operation).map(|(_, _, route)| route.source)
    }

    /// The answer of the first of these layers serving the request, or
    /// `None` when none does; its error when it fails (as in the chain).
    pub fn interpret(&self, request: &Request<'_>) -> Result<Option<Answer<Outcome>>> {
        let operation = request.operation();
        let Some((layer, below, route)) = resolve_in(self.layers, request.object(), operation)?
        else {
            return Ok(None);
        };
        let outcome = layer.interpret_over(route.entry, request, below)?;
        if outcome.operation() != operation {
            return Err(answered_instead(operation, &route.source, &outcome));
        }
        Ok(Some(Answer {
            value: outcome,
            served_by: route.source,
        }))
    }
}

/// The object of an editing operation ([`Chain::revise_replica`],
/// [`Chain::retain`], [`Chain::aggregate_status`]) and what the edit gives back:
///
/// | passed | edit | answer |
/// |---|---|---|
/// | `&mut Value` | in place, nothing copied | `()` (the object is the result) |
/// | `Value` | in place, nothing copied | the edited object |
/// | `Cow<Value>` | as `Value` or `&Value` | the edited object |
/// | `&Value` | on a deep copy | the edited copy |
/// | [`Typed`](super::Typed)`(&K)` | on its JSON form | a new `K` |
pub trait EditedObject<'a> {
    /// What the edit gives back.
    type Output;

    /// Runs `ReviseReplica` on this object through `chain`.
    fn revise(self, chain: &Chain, replicas: i64) -> Result<Answer<Self::Output>>;

    /// Runs `Retain` on this desired object through `chain`.
    fn retain(self, chain: &Chain, observed: &Value) -> Result<Answer<Self::Output>>;

    /// Runs `AggregateStatus` on this template through `chain`.
    fn aggregate(
        self,
        chain: &Chain,
        items: Option<&[AggregatedStatusItem]>,
    ) -> Result<Answer<Self::Output>>;
}

impl<'a> EditedObject<'a> for Value {
    type Output = Value;

    fn revise(self, chain: &Chain, replicas: i64) -> Result<Answer<Value>> {
        let object = self;
        chain.edit_owned(OwnedRequest::ReviseReplica { object, replicas })
    }

    fn retain(self, chain: &Chain, observed: &Value) -> Result<Answer<Value>> {
        let desired = self;
        chain.edit_owned(OwnedRequest::Retain { desired, observed })
    }
    fn aggregate(
        self,
        chain: &Chain,
        items: Option<&[AggregatedStatusItem]>,
    ) -> Result<Answer<Value>> {
        let object = self;
        chain.edit_owned(OwnedRequest::AggregateStatus { object, items })
    }
}

impl<'a> EditedObject<'a> for &'a Value {
    type Output = Value;

    fn revise(self, chain: &Chain, replicas: i64) -> Result<Answer<Value>> {
        let object = self;
        chain.edit_copy(&Request::ReviseReplica { object, replicas })
    }

    fn retain(self, chain: &Chain, observed: &Value) -> Result<Answer<Value>> {
        let desired = self;
        chain.edit_copy(&Request::Retain { desired, observed })
    }
    fn aggregate(
        self,
        chain: &Chain,
        items: Option<&[AggregatedStatusItem]>,
    ) -> Result<Answer<Value>> {
        let object = self;
        chain.edit_copy(&Request::AggregateStatus { object, items })
    }
}

impl<'a> EditedObject<'a> for &'a mut Value {
    type Output = ();

    fn revise(self, chain: &Chain, replicas: i64) -> Result<Answer<()>> {
        let object = self;
        chain.interpret_in_place(InPlaceRequest::ReviseReplica { object, replicas })
    }

    fn retain(self, chain: &Chain, observed: &Value) -> Result<Answer<()>> {
        let desired = self;
        chain.interpret_in_place(InPlaceRequest::Retain { desired, observed })
    }
    fn aggregate(
        self,
        chain: &Chain,
        items: Option<&[AggregatedStatusItem]>,
    ) -> Result<Answer<()>> {
        let object = self;
        chain.interpret_in_place(InPlaceRequest::AggregateStatus { object, items })
    }
}

impl<'a> EditedObject<'a> for Cow<'a, Value> {
    type Output = Value;

    fn revise(self, chain: &Chain, replicas: i64) -> Result<Answer<Value>> {
        match self {
            Cow::Owned(object) => object.revise(chain, replicas),
            Cow::Borrowed(object) => object.revise(chain, replicas),
        }
    }

    fn retain(self, chain: &Chain, observed: &Value) -> Result<Answer<Value>> {
        match self {
            Cow::Owned(desired) => desired.retain(chain, observed),
            Cow::Borrowed(desired) => desired.retain(chain, observed),
        }
    }
    fn aggregate(
        self,
        chain: &Chain,
        items: Option<&[AggregatedStatusItem]>,
    ) -> Result<Answer<Value>> {
        match self {
            Cow::Owned(object) => object.aggregate(chain, items),
            Cow::Borrowed(object) => object.aggregate(chain, items),
        }
    }
}
