//! The engine: a pool of sandboxed Lua 5.1 states, a per-state cache of
//! compiled scripts, the per-run deadline and the per-state memory limit.
// A run enters the state through the Lua C API (`call_converted`): the
// unsafe block says why its calls are sound.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mlua::{ffi, Function, Lua, MultiValue, Value as LuaValue};
use rustc_hash::FxHashMap;

use super::coverage::{Coverage, LineNotes};
use super::fault::lua_message;
use super::fault::ScriptError;
use super::sandbox::{self, Sandbox};

/// Execution limits of every run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time one run (top-level code and entry point) may take.
    pub timeout: Duration,
    /// Bytes one Lua state may allocate beyond its libraries (0 = unlimited).
    pub memory: usize,
}

impl Default for Limits {
    /// One second (as Karmada) and 64 MiB per state.
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(1),
            memory: 64 << 20,
        }
    }
}

/// One script text with a process-unique identity (the compile cache key).
#[derive(Debug, Clone)]
pub struct Script {
    id: u64,
    text: Arc<str>,
}

impl Script {
    /// Wraps a script text.
    pub fn new(text: &str) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            text: Arc::from(text),
        }
    }

    /// The script text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// A pooled state: the sandbox plus the scripts compiled in it.
pub(crate) struct Vm {
    sandbox: Sandbox,
    compiled: FxHashMap<u64, Function>,
    names: FxHashMap<&'static str, mlua::LuaString>,
    /// The way into a run (see [`enter`]).
    enter: Function,
    /// Set when a run hit the deadline or the memory limit: the state is
    /// dropped instead of going back to the pool.
    poisoned: bool,
    /// With coverage: where runs are credited and the lines the hook noted.
    coverage: Option<(Coverage, LineNotes)>,
}

impl Vm {
    fn new(
        limits: &Limits,
        coverage: Option<&Coverage>,
        next: bool,
        compose: bool,
    ) -> Result<Self, ScriptError> {
        let notes = coverage.map(|c| (c.clone(), LineNotes::default()));
        let sandbox = sandbox::build(
            limits.memory,
            notes.as_ref().map(|(_, n)| n.clone()),
            next,
            compose,
        )
        .map_err(|e| {
            ScriptError::Runtime(format!("cannot create Lua state: {}", lua_message(&e)))
        })?;
        Ok(Self {
            // SAFETY: `enter` is only called by `call_converted` (see there).
            enter: unsafe { sandbox.lua.create_c_function(enter) }.map_err(|e| {
                ScriptError::Runtime(format!("cannot create Lua state: {}", lua_message(&e)))
            })?,
            sandbox,
            compiled: FxHashMap::default(),
            names: FxHashMap::default(),
            poisoned: false,
            coverage: notes,
        })
    }

    /// The Lua state (for argument and result conversion).
    pub(crate) fn lua(&self) -> &Lua {
        &self.sandbox.lua
    }

    /// The state's main thread (for the lazy conversion's span).
    pub(crate) fn main_state(&self) -> &crate::convert::MainState {
        &self.sandbox.main
    }

    /// Compiles `script` in this state unless it is already.
    fn compile_once(&mut self, script: &Script) -> Result<(), ScriptError> {
        if !self.compiled.contains_key(&script.id) {
            let f = compile(&self.sandbox.lua, &script.text)?;
            self.compiled.insert(script.id, f);
        }
        Ok(())
    }

    /// The deadline of the run in progress.
    pub(crate) fn deadline(&self) -> &sandbox::Deadline {
        &self.sandbox.deadline
    }

    /// The script line that was running when the last run's deadline
    /// passed.
    pub(crate) fn deadline_line(&self) -> Option<usize> {
        self.sandbox.deadline.running_line()
    }

    /// Runs `script` and calls its global `function` with `args`, then
    /// converts what it returned with `convert`, all in one protected call
    /// into the state: the arguments go onto the stack as they are pushed
    /// (objects and lists as lazy tables of the running
    /// [`LazyScope`](crate::convert::LazyScope)), and the results are read
    /// where the call left them. A failed run is the outer error; a
    /// conversion that fails (also for lack of memory) the inner one.
    pub(crate) fn call_converted<T>(
        &mut self,
        script: &Script,
        function: &'static str,
        args: &[crate::convert::Push<'_>],
        timeout: Duration,
        convert: impl FnOnce(&crate::convert::Results) -> Result<T, String>,
    ) -> Result<Result<T, String>, ScriptError> {
        self.compile_once(script)?;
        self.name_once(function)?;
        let (chunk, name) = self.chunk_and_name(script, function)?;
        let by_budget = begin_run(&self.sandbox, timeout);
        let mut converted: Option<Result<T, String>> = None;
        let mut convert = Some(convert);
        let mut read = |results: &crate::convert::Results| {
            if let Some(convert) = convert.take() {
                converted = Some(convert(results));
            }
        };
        let mut entry = Entry {
            args,
            convert: &mut read,
            ran: false,
        };
        let pointer = mlua::LightUserData((&raw mut entry).cast());
        let result = self
            .enter
            .call::<()>((pointer, &self.sandbox.run, chunk, name));
        let ran = entry.ran;
        match (result, converted) {
            (Ok(()), Some(converted)) => {
                self.end_run(script, false, by_budget);
                Ok(converted)
            }
            // The conversion itself ran out of memory.
            (Err(e), _) if ran => {
                self.end_run(script, false, by_budget);
                Ok(Err(e.to_string()))
            }
            (Err(e), _) => {
                let expired = self.end_run(script, true, by_budget);
                Err(self.failure(&e, expired))
            }
            (Ok(()), None) => Err(ScriptError::Runtime(
                "the run returned no results".to_owned(),
            )),
        }
    }

    /// Makes the state's string for an entry point's name unless it is
    /// made already.
    fn name_once(&mut self, name: &'static str) -> Result<(), ScriptError> {
        if !self.names.contains_key(name) {
            let s = self
                .sandbox
                .lua
                .create_string(name)
                .map_err(|e| ScriptError::Runtime(lua_message(&e)))?;
            self.names.insert(name, s);
        }
        Ok(())
    }

    /// The compiled `script` and the string `name`, made by
    /// [`Vm::compile_once`] and [`Vm::name_once`].
    fn chunk_and_name(
        &self,
        script: &Script,
        name: &'static str,
    ) -> Result<(&Function, &mlua::LuaString), ScriptError> {
        match (self.compiled.get(&script.id), self.names.get(name)) {
            (Some(chunk), Some(name)) => Ok((chunk, name)),
            _ => Err(ScriptError::Runtime(format!("{name}: not compiled"))),
        }
    }

    /// Runs the top-level code of `script` with the global `global` set to
    /// `value` and returns what the top level returns (Argo CD's
    /// `health.lua` form).
    pub(crate) fn call_top(
        &mut self,
        script: &Script,
        global: &'static str,
        value: LuaValue,
        timeout: Duration,
    ) -> Result<MultiValue, ScriptError> {
        self.compile_once(script)?;
        self.name_once(global)?;
        let (chunk, name) = self.chunk_and_name(script, global)?;
        let (chunk, name) = (chunk.clone(), name.clone());
        let by_budget = begin_run(&self.sandbox, timeout);
        let result = self.sandbox.top.call::<MultiValue>((
            LuaValue::Function(chunk),
            LuaValue::String(name),
            value,
        ));
        match result {
            Ok(values) => {
                self.end_run(script, false, by_budget);
                Ok(values)
            }
            Err(e) => {
                let expired = self.end_run(script, true, by_budget);
                Err(self.failure(&e, expired))
            }
        }
    }

    /// Ends a run: clears the deadline and credits coverage; whether a run
    /// that `failed` ran out of time (only a failed run asks the clock).
    fn end_run(&self, script: &Script, failed: bool, by_budget: bool) -> bool {
        let expired = failed && self.sandbox.deadline.expired();
        self.sandbox.deadline.clear();
        if expired && by_budget {
            karmada_interpreter_core::budget::exhausted();
        }
        if let Some((coverage, notes)) = &self.coverage {
            coverage.credit(&script.text, notes);
        }
        expired
    }

    /// What failed a run (a run that hit the deadline or the memory limit
    /// poisons the state).
    fn failure(&mut self, e: &mlua::Error, expired: bool) -> ScriptError {
        let error = self.sandbox.classify(e, expired);
        if matches!(error, ScriptError::Timeout(_) | ScriptError::MemoryLimit(_)) {
            self.poisoned = true;
        }
        error
    }
}

/// What [`enter`] is handed: the arguments to push, what reads the
/// results, and whether the run itself finished.
struct Entry<'a, 'b> {
    args: &'a [crate::convert::Push<'b>],
    convert: &'a mut dyn FnMut(&crate::convert::Results),
    ran: bool,
}

/// The state's way into a run, made once per state (a C function, so a
/// call allocates no closure): called with a pointer to an [`Entry`], the
/// prelude's `run`, the chunk and the entry point's name, it pushes the
/// arguments, calls `run`, and hands the results to the entry's reader
/// where they are on the stack. It returns nothing.
///
/// # Safety
///
/// Called only through `Vm::call_converted`, inside the protected call of
/// `Function::call`, with a pointer to a live `Entry` as its first
/// argument; a Lua error unwinds through it to that protected call (it
/// holds nothing that needs dropping).
unsafe extern "C-unwind" fn enter(state: *mut ffi::lua_State) -> std::ffi::c_int {
    let entry = ffi::lua_touserdata(state, 1).cast::<Entry<'_, '_>>();
    ffi::lua_remove(state, 1);
    let Some(entry) = entry.as_mut() else {
        return 0;
    };
    let nargs = crate::convert::push_args(state, entry.args);
    ffi::lua_call(state, 2 + nargs, ffi::LUA_MULTRET);
    entry.ran = true;
    let n = ffi::lua_gettop(state);
    let results = crate::convert::Results::on_stack(state, 1, n);
    (entry.convert)(&results);
    ffi::lua_settop(state, 0);
    0
}

/// Starts a run's deadline; whether the thread's budget shortened it.
fn begin_run(sandbox: &Sandbox, timeout: Duration) -> bool {
    sandbox.refusal.take();
    let (limit, by_budget) = karmada_interpreter_core::budget::limit(timeout);
    sandbox.deadline.set(limit);
    by_budget
}

/// Compiles a script as a text chunk named `<string>` (binary chunks are
/// refused).
pub(crate) fn compile(lua: &Lua, text: &str) -> Result<Function, ScriptError> {
    lua.load(text)
        .set_name("=<string>")
        .set_mode(mlua::chunk::ChunkMode::Text)
        .into_function()
        .map_err(|e| {
            // Lua's binary chunks start with ESC "Lua".
            if text.starts_with("\x1bLua") {
                ScriptError::Refused(lua_message(&e))
            } else {
                ScriptError::Compile(lua_message(&e))
            }
        })
}

/// A pool of sandboxed states (LIFO, at most [`Engine::POOL_SIZE`] idle).
pub struct Engine {
    pool: Mutex<Vec<Vm>>,
    limits: Limits,
    coverage: Option<Coverage>,
    /// The `karmada-next` profile: `kube.parseFlinkMemory` (Karmada's pull
    /// request #7537) is in the sandbox.
    next: bool,
    /// Composition on: `kube.below` is in the sandbox.
    compose: bool,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Idle states kept for reuse.
    pub const POOL_SIZE: usize = 10;

    /// An engine with the given limits.
    pub fn new(limits: Limits) -> Self {
        Self {
            pool: Mutex::new(Vec::new()),
            limits,
            coverage: None,
            next: false,
            compose: false,
        }
    }

    /// The same engine, its states set up for `profile` (the `karmada-next`
    /// profile adds `kube.parseFlinkMemory`).
    pub fn with_profile(self, profile: karmada_interpreter_core::profile::Profile) -> Self {
        Self {
            pool: Mutex::new(Vec::new()),
            limits: self.limits,
            coverage: self.coverage,
            next: profile.is_next(),
            compose: self.compose,
        }
    }

    /// The same engine, its states with `kube.below` when `on`
    /// (composition, `docs/composition.md`).
    pub(crate) fn composing(self, on: bool) -> Self {
        Self {
            pool: Mutex::new(Vec::new()),
            compose: on,
            ..self
        }
    }

    /// Whether the states have `kube.below` (composition on).
    pub(crate) fn composes(&self) -> bool {
        self.compose
    }

    /// The same engine, recording line coverage into `coverage`.
    pub fn with_coverage(self, coverage: Coverage) -> Self {
        Self {
            pool: Mutex::new(Vec::new()),
            limits: self.limits,
            coverage: Some(coverage),
            next: self.next,
            compose: self.compose,
        }
    }

    /// Whether the states are set up for the `karmada-next` profile.
    pub(crate) fn is_next(&self) -> bool {
        self.next
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Runs `f` with a state from the pool (a new one when the pool is
    /// empty) and returns the state afterwards.
    pub(crate) fn with_vm<T>(
        &self,
        f: impl FnOnce(&mut Vm, Duration) -> Result<T, ScriptError>,
    ) -> Result<T, ScriptError> {
        let taken = self.pool.lock().ok().and_then(|mut p| p.pop());
        let mut vm = match taken {
            Some(vm) => vm,
            None => Vm::new(
                &self.limits,
                self.coverage.as_ref(),
                self.next,
                self.compose,
            )?,
        };
        let out = f(&mut vm, self.limits.timeout);
        // Lua 5.1 has no emergency collection: keep pooled states well below
        // their limit so garbage of one run cannot fail the next.
        if !vm.poisoned && self.limits.memory > 0 && vm.lua().used_memory() > self.limits.memory / 2
        {
            vm.poisoned = vm.lua().gc_collect().is_err();
        }
        if !vm.poisoned {
            if let Ok(mut p) = self.pool.lock() {
                if p.len() < Self::POOL_SIZE {
                    p.push(vm);
                }
            }
        }
        out
    }
}

impl Default for Engine {
    fn default() -> Self {
        Self::new(Limits::default())
    }
}

thread_local! {
    /// The state [`defines_function`] probes in, kept for the next probes on
    /// this thread with the same limits, with the number of probes it made:
    /// a state costs far more to make than a probe (`serve` probes every
    /// rule of every customization before it listens), and each probe runs
    /// in a fresh environment, as every call in a pooled state does.
    static PROBE_VM: std::cell::RefCell<Option<(Limits, Vm, u32)>> = const { std::cell::RefCell::new(None) };
}

/// How many probes one state makes before it is dropped with their garbage
/// (a state collects lazily: its heap grows to 10x its live size first).
/// Making a state every 64 probes is a small part of their time.
const PROBES_PER_STATE: u32 = 64;

/// Runs only the top-level code of `text` in a sandboxed state, in a fresh
/// environment, and reports whether it leaves a global function `function`
/// behind.
pub fn defines_function(text: &str, function: &str, limits: Limits) -> Result<bool, ScriptError> {
    let kept = PROBE_VM
        .with(|k| k.borrow_mut().take())
        .filter(|(l, _, _)| *l == limits);
    let (mut vm, probes) = match kept {
        Some((_, vm, probes)) => (vm, probes),
        None => (Vm::new(&limits, None, false, false)?, 0),
    };
    let out = probe(&mut vm, text, function, limits);
    // A state that hit a limit is dropped, as the pool drops it.
    if !vm.poisoned && probes + 1 < PROBES_PER_STATE {
        PROBE_VM.with(|k| *k.borrow_mut() = Some((limits, vm, probes + 1)));
    }
    out
}

fn probe(vm: &mut Vm, text: &str, function: &str, limits: Limits) -> Result<bool, ScriptError> {
    let chunk = compile(&vm.sandbox.lua, text)?;
    vm.sandbox.deadline.set(limits.timeout);
    let r = vm.sandbox.probe.call::<String>((chunk, function));
    let expired = vm.sandbox.deadline.expired();
    vm.sandbox.deadline.clear();
    r.map(|t| t == "function").map_err(|e| {
        let error = vm.sandbox.classify(&e, expired);
        if matches!(error, ScriptError::Timeout(_) | ScriptError::MemoryLimit(_)) {
            vm.poisoned = true;
        }
        error
    })
}

/// Compiles `text` in a fresh sandboxed state without running it.
pub fn compile_check(text: &str) -> Result<(), ScriptError> {
    let lua = Lua::new_with(mlua::StdLib::NONE, mlua::LuaOptions::default())
        .map_err(|e| ScriptError::Runtime(lua_message(&e)))?;
    compile(&lua, text).map(|_| ())
}

#[cfg(test)]
mod tests {
    /// A new state (the sandbox and its prelude) holds little memory; the
    /// prelude's constant 1000000 once made the compiler allocate a 16 MiB
    /// array for its constant table.
    /// The probes share a state: what one script's top level defines is
    /// not seen by the next, and a probe that ran out of time does not
    /// leave its state to the next.
    #[test]
    fn probes_do_not_see_each_other() {
        let limits = super::Limits::default();
        let defines = |text: &str, f: &str| super::defines_function(text, f, limits);
        assert_eq!(
            defines(
                "function InterpretHealth(o) return true end",
                "InterpretHealth"
            )
            .ok(),
            Some(true)
        );
        assert_eq!(defines("local x = 1", "InterpretHealth").ok(), Some(false));
        assert_eq!(
            defines("Leak = 1", "Leak").ok(),
            Some(false),
            "a number, not a function"
        );
        assert_eq!(
            defines("assert(Leak == nil) function Seen() end", "Seen").ok(),
            Some(true)
        );
        let short = super::Limits {
            timeout: std::time::Duration::from_millis(50),
            ..limits
        };
        assert!(matches!(
            super::defines_function("while true do end", "F", short),
            Err(super::ScriptError::Timeout(_))
        ));
        assert_eq!(
            super::defines_function("function F() end", "F", short).ok(),
            Some(true)
        );
    }

    #[test]
    fn a_new_state_is_small() {
        let vm = super::Vm::new(&super::Limits::default(), None, false, false).unwrap();
        let used = vm.lua().used_memory();
        assert!(used < 1 << 20, "a new state uses {used} bytes");
    }
}
