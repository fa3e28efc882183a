//! The interpreter chain: the layer contract and [`Chain`] from the floor
//! (`karmada-interpreter-core`), and here, above every layer, the one place
//! that assembles Karmada's four layers in Karmada's order: [`Interpreter`]
//! (the default chain) and [`InterpreterBuilder`].
//!
//! As in Karmada, where `pkg/resourceinterpreter/interpreter.go` is the only
//! file that imports all four layer packages, this module is the only one
//! that names every layer; the front ends (golden runner, cluster, CLI) call
//! it, and no layer does.

use std::ops::Deref;
use std::sync::Arc;

pub use karmada_interpreter_core::interpreter::*;

use karmada_interpreter_declarative::{Coverage, Limits, LuaLayer};
use karmada_interpreter_health::{ArgoCdHealth, HealthFallback};

use crate::api::{ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration};
use crate::profile::Profile;
use crate::{Error, Result};

/// Karmada's resource interpreter: customizations, webhooks, bundled
/// third-party customizations and native built-ins, consulted in that order.
///
/// An `Interpreter` is a [`Chain`] of those layers: it dereferences to it
/// (the eight operations are [`Chain`]'s methods) and converts into it
/// (`Chain::from`), and there is no other way to reach it.
///
/// ```
/// use karmada_interpreter::{Interpreter, interpreter::LayerKind};
/// use serde_json::json;
///
/// let chain = Interpreter::default(); // bundled third-party + native built-ins
/// let deployment = json!({
///     "apiVersion": "apps/v1", "kind": "Deployment",
///     "metadata": {"name": "web", "namespace": "shop"},
///     "spec": {"replicas": 3, "template": {"spec": {"containers": [
///         {"name": "app", "resources": {"requests": {"cpu": "250m"}}}]}}}
/// });
/// let replicas = chain.get_replicas(&deployment).unwrap();
/// assert_eq!(replicas.value.replicas, 3);
/// assert_eq!(replicas.served_by.layer, LayerKind::Native);
/// ```
#[derive(Clone, Debug)]
pub struct Interpreter(Chain);

impl Default for Interpreter {
    /// The built-in set: bundled third-party customizations and native built-ins.
    fn default() -> Self {
        Interpreter(Chain::new(vec![
            karmada_interpreter_thirdparty::layer(),
            karmada_interpreter_native::layer(),
        ]))
    }
}

impl Interpreter {
    /// Starts a chain with the bundled and native layers switched on.
    pub fn builder() -> InterpreterBuilder {
        InterpreterBuilder::default()
    }
}

impl Deref for Interpreter {
    type Target = Chain;

    fn deref(&self) -> &Chain {
        &self.0
    }
}

impl From<Interpreter> for Chain {
    fn from(interpreter: Interpreter) -> Chain {
        interpreter.0
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
    #[cfg(feature = "cel")]
    health_exprs: Option<karmada_interpreter_health::HealthExprs>,
    health_fallback: bool,
    lua_limits: Option<Limits>,
    coverage: Option<Coverage>,
    profile: Profile,
    composition: bool,
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
            #[cfg(feature = "cel")]
            health_exprs: None,
            health_fallback: false,
            lua_limits: None,
            coverage: None,
            profile: Profile::Karmada,
            composition: false,
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
    /// see `karmada_interpreter_health::argocd`).
    pub fn health_checks(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.health_checks = Some(dir.into());
        self
    }

    /// Adds the CEL health layer: Flux kustomize-controller
    /// `healthCheckExprs` rules (a YAML file of them, or parsed
    /// [`HealthExpr`](karmada_interpreter_health::HealthExpr)s) answer
    /// `InterpretHealth` for the kinds they name that no earlier layer
    /// serves. It sits after the native layer and before the Argo CD one
    /// (a rule written for one kind wins over a folder of Argo CD checks);
    /// default: off (see `karmada_interpreter_health::cel`).
    ///
    /// ```
    /// use karmada_interpreter::Interpreter;
    /// use karmada_interpreter::health::{HealthExpr, CEL};
    /// use serde_json::json;
    ///
    /// let rule = HealthExpr {
    ///     api_version: "bitnami.com/v1alpha1".into(),
    ///     kind: "SealedSecret".into(),
    ///     failed: Some("status.conditions.filter(e, e.type == 'Synced').all(e, e.status == 'False')".into()),
    ///     current: "status.conditions.filter(e, e.type == 'Synced').all(e, e.status == 'True')".into(),
    ///     ..HealthExpr::default()
    /// };
    /// let chain = Interpreter::builder().health_exprs(vec![rule]).build().unwrap();
    /// let synced = json!({"apiVersion": "bitnami.com/v1alpha1", "kind": "SealedSecret",
    ///                     "status": {"conditions": [{"type": "Synced", "status": "True"}]}});
    /// let answer = chain.interpret_health(&synced).unwrap();
    /// assert!(answer.value);
    /// assert_eq!(answer.served_by.layer, CEL);
    /// ```
    #[cfg(feature = "cel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "cel")))]
    pub fn health_exprs(
        mut self,
        rules: impl Into<karmada_interpreter_health::HealthExprs>,
    ) -> Self {
        self.health_exprs = Some(rules.into());
        self
    }

    /// Whether the kstatus-style generic health answers `InterpretHealth`
    /// for every kind no other layer serves (default: no; see
    /// `karmada_interpreter_health::fallback`).
    pub fn health_fallback(mut self, on: bool) -> Self {
        self.health_fallback = on;
        self
    }

    /// The time and memory limits of every Lua script the chain runs: user
    /// customizations, the bundled ones and Argo CD health checks (default:
    /// [`Limits::default`], Karmada's).
    pub fn lua_limits(mut self, limits: Limits) -> Self {
        self.lua_limits = Some(limits);
        self
    }

    /// Records which lines of every Lua script the chain runs (user
    /// customizations, the bundled ones, Argo CD health checks) in
    /// `coverage` (`test --coverage`, `explain`). The chain then holds a
    /// bundled layer of its own instead of the shared one.
    pub fn coverage(mut self, coverage: Coverage) -> Self {
        self.coverage = Some(coverage);
        self
    }

    /// Which Karmada the chain follows (default [`Profile::Karmada`]):
    /// [`Profile::KarmadaNext`] (the cargo feature `karmada-next`) adds
    /// what Karmada's open pull requests change. Building with a profile
    /// this build does not include is an error naming it.
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// Composition (default: off, Karmada's behaviour; see
    /// `docs/composition.md`): with it on, the scripts of several
    /// customizations for one kind and editing operation (`Retain`,
    /// `ReviseReplica`, `AggregateStatus`) all run, in the order of their
    /// `karmada-interpreter.io/order` annotation and then their names,
    /// each on the previous one's result; and a script can call
    /// `kube.below()`, the answer the layers after the declarative one
    /// (webhooks, bundled, native) give, to extend it instead of rewriting
    /// it ([`LuaLayer::composed`]).
    ///
    /// ```
    /// use karmada_interpreter::{load, Interpreter};
    /// use serde_json::json;
    ///
    /// let extend = load::customizations_from_str(r#"
    /// apiVersion: config.karmada.io/v1alpha1
    /// kind: ResourceInterpreterCustomization
    /// metadata: {name: keep-paused}
    /// spec:
    ///   target: {apiVersion: apps/v1, kind: Deployment}
    ///   customizations:
    ///     retention:
    ///       luaScript: |
    ///         local kube = require("kube")
    ///         function Retain(desired, observed)
    ///           desired = kube.below()          -- the native Retain's answer
    ///           desired.spec.paused = observed.spec.paused
    ///           return desired
    ///         end
    /// "#, "keep-paused.yaml").unwrap();
    /// let chain = Interpreter::builder().customizations(extend).composition(true).build().unwrap();
    /// let desired = json!({"apiVersion": "apps/v1", "kind": "Deployment",
    ///     "metadata": {"name": "web", "labels": {"resourcetemplate.karmada.io/retain-replicas": "true"}},
    ///     "spec": {"replicas": 3}});
    /// let observed = json!({"apiVersion": "apps/v1", "kind": "Deployment",
    ///     "metadata": {"name": "web"}, "spec": {"replicas": 5, "paused": true}});
    /// let kept = chain.retain(&desired, &observed).unwrap().value;
    /// assert_eq!(kept["spec"]["replicas"], 5); // the native Retain (the label opts in)
    /// assert_eq!(kept["spec"]["paused"], true); // and the script's addition
    /// ```
    pub fn composition(mut self, on: bool) -> Self {
        self.composition = on;
        self
    }

    /// Validates and loads everything into a chain.
    pub fn build(self) -> Result<Interpreter> {
        self.profile.available()?;
        let mut layers: Vec<Arc<dyn Layer>> = Vec::new();
        let [custom_declarative, custom_webhook] = self.custom_layers;
        let limits = self.lua_limits.unwrap_or_default();
        let with_coverage = |layer: LuaLayer| match &self.coverage {
            Some(coverage) => layer.with_coverage(coverage.clone()),
            None => layer,
        };
        if let Some(layer) = custom_declarative {
            layers.push(layer);
        }
        if !self.customizations.is_empty() {
            let layer = if self.composition {
                LuaLayer::composed(self.customizations, limits)?
            } else {
                LuaLayer::customizations_with_limits(self.customizations, limits)?
            };
            layers.push(Arc::new(with_coverage(layer.with_profile(self.profile))));
        }
        if let Some(layer) = custom_webhook {
            layers.push(layer);
        }
        if !self.webhooks.is_empty() {
            layers.push(Arc::new(karmada_interpreter_webhook::WebhookLayer::new(
                self.webhooks,
            )?));
        }
        if self.thirdparty {
            layers.push(karmada_interpreter_thirdparty::layer_for(
                self.profile,
                self.lua_limits,
                self.coverage.clone(),
            ));
        }
        if self.native {
            layers.push(karmada_interpreter_native::layer_for(self.profile));
        }
        #[cfg(feature = "cel")]
        if let Some(rules) = &self.health_exprs {
            let rules = rules.load().map_err(|source| Error::Setup {
                what: "health expressions",
                source: Box::new(source),
            })?;
            layers.push(Arc::new(match &self.coverage {
                Some(coverage) => rules.with_coverage(coverage.clone()),
                None => rules,
            }));
        }
        if let Some(dir) = &self.health_checks {
            let checks =
                ArgoCdHealth::from_dir_with_limits(dir, limits).map_err(|source| Error::Setup {
                    what: "health checks",
                    source: Box::new(source),
                })?;
            layers.push(Arc::new(match &self.coverage {
                Some(coverage) => checks.with_coverage(coverage.clone()),
                None => checks,
            }));
        }
        if self.health_fallback {
            layers.push(Arc::new(HealthFallback));
        }
        Ok(Interpreter(Chain::new(layers)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::DynamicObject;
    use serde_json::json;

    #[test]
    fn dynamic_objects_are_interpreted_and_need_their_types() {
        let chain = Interpreter::default();
        let obj: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"}, "spec": {"replicas": 4}
        }))
        .unwrap();
        assert_eq!(chain.get_replicas(Typed(&obj)).unwrap().value.replicas, 4);
        let revised = chain.revise_replica(Typed(&obj), 1).unwrap().value;
        assert_eq!(revised.data["spec"]["replicas"], 1);
        let mut untyped = obj;
        untyped.types = None;
        match chain.get_replicas(Typed(&untyped)) {
            Err(Error::InvalidField { object, field, .. }) => {
                assert_eq!(
                    (object.as_str(), field.as_str()),
                    ("<no kind> shop/web", "apiVersion")
                );
            }
            other => panic!("expected InvalidField, got {other:?}"),
        }
    }
}
