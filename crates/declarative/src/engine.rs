//! The engine: a pool of sandboxed Lua 5.1 states, a per-state cache of
//! compiled scripts, the per-run deadline and the per-state memory limit.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mlua::{Function, Lua, MultiValue, Value as LuaValue};

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
    compiled: HashMap<u64, Function>,
    names: HashMap<&'static str, mlua::LuaString>,
    /// Set when a run hit the deadline or the memory limit: the state is
    /// dropped instead of going back to the pool.
    poisoned: bool,
    /// With coverage: where runs are credited and the lines the hook noted.
    coverage: Option<(Coverage, LineNotes)>,
}

impl Vm {
    fn new(limits: &Limits, coverage: Option<&Coverage>, next: bool) -> Result<Self, ScriptError> {
        let notes = coverage.map(|c| (c.clone(), LineNotes::default()));
        let sandbox = sandbox::build(limits.memory, notes.as_ref().map(|(_, n)| n.clone()), next)
            .map_err(|e| {
            ScriptError::Runtime(format!("cannot create Lua state: {}", lua_message(&e)))
        })?;
        Ok(Self {
            sandbox,
            compiled: HashMap::new(),
            names: HashMap::new(),
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

    fn chunk(&mut self, script: &Script) -> Result<Function, ScriptError> {
        if let Some(f) = self.compiled.get(&script.id) {
            return Ok(f.clone());
        }
        let f = compile(&self.sandbox.lua, &script.text)?;
        self.compiled.insert(script.id, f.clone());
        Ok(f)
    }

    /// The script line that was running when the last run's deadline
    /// passed.
    pub(crate) fn deadline_line(&self) -> Option<usize> {
        self.sandbox.deadline.running_line()
    }

    /// Runs `script` and calls its global `function` with `args`.
    pub(crate) fn call(
        &mut self,
        script: &Script,
        function: &'static str,
        args: MultiValue,
        timeout: Duration,
    ) -> Result<MultiValue, ScriptError> {
        self.invoke(script, Entry::Function, function, args, timeout)
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
        let mut args = MultiValue::with_capacity(1);
        args.push_back(value);
        self.invoke(script, Entry::TopLevel, global, args, timeout)
    }

    fn invoke(
        &mut self,
        script: &Script,
        entry: Entry,
        name: &'static str,
        args: MultiValue,
        timeout: Duration,
    ) -> Result<MultiValue, ScriptError> {
        let chunk = self.chunk(script)?;
        let name = match self.names.get(name) {
            Some(s) => s.clone(),
            None => {
                let s = self
                    .sandbox
                    .lua
                    .create_string(name)
                    .map_err(|e| ScriptError::Runtime(lua_message(&e)))?;
                self.names.insert(name, s.clone());
                s
            }
        };
        let mut all = MultiValue::with_capacity(args.len() + 2);
        all.push_back(LuaValue::Function(chunk));
        all.push_back(LuaValue::String(name));
        all.extend(args);
        self.sandbox.refusal.take();
        let (limit, by_budget) = karmada_interpreter_core::budget::limit(timeout);
        self.sandbox.deadline.set(limit);
        let runner = match entry {
            Entry::Function => &self.sandbox.run,
            Entry::TopLevel => &self.sandbox.top,
        };
        let result = runner.call::<MultiValue>(all);
        let expired = self.sandbox.deadline.expired();
        self.sandbox.deadline.clear();
        if expired && by_budget && result.is_err() {
            karmada_interpreter_core::budget::exhausted();
        }
        if let Some((coverage, notes)) = &self.coverage {
            coverage.credit(&script.text, notes);
        }
        result.map_err(|e| {
            let error = self.sandbox.classify(&e, expired);
            if matches!(error, ScriptError::Timeout(_) | ScriptError::MemoryLimit(_)) {
                self.poisoned = true;
            }
            error
        })
    }
}

/// How a script is entered: through a global function its top level
/// defines (Karmada), or its top level itself (Argo CD).
#[derive(Clone, Copy)]
enum Entry {
    Function,
    TopLevel,
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
        }
    }

    /// The same engine, recording line coverage into `coverage`.
    pub fn with_coverage(self, coverage: Coverage) -> Self {
        Self {
            pool: Mutex::new(Vec::new()),
            limits: self.limits,
            coverage: Some(coverage),
            next: self.next,
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
            None => Vm::new(&self.limits, self.coverage.as_ref(), self.next)?,
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
        None => (Vm::new(&limits, None, false)?, 0),
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
        let vm = super::Vm::new(&super::Limits::default(), None, false).unwrap();
        let used = vm.lua().used_memory();
        assert!(used < 1 << 20, "a new state uses {used} bytes");
    }
}
