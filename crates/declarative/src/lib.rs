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

use ::kube::core::GroupVersionKind;
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
    CatalogEntry, Layer, LayerKind, Outcome, ReplicaResult, Request, Route, Source, TypeRef,
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

/// The effective scripts for one target after merging.
#[derive(Debug, Clone, Default)]
pub(crate) struct MergedRules {
    /// `target.apiVersion` as written by the first customization.
    pub api_version: String,
    /// For each single-script operation: (customization name, script).
    pub single: BTreeMap<InterpreterOperation, (String, Script)>,
    /// Every non-empty dependency script, in name order.
    pub dependencies: Vec<(String, Script)>,
}

impl MergedRules {
    /// What serves `op` (the customization's name; the names of every
    /// dependency script, comma-separated), or `None`.
    fn name(&self, op: InterpreterOperation) -> Option<String> {
        if op == InterpreterOperation::InterpretDependency {
            let names: Vec<&str> = self.dependencies.iter().map(|(n, _)| n.as_str()).collect();
            (!names.is_empty()).then(|| names.join(","))
        } else {
            self.single.get(&op).map(|(n, _)| n.clone())
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
        Ok(Self::merge(
            LayerKind::Declarative,
            items,
            Limits::default(),
        ))
    }

    /// The declarative layer for user customizations, with explicit limits.
    pub fn customizations_with_limits(
        items: Vec<ResourceInterpreterCustomization>,
        limits: Limits,
    ) -> Result<Self> {
        Ok(Self::merge(LayerKind::Declarative, items, limits))
    }

    /// A declarative layer with no customizations (serves nothing).
    pub fn empty(limits: Limits) -> Self {
        Self::merge(LayerKind::Declarative, Vec::new(), limits)
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
        Self::merge(LayerKind::Thirdparty, items, limits)
    }

    fn merge(
        kind: LayerKind,
        mut items: Vec<ResourceInterpreterCustomization>,
        limits: Limits,
    ) -> Self {
        items.sort_by(|a, b| a.name().cmp(b.name()));
        let mut rules: BTreeMap<TargetKey, MergedRules> = BTreeMap::new();
        for c in &items {
            let entry = rules.entry(target_key(c)).or_insert_with(|| MergedRules {
                api_version: c.spec.target.api_version.clone(),
                ..MergedRules::default()
            });
            for op in InterpreterOperation::ALL {
                let Some(script) = c.script(op) else { continue };
                if op == InterpreterOperation::InterpretDependency {
                    entry
                        .dependencies
                        .push((c.name().to_owned(), Script::new(script)));
                } else {
                    entry
                        .single
                        .entry(op)
                        .or_insert_with(|| (c.name().to_owned(), Script::new(script)));
                }
            }
        }
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
            engine: Engine::new(limits),
        }
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
    /// target without a script for the operation, is not served.
    fn answer(&self, entry: usize, request: &Request<'_>) -> Result<Outcome> {
        let op = request.operation();
        let not_enabled = || Error::not_served(request.object(), op);
        let (_, rules) = self.targets.get(entry).ok_or_else(not_enabled)?;

        if let Request::InterpretDependency { object } = *request {
            if rules.dependencies.is_empty() {
                return Err(not_enabled());
            }
            let mut all: Vec<DependentObjectReference> = Vec::new();
            for (name, script) in &rules.dependencies {
                let deps = self.run(name, script, op, &[Push::Json(object)], |r| {
                    expect_table(r, "requires")?;
                    let json = encode(r, 0, &[], Target::List)?;
                    let deps = decode::dependencies(json)?;
                    karmada_interpreter_core::k8s::validation::validate_dependencies(&deps)
                        .map_err(|e| e.to_string())?;
                    Ok(deps)
                })?;
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

        let (name, script) = rules.single.get(&op).ok_or_else(not_enabled)?;
        match *request {
            Request::InterpretReplica { object } => {
                self.run(name, script, op, &[Push::Json(object)], |r| {
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
                self.run(name, script, op, &[Push::Json(object)], |r| {
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
                |r| object_result(r, &[object]).map(Outcome::Revised),
            ),
            #[cfg(feature = "karmada-next")]
            Request::ReviseComponents { object, components } => self.run(
                name,
                script,
                op,
                &[Push::Json(object), Push::Components(components)],
                |r| object_result(r, &[object]).map(Outcome::ComponentsRevised),
            ),
            Request::Retain { desired, observed } => self.run(
                name,
                script,
                op,
                &[Push::Json(desired), Push::Json(observed)],
                |r| object_result(r, &[desired, observed]).map(Outcome::Retained),
            ),
            Request::AggregateStatus { object, items } => self.run(
                name,
                script,
                op,
                &[Push::Json(object), Push::Items(items)],
                |r| object_result(r, &[]).map(Outcome::Aggregated),
            ),
            Request::InterpretStatus { object } => {
                self.run(name, script, op, &[Push::Json(object)], |r| {
                    expect_table(r, "replica")?;
                    let json = encode(r, 0, &[], Target::Object)?;
                    Ok(Outcome::Status(Some(json)))
                })
            }
            Request::InterpretHealth { object } => {
                self.run(name, script, op, &[Push::Json(object)], |r| {
                    match r.boolean(0) {
                        Some(b) => Ok(Outcome::Healthy(b)),
                        None => Err(format!("result type {} is not bool", r.type_code(0))),
                    }
                })
            }
            Request::InterpretDependency { .. } => Err(not_enabled()),
            // An operation of the karmada-next profile when this crate is
            // built without the feature (the floor with it).
            #[cfg(not(feature = "karmada-next"))]
            #[allow(unreachable_patterns)]
            _ => Err(not_enabled()),
        }
    }

    /// Runs one script: converts the arguments, calls the entry point,
    /// converts the first `n` results with `convert`.
    fn run<T>(
        &self,
        customization: &str,
        script: &Script,
        op: InterpreterOperation,
        args: &[Push<'_>],
        convert: impl FnOnce(&Results) -> std::result::Result<T, String>,
    ) -> Result<T> {
        let mut failure_is_conversion = false;
        let mut running_line = None;
        let deadline = self.engine.limits().timeout;
        let out = self.engine.with_vm(|vm, timeout| {
            let _scope = convert::LazyScope::begin(vm.main_state());
            vm.call_converted(script, op.lua_function(), args, timeout, convert)
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

    fn source(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<Source> {
        self.route(TypeRef::from_gvk(gvk), operation)
            .map(|route| route.source)
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
        self.answer(entry, request)
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let object = request.object();
        let entry = self
            .target_of(TypeRef::of(object))
            .filter(|_| !request.operation().is_next() || self.engine.is_next())
            .ok_or_else(|| Error::not_served(object, request.operation()))?;
        self.answer(entry, request)
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
            for (op, (name, _)) in &rules.single {
                if !op.is_next() || self.engine.is_next() {
                    push(*op, name);
                }
            }
            if let Some((name, _)) = rules.dependencies.first() {
                push(InterpreterOperation::InterpretDependency, name);
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
