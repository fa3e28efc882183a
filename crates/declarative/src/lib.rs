//! The declarative layer: `ResourceInterpreterCustomization` Lua scripts.
//!
//! Customizations are loaded and merged exactly as Karmada does
//! and run on a sandboxed Lua 5.1 engine
//! ([`Engine`]): one fresh global environment per run, a per-run deadline, a
//! per-state memory limit, scripts compiled once per pooled state, and
//! values converted directly between `serde_json::Value` and Lua tables.
//!
//! ```
//! use karmada_interpreter::declarative::LuaLayer;
//! use karmada_interpreter::interpreter::{Layer, Outcome, Request};
//! use serde_json::json;
//!
//! let yaml = r#"
//! apiVersion: config.karmada.io/v1alpha1
//! kind: ResourceInterpreterCustomization
//! metadata: {name: example}
//! spec:
//!   target: {apiVersion: apps/v1, kind: Deployment}
//!   customizations:
//!     healthInterpretation:
//!       luaScript: |
//!         function InterpretHealth(obj)
//!           return obj.status.readyReplicas == obj.spec.replicas
//!         end
//! "#;
//! let items = karmada_interpreter::load::customizations_from_str(yaml, "example").unwrap();
//! let layer = LuaLayer::customizations(items).unwrap();
//! let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!                  "spec": {"replicas": 2}, "status": {"readyReplicas": 2}});
//! let out = layer.interpret(&Request::InterpretHealth { object: &obj }).unwrap();
//! assert_eq!(out, Outcome::Healthy(true));
//! ```

// The patched Lua this engine runs on: linked through this crate, so every
// artifact that uses the engine has it (mlua-sys links no Lua itself).
extern crate karmada_interpreter_lua_src;

pub mod catalogue;
/// The per-thread time budget the engine's runs honour (in the floor).
pub use karmada_interpreter_core::budget;
mod convert;
mod coverage;
mod decode;
mod engine;
mod fault;
mod kube;
mod osdate;
mod pattern;
mod position;
mod sandbox;
mod text;
mod toplevel;
pub mod validate;

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxBuildHasher;

use serde_json::Value;

pub use coverage::Coverage;
pub use engine::{compile_check, Engine, Limits, Script};
pub use fault::ScriptError;
pub use position::{script_error, type_code_name, ScriptFailure, ScriptPoint};
pub use toplevel::{run_top_level, TopLevelResult};

use convert::{reconcile, Push, Results, Target};
use karmada_interpreter_core::api::{
    DependentObjectReference, InterpreterOperation, ResourceInterpreterCustomization,
};
use karmada_interpreter_core::error::{Error, Result};
use karmada_interpreter_core::interpreter::{
    Below, CatalogEntry, InPlaceRequest, Layer, LayerKind, Outcome, ReplicaResult, Request, Route,
    Source, TypeRef, Written,
};

/// Whether `text` matches the Lua pattern `pattern` somewhere (as
/// `string.find(text, pattern)` does), or why the pattern is malformed
/// (golden cases' `expectError: {pattern: ...}`).
///
/// ```
/// use karmada_interpreter::declarative::pattern_matches;
/// assert_eq!(pattern_matches("line 12: nil", "%d+:"), Ok(true));
/// ```
pub fn pattern_matches(text: &str, pattern: &str) -> std::result::Result<bool, String> {
    pattern::find(text.as_bytes(), pattern.as_bytes(), 1, false, true, &|| {
        false
    })
    .map(|found| found.is_some())
}

/// Group, version and kind a customization targets, parsed like Karmada:
/// `""` → empty group and version; no `/` → core group; more than one `/` →
/// empty group and version.
pub(crate) type TargetKey = (String, String, String);

fn target_key(c: &ResourceInterpreterCustomization) -> TargetKey {
    let (g, v) =
        karmada_interpreter_core::k8s::object::split_api_version(&c.spec.target.api_version);
    (g.to_owned(), v.to_owned(), c.spec.target.kind.clone())
}

/// One customization's script for one operation.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    /// The customization's name.
    pub name: String,
    /// Its place in the order of composition (0 without composition).
    pub order: i64,
    /// The script.
    pub script: Script,
}

/// The effective scripts for one target after merging.
#[derive(Debug, Clone, Default)]
pub(crate) struct MergedRules {
    /// `target.apiVersion` as written by the first customization.
    pub api_version: String,
    /// For each operation, the scripts that answer it, in the order they
    /// run. As in Karmada: the first customization by name for a
    /// single-script operation, every dependency script in name order.
    /// With composition (`docs/composition.md`), in order of composition:
    /// every script of an editing operation (each applied to the previous
    /// one's result), every dependency script, and the first for a reading
    /// operation.
    pub scripts: BTreeMap<InterpreterOperation, Vec<Rule>>,
}

impl MergedRules {
    /// What serves `op` (the customization's name; the names of every
    /// script that runs, comma-separated in the order they run), or `None`.
    fn name(&self, op: InterpreterOperation) -> Option<String> {
        match self.scripts.get(&op)?.as_slice() {
            [] => None,
            [one] => Some(one.name.clone()),
            all => Some(
                all.iter()
                    .map(|r| r.name.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        }
    }
}

/// A Lua-backed layer: user customizations or the bundled third-party set.
#[derive(Debug)]
pub struct LuaLayer {
    kind: LayerKind,
    /// The merged rules of each target, in target order; a route's entry
    /// is an index into it.
    targets: Vec<(TargetKey, MergedRules)>,
    /// The indices of `targets` by kind, so that dispatch looks a target up
    /// from the object's borrowed strings without allocating a key (hashed
    /// with FxHash: a miss, the common case for native kinds, costs one
    /// short hash and no string comparison).
    by_kind: HashMap<String, Vec<usize>, FxBuildHasher>,
    /// The kinds of `by_kind`, by signature: most kinds a chain asks this
    /// layer about are native ones it does not serve, told without hashing.
    kinds: KindSignatures,
    engine: Engine,
}

/// A set of kinds as a 256-bit signature of each kind's length, first and
/// last byte: a kind whose bit is clear is not in the set (one whose bit
/// is set may be).
#[derive(Debug, Default, Clone)]
struct KindSignatures([u64; 4]);

impl KindSignatures {
    fn bit(kind: &str) -> (usize, u64) {
        let bytes = kind.as_bytes();
        let (first, last) = (bytes.first(), bytes.last());
        let i = (bytes.len() as u8).wrapping_mul(31)
            ^ first.copied().unwrap_or(0).wrapping_mul(7)
            ^ last.copied().unwrap_or(0);
        (usize::from(i / 64), 1 << (i % 64))
    }

    fn insert(&mut self, kind: &str) {
        let (word, bit) = Self::bit(kind);
        if let Some(w) = self.0.get_mut(word) {
            *w |= bit;
        }
    }

    fn may_hold(&self, kind: &str) -> bool {
        let (word, bit) = Self::bit(kind);
        self.0.get(word).is_some_and(|w| w & bit != 0)
    }
}

impl LuaLayer {
    /// The declarative layer for user customizations, with default limits.
    pub fn customizations(items: Vec<ResourceInterpreterCustomization>) -> Result<Self> {
        Self::merge(LayerKind::Declarative, items, Limits::default(), false)
    }

    /// The declarative layer for user customizations, with explicit limits.
    pub fn customizations_with_limits(
        items: Vec<ResourceInterpreterCustomization>,
        limits: Limits,
    ) -> Result<Self> {
        Self::merge(LayerKind::Declarative, items, limits, false)
    }

    /// The declarative layer for user customizations with composition on
    /// (`docs/composition.md`; not Karmada's behaviour): the scripts of
    /// several customizations for one kind and editing operation all run,
    /// in order of composition (the annotation
    /// [`ResourceInterpreterCustomization::ORDER_ANNOTATION`], then the
    /// name), each on the previous one's result, and scripts can call
    /// `kube.below()`, the answer of the layers after this one in the
    /// chain. An order annotation that is not an integer is an error
    /// naming the customization.
    ///
    /// ```
    /// use karmada_interpreter::declarative::{Limits, LuaLayer};
    /// use karmada_interpreter::interpreter::{Layer, Outcome, Request};
    /// use serde_json::json;
    ///
    /// let rule = |name: &str, order: &str, label: &str| format!(r#"
    /// apiVersion: config.karmada.io/v1alpha1
    /// kind: ResourceInterpreterCustomization
    /// metadata:
    ///   name: {name}
    ///   annotations: {{karmada-interpreter.io/order: "{order}"}}
    /// spec:
    ///   target: {{apiVersion: v1, kind: Secret}}
    ///   customizations:
    ///     retention:
    ///       luaScript: |
    ///         function Retain(desired, observed)
    ///           desired.metadata.labels = desired.metadata.labels or {{}}
    ///           desired.metadata.labels.{label} = observed.metadata.labels.{label}
    ///           desired.metadata.labels.last = "{name}"
    ///           return desired
    ///         end
    /// "#);
    /// let yaml = rule("a-team", "20", "a") + "---" + &rule("b-team", "10", "b");
    /// let items = karmada_interpreter::load::customizations_from_str(&yaml, "teams").unwrap();
    /// let layer = LuaLayer::composed(items, Limits::default()).unwrap();
    /// let desired = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}});
    /// let observed = json!({"apiVersion": "v1", "kind": "Secret",
    ///                       "metadata": {"name": "s", "labels": {"a": "1", "b": "2"}}});
    /// let Outcome::Retained(kept) = layer
    ///     .interpret(&Request::Retain { desired: &desired, observed: &observed })
    ///     .unwrap() else { unreachable!() };
    /// // Both ran: b-team (order 10) first, then a-team (order 20) on its result.
    /// assert_eq!(kept["metadata"]["labels"], json!({"a": "1", "b": "2", "last": "a-team"}));
    /// ```
    pub fn composed(items: Vec<ResourceInterpreterCustomization>, limits: Limits) -> Result<Self> {
        Self::merge(LayerKind::Declarative, items, limits, true)
    }

    /// A declarative layer with no customizations (serves nothing).
    pub fn empty(limits: Limits) -> Self {
        Self::assemble(LayerKind::Declarative, BTreeMap::new(), limits, false)
    }

    /// The bundled third-party layer.
    pub fn bundled(items: Vec<ResourceInterpreterCustomization>) -> Self {
        Self::bundled_with_limits(items, Limits::default())
    }

    /// The bundled third-party layer, its scripts run under `limits`.
    pub fn bundled_with_limits(
        items: Vec<ResourceInterpreterCustomization>,
        limits: Limits,
    ) -> Self {
        // Karmada's merge reads no annotation: it cannot fail.
        let rules = Self::merged_rules(items, false).unwrap_or_default();
        Self::assemble(LayerKind::Thirdparty, rules, limits, false)
    }

    fn merge(
        kind: LayerKind,
        items: Vec<ResourceInterpreterCustomization>,
        limits: Limits,
        compose: bool,
    ) -> Result<Self> {
        let rules = Self::merged_rules(items, compose)?;
        Ok(Self::assemble(kind, rules, limits, compose))
    }

    /// Each target's scripts per operation, in the order they run (see
    /// [`MergedRules::scripts`]).
    fn merged_rules(
        mut items: Vec<ResourceInterpreterCustomization>,
        compose: bool,
    ) -> Result<BTreeMap<TargetKey, MergedRules>> {
        items.sort_by(|a, b| a.name().cmp(b.name()));
        let mut rules: BTreeMap<TargetKey, MergedRules> = BTreeMap::new();
        for c in &items {
            let order = if compose {
                c.composition_order().map_err(|e| Error::Config {
                    source_name: format!("ResourceInterpreterCustomization {:?}", c.name()),
                    message: e.to_string(),
                })?
            } else {
                0
            };
            let entry = rules.entry(target_key(c)).or_insert_with(|| MergedRules {
                api_version: c.spec.target.api_version.clone(),
                ..MergedRules::default()
            });
            for op in InterpreterOperation::ALL {
                let Some(script) = c.script(op) else { continue };
                entry.scripts.entry(op).or_default().push(Rule {
                    name: c.name().to_owned(),
                    order,
                    script: Script::new(script),
                });
            }
        }
        for merged in rules.values_mut() {
            for (op, scripts) in merged.scripts.iter_mut() {
                // Stable: equal orders stay in name order.
                scripts.sort_by_key(|r| r.order);
                let all =
                    *op == InterpreterOperation::InterpretDependency || (compose && op.is_edit());
                if !all {
                    scripts.truncate(1);
                }
            }
        }
        Ok(rules)
    }

    fn assemble(
        kind: LayerKind,
        rules: BTreeMap<TargetKey, MergedRules>,
        limits: Limits,
        compose: bool,
    ) -> Self {
        let targets: Vec<(TargetKey, MergedRules)> = rules.into_iter().collect();
        let mut by_kind: HashMap<String, Vec<usize>, FxBuildHasher> = HashMap::default();
        let mut kinds = KindSignatures::default();
        for (index, (key, _)) in targets.iter().enumerate() {
            by_kind.entry(key.2.clone()).or_default().push(index);
            kinds.insert(&key.2);
        }
        Self {
            kind,
            targets,
            by_kind,
            kinds,
            engine: Engine::new(limits).composing(compose),
        }
    }

    /// Whether composition is on (`docs/composition.md`): built with
    /// [`LuaLayer::composed`].
    pub fn composes(&self) -> bool {
        self.engine.composes()
    }

    /// The engine's limits.
    pub fn limits(&self) -> Limits {
        self.engine.limits()
    }

    /// The same layer, recording which lines of its scripts run
    /// (`test --coverage`).
    pub fn with_coverage(self, coverage: Coverage) -> Self {
        Self {
            engine: self.engine.with_coverage(coverage),
            ..self
        }
    }

    /// The same layer, its scripts run as `profile` has Karmada's Lua
    /// environment (the `karmada-next` profile adds `kube.parseFlinkMemory`).
    pub fn with_profile(self, profile: karmada_interpreter_core::profile::Profile) -> Self {
        Self {
            engine: self.engine.with_profile(profile),
            ..self
        }
    }

    /// The index in `targets` of the target of objects of type `ty`: the
    /// layer's one lookup per call.
    fn target_of(&self, ty: TypeRef<'_>) -> Option<usize> {
        if !self.kinds.may_hold(ty.kind) {
            return None;
        }
        self.by_kind.get(ty.kind)?.iter().copied().find(|i| {
            self.targets
                .get(*i)
                .is_some_and(|((group, version, _), _)| {
                    *group == ty.group && *version == ty.version
                })
        })
    }

    /// Answers `request` with the scripts of target `entry` (an index in
    /// `targets`, from [`Layer::route`]); an entry that is not one, or a
    /// target without a script for the operation, is not served. `below`
    /// answers the scripts' `kube.below()` (composition on).
    fn answer(&self, entry: usize, request: &Request<'_>, below: Below<'_>) -> Result<Outcome> {
        let op = request.operation();
        let not_enabled = || Error::not_served(request.object(), op);
        let (_, rules) = self.targets.get(entry).ok_or_else(not_enabled)?;
        let scripts = rules.scripts.get(&op).map(Vec::as_slice).unwrap_or(&[]);
        let below = self.composes().then_some(below);

        if let Request::InterpretDependency { .. } = request {
            if scripts.is_empty() {
                return Err(not_enabled());
            }
            let mut all: Vec<DependentObjectReference> = Vec::new();
            for rule in scripts {
                let Outcome::Dependencies(deps) = self.answer_one(rule, request, below)? else {
                    return Err(not_enabled());
                };
                for d in deps {
                    // label-selector entries never compare equal (reference)
                    if d.label_selector.is_some() || !all.contains(&d) {
                        all.push(d);
                    }
                }
            }
            all.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            return Ok(Outcome::Dependencies(all));
        }

        let [first, rest @ ..] = scripts else {
            return Err(not_enabled());
        };
        let mut outcome = self.answer_one(first, request, below)?;
        // Composition: each further script edits the previous one's result.
        for rule in rest {
            let object = edited_object(outcome);
            outcome = self.answer_one(rule, &with_object(request, &object), below)?;
        }
        Ok(outcome)
    }

    /// One script's answer to `request`.
    fn answer_one(
        &self,
        rule: &Rule,
        request: &Request<'_>,
        below: Option<Below<'_>>,
    ) -> Result<Outcome> {
        let op = request.operation();
        let (name, script) = (rule.name.as_str(), &rule.script);
        let below = below.map(|below| BelowCall {
            below,
            request: *request,
        });
        let below = below.as_ref();
        match *request {
            Request::InterpretDependency { object } => {
                self.run(name, script, op, &[Push::Json(object)], below, |r| {
                    expect_table(r, "requires")?;
                    let json = encode(r, 0, &[], Target::List)?;
                    let deps = decode::dependencies(json)?;
                    karmada_interpreter_core::k8s::validation::validate_dependencies(&deps)
                        .map_err(|e| e.to_string())?;
                    Ok(Outcome::Dependencies(deps))
                })
            }
            Request::InterpretReplica { object } => {
                self.run(name, script, op, &[Push::Json(object)], below, |r| {
                    let replicas = match r.number(0) {
                        Some(x) => go_int32(x),
                        None => {
                            return Err(format!("result type {} is not number", r.type_code(0)))
                        }
                    };
                    let requirements = if r.is_nil(1) {
                        None
                    } else if r.is_table(1) {
                        let json = encode(r, 1, &[], Target::Object)?;
                        Some(decode::requirements(json)?)
                    } else {
                        return Err(format!(
                            "expect the returned requires type is table but got {}",
                            r.type_name(1)
                        ));
                    };
                    Ok(Outcome::Replicas(Box::new(ReplicaResult {
                        replicas,
                        requirements,
                    })))
                })
            }
            Request::InterpretComponent { object } => {
                self.run(name, script, op, &[Push::Json(object)], below, |r| {
                    if r.is_nil(0) {
                        Ok(Outcome::Components(Vec::new()))
                    } else if r.is_table(0) {
                        let json = encode(r, 0, &[], Target::List).map_err(|e| {
                            format!("failed to convert lua table for components: {e}")
                        })?;
                        decode::components(json)
                            .map(Outcome::Components)
                            .map_err(|e| format!("failed to convert lua table for components: {e}"))
                    } else {
                        Err(format!(
                            "expected result type 'table' or 'nil' from GetComponents, but got '{}'",
                            r.type_name(0)
                        ))
                    }
                })
            }
            Request::ReviseReplica { object, replicas } => self.run(
                name,
                script,
                op,
                &[Push::Json(object), Push::Number(replicas as f64)],
                below,
                |r| object_result(r, &[object]).map(Outcome::Revised),
            ),
            #[cfg(feature = "karmada-next")]
            Request::ReviseComponents { object, components } => self.run(
                name,
                script,
                op,
                &[Push::Json(object), Push::Components(components)],
                below,
                |r| object_result(r, &[object]).map(Outcome::ComponentsRevised),
            ),
            Request::Retain { desired, observed } => self.run(
                name,
                script,
                op,
                &[Push::Json(desired), Push::Json(observed)],
                below,
                |r| object_result(r, &[desired, observed]).map(Outcome::Retained),
            ),
            Request::AggregateStatus { object, items } => self.run(
                name,
                script,
                op,
                &[Push::Json(object), Push::Items(items)],
                below,
                |r| object_result(r, &[]).map(Outcome::Aggregated),
            ),
            Request::InterpretStatus { object } => {
                self.run(name, script, op, &[Push::Json(object)], below, |r| {
                    expect_table(r, "replica")?;
                    let json = encode(r, 0, &[], Target::Object)?;
                    Ok(Outcome::Status(Some(json)))
                })
            }
            Request::InterpretHealth { object } => {
                self.run(name, script, op, &[Push::Json(object)], below, |r| {
                    match r.boolean(0) {
                        Some(b) => Ok(Outcome::Healthy(b)),
                        None => Err(format!("result type {} is not bool", r.type_code(0))),
                    }
                })
            }
            // An operation of the karmada-next profile when this crate is
            // built without the feature (the floor with it).
            #[cfg(not(feature = "karmada-next"))]
            #[allow(unreachable_patterns)]
            _ => Err(Error::not_served(request.object(), op)),
        }
    }

    /// Runs one script: converts the arguments, calls the entry point,
    /// converts the first `n` results with `convert`.
    #[allow(clippy::too_many_arguments)]
    fn run<T>(
        &self,
        customization: &str,
        script: &Script,
        op: InterpreterOperation,
        args: &[Push<'_>],
        below: Option<&BelowCall<'_>>,
        convert: impl FnOnce(&Results) -> std::result::Result<T, String>,
    ) -> Result<T> {
        let mut failure_is_conversion = false;
        let mut running_line = None;
        let deadline = self.engine.limits().timeout;
        let out = self.engine.with_vm(|vm, timeout| {
            let _scope = convert::LazyScope::begin(vm.main_state());
            let function = op.lua_function();
            match below {
                None => vm.call_converted(script, function, args, timeout, convert),
                Some(below) => below.during(vm, |vm| {
                    vm.call_converted(script, function, args, timeout, convert)
                }),
            }
            .inspect_err(|_| running_line = vm.deadline_line())?
            .map_err(|m| {
                failure_is_conversion = true;
                ScriptError::Runtime(m)
            })
        });
        let err = |source: ScriptError| {
            let mut at = ScriptPoint::from_message(source.message());
            if let ScriptError::Timeout(_) = source {
                at.line = running_line;
                at.deadline = Some(deadline);
            }
            ScriptFailure {
                customization: customization.to_owned(),
                operation: op,
                error: source,
                at,
            }
            .into_error()
        };
        out.map_err(|e| {
            if op == InterpreterOperation::InterpretComponent && !failure_is_conversion {
                err(e.with_message(format!(
                    "failed to run 'GetComponents' script: {}",
                    e.message()
                )))
            } else {
                err(e)
            }
        })
    }
}

/// What a composing run's `kube.below()` answers: the request the entry
/// function was called with, asked of the layers below.
struct BelowCall<'a> {
    below: Below<'a>,
    request: Request<'a>,
}

impl BelowCall<'_> {
    /// Runs `call` (a script run on `vm`) with `kube.below()` answering
    /// from the layers below: a function of this run only, in the state's
    /// registry while `call` runs.
    fn during<R>(
        &self,
        vm: &mut engine::Vm,
        call: impl FnOnce(&mut engine::Vm) -> std::result::Result<R, ScriptError>,
    ) -> std::result::Result<R, ScriptError> {
        let lua = vm.lua().clone();
        let deadline = vm.deadline().clone();
        lua.scope(|scope| {
            let answer =
                scope.create_function(|lua, ()| kube::outcome_to_lua(lua, self.ask(&deadline)?))?;
            lua.set_named_registry_value(kube::BELOW_KEY, answer)?;
            let out = call(vm);
            lua.unset_named_registry_value(kube::BELOW_KEY)?;
            Ok(out)
        })
        .map_err(|e| ScriptError::Runtime(fault::lua_message(&e)))?
    }

    /// The layers below's answer, within what is left of the run's
    /// deadline (a Lua layer below is cut off when it passes). A layer
    /// that may run Lua answers on a thread of its own: a Lua run keeps
    /// per-thread state (the lazily converted arguments of the run in
    /// progress) that the running script still needs. The native and
    /// webhook layers run no Lua and answer on this thread.
    fn ask(&self, deadline: &sandbox::Deadline) -> mlua::Result<Outcome> {
        let left = deadline.left();
        if left.is_zero() {
            return Err(mlua::Error::runtime(fault::DEADLINE_MESSAGE));
        }
        let answer = || budget::within(left, || self.below.interpret(&self.request)).0;
        let serving = self
            .below
            .source(TypeRef::of(self.request.object()), self.request.operation());
        let answer = match serving.map(|s| s.layer) {
            None | Some(LayerKind::Native | LayerKind::Webhook) => answer(),
            Some(_) => std::thread::scope(|threads| threads.spawn(answer).join())
                .map_err(|_| mlua::Error::runtime("kube.below: a layer below panicked"))?,
        };
        match answer {
            Ok(Some(answer)) => Ok(answer.value),
            Ok(None) => Err(mlua::Error::runtime(format!(
                "kube.below: no layer below serves {} for {}",
                self.request.operation(),
                karmada_interpreter_core::interpreter::describe(self.request.object())
            ))),
            Err(e) => Err(mlua::Error::runtime(format!("kube.below: {e}"))),
        }
    }
}

/// The object an editing operation answered (the next composed script's
/// input); an outcome of a reading operation gives `null`.
fn edited_object(outcome: Outcome) -> Value {
    match outcome {
        Outcome::Revised(v) | Outcome::Retained(v) | Outcome::Aggregated(v) => v,
        #[cfg(feature = "karmada-next")]
        Outcome::ComponentsRevised(v) => v,
        _ => Value::Null,
    }
}

/// `request` with `object` in place of the object it edits (a reading
/// request is returned as it is).
fn with_object<'a>(request: &Request<'a>, object: &'a Value) -> Request<'a> {
    match *request {
        Request::ReviseReplica { replicas, .. } => Request::ReviseReplica { object, replicas },
        #[cfg(feature = "karmada-next")]
        Request::ReviseComponents { components, .. } => {
            Request::ReviseComponents { object, components }
        }
        Request::Retain { observed, .. } => Request::Retain {
            desired: object,
            observed,
        },
        Request::AggregateStatus { items, .. } => Request::AggregateStatus { object, items },
        other => other,
    }
}

/// Go's `int32(float64)` on amd64, which Karmada applies to the replica
/// count a script returns: truncation toward zero, and -2147483648 for NaN
/// and for every value outside the int32 range (the processor's "integer
/// indefinite" value), never saturation or wrapping.
pub(crate) fn go_int32(x: f64) -> i32 {
    let t = x.trunc();
    if t >= f64::from(i32::MIN) && t <= f64::from(i32::MAX) {
        t as i32
    } else {
        i32::MIN
    }
}

/// The first result must be a table.
fn expect_table(results: &Results, what: &str) -> std::result::Result<(), String> {
    if results.is_table(0) {
        Ok(())
    } else {
        Err(format!(
            "expect the returned {what} type is table but got {}",
            results.type_name(0)
        ))
    }
}

/// Result `i` as JSON, its empty containers reconciled against `refs`.
fn encode(
    results: &Results,
    i: std::ffi::c_int,
    refs: &[&Value],
    target: Target,
) -> std::result::Result<Value, String> {
    let json = results
        .encode(i)
        .map_err(|e| format!("encode lua result to json failed: {e}"))?;
    Ok(reconcile(json, refs, target))
}

/// Result object of Retain / ReviseReplica / AggregateStatus.
fn object_result(results: &Results, refs: &[&Value]) -> std::result::Result<Value, String> {
    expect_table(results, "requires")?;
    let json = encode(results, 0, refs, Target::Object)?;
    decode::object(json)
}

impl Layer for LuaLayer {
    fn kind(&self) -> LayerKind {
        self.kind
    }

    /// Looks the target up from the borrowed strings (a kind no
    /// customization targets costs one map lookup and no allocation); the
    /// route's entry is the target's index, which
    /// [`Layer::interpret_routed`] answers from without looking it up again.
    fn route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
        // An operation of the karmada-next profile is served only with it.
        if operation.is_next() && !self.engine.is_next() {
            return None;
        }
        let entry = self.target_of(ty)?;
        let (_, rules) = self.targets.get(entry)?;
        let name = rules.name(operation)?;
        Some(Route {
            source: Source {
                layer: self.kind,
                name: name.into(),
            },
            entry,
        })
    }

    fn interpret_routed(&self, entry: usize, request: &Request<'_>) -> Result<Outcome> {
        self.answer(entry, request, Below::none())
    }

    /// With composition on, `below` answers the scripts' `kube.below()`.
    fn interpret_over(
        &self,
        entry: usize,
        request: &Request<'_>,
        below: Below<'_>,
    ) -> Result<Outcome> {
        self.answer(entry, request, below)
    }

    /// With composition on, `below` answers the scripts' `kube.below()`;
    /// the answer is stored in the lent object.
    fn edit_over(
        &self,
        entry: usize,
        request: InPlaceRequest<'_>,
        below: Below<'_>,
    ) -> Result<Written> {
        let outcome = self.answer(entry, &request.as_request(), below)?;
        request.store(outcome)?;
        Ok(Written::unknown())
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let object = request.object();
        let entry = self
            .target_of(TypeRef::of(object))
            .filter(|_| !request.operation().is_next() || self.engine.is_next())
            .ok_or_else(|| Error::not_served(object, request.operation()))?;
        self.answer(entry, request, Below::none())
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        let mut out = Vec::new();
        for ((_, _, kind), rules) in &self.targets {
            let mut push = |op, name: &str| {
                out.push(CatalogEntry {
                    api_version: rules.api_version.clone(),
                    kind: kind.clone(),
                    operation: op,
                    source: Source {
                        layer: self.kind,
                        name: name.to_owned().into(),
                    },
                })
            };
            for op in rules.scripts.keys() {
                if op.is_next() && !self.engine.is_next() {
                    continue;
                }
                // The first dependency script's name (Karmada's catalog).
                let name = match *op {
                    InterpreterOperation::InterpretDependency => rules
                        .scripts
                        .get(op)
                        .and_then(|s| s.first())
                        .map(|r| r.name.clone()),
                    _ => rules.name(*op),
                };
                if let Some(name) = name {
                    push(*op, &name);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use karmada_interpreter_core::interpreter::{Layer, Outcome, Request, TypeRef};
    use serde_json::json;

    use super::LuaLayer;
    use karmada_interpreter_core::api::InterpreterOperation as Op;
    use karmada_interpreter_core::Error;

    /// Customizations `a` and `b`, answering InterpretHealth `true` for
    /// kind `A` and `false` for kind `B`.
    fn layer() -> LuaLayer {
        let rule = |name: &str, kind: &str, healthy: bool| {
            format!(
                "apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {{name: {name}}}
spec:
  target: {{apiVersion: example.io/v1, kind: {kind}}}
  customizations:
    healthInterpretation:
      luaScript: 'function InterpretHealth(obj) return {healthy} end'
"
            )
        };
        let yaml = format!("{}---\n{}", rule("a", "A", true), rule("b", "B", false));
        let items = karmada_interpreter_core::load::customizations_from_str(&yaml, "test")
            .expect("customizations");
        LuaLayer::customizations(items).expect("layer")
    }

    /// The layer resolves a call once: `route` finds the target and
    /// `interpret_routed` answers from the entry it is handed, without
    /// looking the object's kind up again (an entry of another target runs
    /// that target's script; one that is no entry is not served).
    #[test]
    fn a_routed_call_is_answered_from_its_entry_without_a_second_lookup() {
        let layer = layer();
        let a = json!({"apiVersion": "example.io/v1", "kind": "A"});
        let b = json!({"apiVersion": "example.io/v1", "kind": "B"});
        let route_a = layer
            .route(TypeRef::of(&a), Op::InterpretHealth)
            .expect("a");
        let route_b = layer
            .route(TypeRef::of(&b), Op::InterpretHealth)
            .expect("b");
        assert_eq!((&*route_a.source.name, &*route_b.source.name), ("a", "b"));
        let health = |entry| {
            let request = Request::InterpretHealth { object: &a };
            layer.interpret_routed(entry, &request)
        };
        assert_eq!(health(route_a.entry).unwrap(), Outcome::Healthy(true));
        assert_eq!(health(route_b.entry).unwrap(), Outcome::Healthy(false));
        assert!(matches!(health(usize::MAX), Err(Error::NotServed { .. })));
        // The unrouted entry point looks the kind up itself.
        let request = Request::InterpretHealth { object: &a };
        assert_eq!(layer.interpret(&request).unwrap(), Outcome::Healthy(true));
    }
}
