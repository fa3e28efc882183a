//! [`Interpreter`]: the chain of layers and its eight operations.

use std::borrow::Cow;
use std::sync::Arc;

use kube::core::GroupVersionKind;
use serde_json::Value;

use super::layer::{
    Answer, CatalogEntry, InPlaceRequest, Layer, Outcome, OwnedRequest, ReplicaResult, Request,
    Source,
};
use super::object::gvk_of;
use crate::api::{
    AggregatedStatusItem, Component, DependentObjectReference, InterpreterOperation,
    ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
};
use crate::error::{Error, Result};
use crate::k8s::field::type_phrase as type_name;

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
pub struct Interpreter {
    layers: Vec<Arc<dyn Layer>>,
}

impl std::fmt::Debug for Interpreter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interpreter")
            .field(
                "layers",
                &self.layers.iter().map(|l| l.kind()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Default for Interpreter {
    /// The built-in set: bundled third-party customizations and native built-ins.
    fn default() -> Self {
        Self {
            layers: vec![crate::thirdparty::layer(), crate::builtin::layer()],
        }
    }
}

impl Interpreter {
    /// Starts a chain with the bundled and native layers switched on.
    pub fn builder() -> InterpreterBuilder {
        InterpreterBuilder::default()
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
        self.layers.iter().find_map(|l| l.source(gvk, operation))
    }

    /// Whether any layer serves `operation` for objects of `gvk`.
    pub fn hook_enabled(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> bool {
        self.served_by(gvk, operation).is_some()
    }

    /// Every (kind, operation) each layer serves, in layer order, with the
    /// entries hidden by an earlier layer left out.
    pub fn catalog(&self) -> Vec<CatalogEntry> {
        let mut out: Vec<CatalogEntry> = Vec::new();
        for layer in &self.layers {
            for entry in layer.catalog() {
                let hidden = out.iter().any(|e| {
                    e.api_version == entry.api_version
                        && e.kind == entry.kind
                        && e.operation == entry.operation
                });
                if !hidden {
                    out.push(entry);
                }
            }
        }
        out
    }

    /// Runs one operation through the chain.
    pub fn interpret(&self, request: &Request<'_>) -> Result<Answer<Outcome>> {
        let (layer, source) = self.dispatch(request.object(), request.operation())?;
        checked(layer.interpret(request)?, request.operation(), source)
    }

    /// Runs one operation whose object the caller hands over (no copy of it
    /// when the serving layer edits it in place, as the native one does).
    pub fn interpret_owned(&self, request: OwnedRequest<'_>) -> Result<Answer<Outcome>> {
        let operation = request.operation();
        let (layer, source) = self.dispatch(request.object(), operation)?;
        checked(layer.interpret_owned(request)?, operation, source)
    }

    /// The first layer serving `operation` for `object`, and what in it serves.
    fn dispatch(
        &self,
        object: &Value,
        operation: InterpreterOperation,
    ) -> Result<(&dyn Layer, Source)> {
        if !object.is_object() {
            return Err(Error::InvalidInput {
                operation,
                reason: format!(
                    "the object must be a JSON object, got {}",
                    type_name(object)
                ),
            });
        }
        let gvk = gvk_of(object);
        for layer in &self.layers {
            if let Some(source) = layer.source(&gvk, operation) {
                return Ok((layer.as_ref(), source));
            }
        }
        Err(Error::NotServed {
            api_version: object
                .get("apiVersion")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            kind: gvk.kind,
            operation,
        })
    }

    /// `InterpretReplica`: replica count and per-replica requirements.
    pub fn get_replicas(&self, object: &Value) -> Result<Answer<ReplicaResult>> {
        let answer = self.interpret(&Request::InterpretReplica { object })?;
        unwrap_outcome(answer, |o| match o {
            Outcome::Replicas(r) => Some(r),
            _ => None,
        })
    }

    /// `InterpretComponent`: per-component replicas and requirements.
    pub fn get_components(&self, object: &Value) -> Result<Answer<Vec<Component>>> {
        let answer = self.interpret(&Request::InterpretComponent { object })?;
        unwrap_outcome(answer, |o| match o {
            Outcome::Components(c) => Some(c),
            _ => None,
        })
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

    /// [`Interpreter::revise_replica`] with the object handed over (what
    /// `revise_replica(object, n)` does): the native layer revises it in
    /// place instead of copying it.
    pub fn revise_replica_owned(&self, object: Value, replicas: i64) -> Result<Answer<Value>> {
        self.revise_replica(object, replicas)
    }

    /// `Retain`: the desired object with member-owned fields kept from
    /// `observed`. As with [`Interpreter::revise_replica`], `&mut desired`
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

    /// [`Interpreter::retain`] with the desired object handed over (what
    /// `retain(desired, &observed)` does): the native layer edits it in place
    /// instead of copying it.
    ///
    /// ```
    /// use karmada_interpreter::Interpreter;
    /// use serde_json::json;
    ///
    /// let chain = Interpreter::builder().thirdparty(false).build().unwrap();
    /// let desired = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
    ///                      "metadata": {"name": "data"}, "spec": {}});
    /// let observed = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
    ///                       "spec": {"volumeName": "pv-1"}});
    /// let kept = chain.retain(desired, &observed).unwrap().value;
    /// assert_eq!(kept["spec"]["volumeName"], "pv-1");
    /// ```
    pub fn retain_owned(&self, desired: Value, observed: &Value) -> Result<Answer<Value>> {
        self.retain(desired, observed)
    }

    /// Runs an editing operation on an object the caller lends mutably
    /// (what `revise_replica(&mut object, n)` and `retain(&mut desired, ..)`
    /// do): on success the object is the answer, on error it is unchanged.
    pub fn interpret_in_place(&self, request: InPlaceRequest<'_>) -> Result<Answer<()>> {
        let (layer, source) = self.dispatch(request.object(), request.operation())?;
        layer.interpret_in_place(request)?;
        Ok(Answer {
            value: (),
            served_by: source,
        })
    }

    /// `AggregateStatus`: the template with the members' statuses folded in.
    pub fn aggregate_status(
        &self,
        object: &Value,
        items: Option<&[AggregatedStatusItem]>,
    ) -> Result<Answer<Value>> {
        let answer = self.interpret(&Request::AggregateStatus { object, items })?;
        unwrap_outcome(answer, |o| match o {
            Outcome::Aggregated(v) => Some(v),
            _ => None,
        })
    }

    /// `InterpretStatus`: the status to report (`None` when nothing is reflected).
    pub fn reflect_status(&self, object: &Value) -> Result<Answer<Option<Value>>> {
        let answer = self.interpret(&Request::InterpretStatus { object })?;
        unwrap_outcome(answer, |o| match o {
            Outcome::Status(v) => Some(v),
            _ => None,
        })
    }

    /// `InterpretHealth`.
    pub fn interpret_health(&self, object: &Value) -> Result<Answer<bool>> {
        let answer = self.interpret(&Request::InterpretHealth { object })?;
        unwrap_outcome(answer, |o| match o {
            Outcome::Healthy(h) => Some(h),
            _ => None,
        })
    }

    /// `InterpretDependency`: objects to propagate together with this one.
    pub fn get_dependencies(
        &self,
        object: &Value,
    ) -> Result<Answer<Vec<DependentObjectReference>>> {
        let answer = self.interpret(&Request::InterpretDependency { object })?;
        unwrap_outcome(answer, |o| match o {
            Outcome::Dependencies(d) => Some(d),
            _ => None,
        })
    }
}

/// The object of an editing operation ([`Interpreter::revise_replica`],
/// [`Interpreter::retain`]) and what the edit gives back:
///
/// | passed | edit | answer |
/// |---|---|---|
/// | `&mut Value` | in place, nothing copied | `()` (the object is the result) |
/// | `Value` | in place, nothing copied | the edited object |
/// | `Cow<Value>` | as `Value` or `&Value` | the edited object |
/// | `&Value` | on a deep copy | the edited copy |
pub trait EditedObject<'a> {
    /// What the edit gives back.
    type Output;

    /// Runs `ReviseReplica` on this object through `chain`.
    fn revise(self, chain: &Interpreter, replicas: i64) -> Result<Answer<Self::Output>>;

    /// Runs `Retain` on this desired object through `chain`.
    fn retain(self, chain: &Interpreter, observed: &Value) -> Result<Answer<Self::Output>>;
}

fn revised(answer: Answer<Outcome>) -> Result<Answer<Value>> {
    unwrap_outcome(answer, |o| match o {
        Outcome::Revised(v) => Some(v),
        _ => None,
    })
}

fn retained(answer: Answer<Outcome>) -> Result<Answer<Value>> {
    unwrap_outcome(answer, |o| match o {
        Outcome::Retained(v) => Some(v),
        _ => None,
    })
}

impl<'a> EditedObject<'a> for Value {
    type Output = Value;

    fn revise(self, chain: &Interpreter, replicas: i64) -> Result<Answer<Value>> {
        let object = self;
        revised(chain.interpret_owned(OwnedRequest::ReviseReplica { object, replicas })?)
    }

    fn retain(self, chain: &Interpreter, observed: &Value) -> Result<Answer<Value>> {
        let desired = self;
        retained(chain.interpret_owned(OwnedRequest::Retain { desired, observed })?)
    }
}

impl<'a> EditedObject<'a> for &'a Value {
    type Output = Value;

    fn revise(self, chain: &Interpreter, replicas: i64) -> Result<Answer<Value>> {
        let object = self;
        revised(chain.interpret(&Request::ReviseReplica { object, replicas })?)
    }

    fn retain(self, chain: &Interpreter, observed: &Value) -> Result<Answer<Value>> {
        let desired = self;
        retained(chain.interpret(&Request::Retain { desired, observed })?)
    }
}

impl<'a> EditedObject<'a> for &'a mut Value {
    type Output = ();

    fn revise(self, chain: &Interpreter, replicas: i64) -> Result<Answer<()>> {
        let object = self;
        chain.interpret_in_place(InPlaceRequest::ReviseReplica { object, replicas })
    }

    fn retain(self, chain: &Interpreter, observed: &Value) -> Result<Answer<()>> {
        let desired = self;
        chain.interpret_in_place(InPlaceRequest::Retain { desired, observed })
    }
}

impl<'a> EditedObject<'a> for Cow<'a, Value> {
    type Output = Value;

    fn revise(self, chain: &Interpreter, replicas: i64) -> Result<Answer<Value>> {
        match self {
            Cow::Owned(object) => object.revise(chain, replicas),
            Cow::Borrowed(object) => object.revise(chain, replicas),
        }
    }

    fn retain(self, chain: &Interpreter, observed: &Value) -> Result<Answer<Value>> {
        match self {
            Cow::Owned(desired) => desired.retain(chain, observed),
            Cow::Borrowed(desired) => desired.retain(chain, observed),
        }
    }
}

/// `value` answered by `source`, checked to answer `operation`.
fn checked(
    value: Outcome,
    operation: InterpreterOperation,
    source: Source,
) -> Result<Answer<Outcome>> {
    if value.operation() != operation {
        return Err(Error::InvalidInput {
            operation,
            reason: format!("layer {source} answered {} instead", value.operation()),
        });
    }
    Ok(Answer {
        value,
        served_by: source,
    })
}

fn unwrap_outcome<T>(
    answer: Answer<Outcome>,
    pick: impl FnOnce(Outcome) -> Option<T>,
) -> Result<Answer<T>> {
    let operation = answer.value.operation();
    let served_by = answer.served_by;
    match pick(answer.value) {
        Some(value) => Ok(Answer { value, served_by }),
        // `interpret` already checked the outcome matches the operation.
        None => Err(Error::InvalidInput {
            operation,
            reason: format!("layer {served_by} answered with the wrong result type"),
        }),
    }
}

/// Builds an [`Interpreter`]: choose what goes in each of the four layers.
///
/// ```
/// use karmada_interpreter::Interpreter;
///
/// // Only the native built-ins, no bundled third-party customizations.
/// let native_only = Interpreter::builder().thirdparty(false).build().unwrap();
/// assert_eq!(native_only.layers().len(), 1);
/// ```
///
/// Declarative customizations go first in the chain, so they serve their
/// kind before any other layer:
///
/// ```
/// use karmada_interpreter::{interpreter::LayerKind, load, Interpreter};
/// use serde_json::json;
///
/// let customizations = load::customizations_from_str(r#"
/// apiVersion: config.karmada.io/v1alpha1
/// kind: ResourceInterpreterCustomization
/// metadata: {name: workload}
/// spec:
///   target: {apiVersion: workload.example.io/v1alpha1, kind: Workload}
///   customizations:
///     replicaResource:
///       luaScript: |
///         function GetReplicas(obj)
///           return obj.spec.replicas, nil
///         end
/// "#, "workload.yaml").unwrap();
/// let chain = Interpreter::builder().customizations(customizations).build().unwrap();
///
/// let workload = json!({"apiVersion": "workload.example.io/v1alpha1", "kind": "Workload",
///                       "metadata": {"name": "w"}, "spec": {"replicas": 5}});
/// let answer = chain.get_replicas(&workload).unwrap();
/// assert_eq!(answer.value.replicas, 5);
/// assert_eq!(answer.served_by.layer, LayerKind::Declarative);
/// ```
pub struct InterpreterBuilder {
    customizations: Vec<ResourceInterpreterCustomization>,
    webhooks: Vec<ResourceInterpreterWebhookConfiguration>,
    custom_layers: [Option<Arc<dyn Layer>>; 2],
    thirdparty: bool,
    native: bool,
    health_checks: Option<std::path::PathBuf>,
    health_fallback: bool,
}

impl Default for InterpreterBuilder {
    fn default() -> Self {
        Self {
            customizations: Vec::new(),
            webhooks: Vec::new(),
            custom_layers: [None, None],
            thirdparty: true,
            native: true,
            health_checks: None,
            health_fallback: false,
        }
    }
}

impl InterpreterBuilder {
    /// Adds declarative customizations (merged as Karmada merges them).
    pub fn customizations(
        mut self,
        items: impl IntoIterator<Item = ResourceInterpreterCustomization>,
    ) -> Self {
        self.customizations.extend(items);
        self
    }

    /// Adds webhook configurations.
    pub fn webhook_configurations(
        mut self,
        items: impl IntoIterator<Item = ResourceInterpreterWebhookConfiguration>,
    ) -> Self {
        self.webhooks.extend(items);
        self
    }

    /// Replaces the declarative layer with your own implementation
    /// (for example one that watches a cluster for customizations).
    pub fn declarative_layer(mut self, layer: Arc<dyn Layer>) -> Self {
        self.custom_layers[0] = Some(layer);
        self
    }

    /// Replaces the webhook layer with your own implementation.
    pub fn webhook_layer(mut self, layer: Arc<dyn Layer>) -> Self {
        self.custom_layers[1] = Some(layer);
        self
    }

    /// Whether the thirdparty layer (the bundled customizations) takes part
    /// (default: yes).
    pub fn thirdparty(mut self, on: bool) -> Self {
        self.thirdparty = on;
        self
    }

    /// Whether the native built-ins take part (default: yes).
    pub fn native(mut self, on: bool) -> Self {
        self.native = on;
        self
    }

    /// Adds the Argo CD health-check layer: the `health.lua` checks of
    /// `dir` (Argo CD's `<group>/<Kind>/health.lua` layout) answer
    /// `InterpretHealth` for kinds no earlier layer serves (default: off;
    /// see [`crate::health::argocd`]).
    pub fn health_checks(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.health_checks = Some(dir.into());
        self
    }

    /// Whether the kstatus-style generic health answers `InterpretHealth`
    /// for every kind no other layer serves (default: no; see
    /// [`crate::health::fallback`]).
    pub fn health_fallback(mut self, on: bool) -> Self {
        self.health_fallback = on;
        self
    }

    /// Validates and loads everything into a chain.
    pub fn build(self) -> Result<Interpreter> {
        let mut layers: Vec<Arc<dyn Layer>> = Vec::new();
        let [custom_declarative, custom_webhook] = self.custom_layers;
        if let Some(layer) = custom_declarative {
            layers.push(layer);
        }
        if !self.customizations.is_empty() {
            layers.push(Arc::new(crate::lua::LuaLayer::customizations(
                self.customizations,
            )?));
        }
        if let Some(layer) = custom_webhook {
            layers.push(layer);
        }
        if !self.webhooks.is_empty() {
            layers.push(Arc::new(crate::webhook::WebhookLayer::new(self.webhooks)?));
        }
        if self.thirdparty {
            layers.push(crate::thirdparty::layer());
        }
        if self.native {
            layers.push(crate::builtin::layer());
        }
        if let Some(dir) = &self.health_checks {
            layers.push(Arc::new(crate::health::ArgoCdHealth::from_dir(dir)?));
        }
        if self.health_fallback {
            layers.push(Arc::new(crate::health::HealthFallback));
        }
        Ok(Interpreter { layers })
    }
}
