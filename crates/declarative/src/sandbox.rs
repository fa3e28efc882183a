//! The sandboxed Lua state: which libraries exist,
//! the host-implemented functions that replace standard ones, and the deadline
//! hook.
// Host functions written against the Lua C API (`clone`, `reset`): each unsafe
// block says why its call is sound.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use mlua::{
    FromLua, Function, HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, Value as LuaValue,
    VmState,
};

use super::fault::{is_memory_error, lua_message, HostPanic, ScriptError, DEADLINE_MESSAGE};
use super::text::{self, FmtArg};

const PRELUDE: &str = include_str!("prelude.lua");

/// How often (in VM instructions) the deadline is checked.
const HOOK_INTERVAL: u32 = 1000;

/// A per-VM deadline, in nanoseconds since the VM's creation; `u64::MAX`
/// when no run is in progress.
#[derive(Debug, Clone)]
pub(crate) struct Deadline {
    base: Instant,
    at: Arc<AtomicU64>,
    /// The script line that was running when the deadline passed (0: none).
    line: Arc<AtomicU64>,
}

impl Deadline {
    fn new() -> Self {
        Self {
            base: Instant::now(),
            at: Arc::new(AtomicU64::new(u64::MAX)),
            line: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The script line that was running when the deadline passed in the
    /// last run, when the hook saw one.
    pub(crate) fn running_line(&self) -> Option<usize> {
        match self.line.load(Ordering::Relaxed) {
            0 => None,
            n => usize::try_from(n).ok(),
        }
    }

    pub(crate) fn set(&self, after: std::time::Duration) {
        let now = self.base.elapsed();
        let at = now.saturating_add(after).as_nanos();
        self.line.store(0, Ordering::Relaxed);
        self.at
            .store(u64::try_from(at).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// The time left before the deadline of the run in progress (zero
    /// once it passed; a day when no run is in progress).
    pub(crate) fn left(&self) -> std::time::Duration {
        let at = self.at.load(Ordering::Relaxed);
        if at == u64::MAX {
            return std::time::Duration::from_secs(86_400);
        }
        let now = u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX);
        std::time::Duration::from_nanos(at.saturating_sub(now))
    }

    pub(crate) fn clear(&self) {
        self.at.store(u64::MAX, Ordering::Relaxed);
    }

    pub(crate) fn expired(&self) -> bool {
        let at = self.at.load(Ordering::Relaxed);
        at != u64::MAX && self.base.elapsed().as_nanos() >= u128::from(at)
    }
}

unsafe extern "C-unwind" {
    /// The vendored Lua's table copy (same layout and insertion order).
    fn lua_clonetable(state: *mut mlua::ffi::lua_State, idx: std::ffi::c_int);
    /// The same copy made in place into a table of the same sizes.
    fn lua_resettable(
        state: *mut mlua::ffi::lua_State,
        idx: std::ffi::c_int,
        src: std::ffi::c_int,
    ) -> std::ffi::c_int;
}

/// `H.clone(t)`: a copy of table `t` that `next` visits in the same order
/// (the template of every run's fresh environment).
unsafe extern "C-unwind" fn clone_table(state: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    mlua::ffi::luaL_checktype(state, 1, mlua::ffi::LUA_TTABLE);
    lua_clonetable(state, 1);
    1
}

/// `H.reset(t, template)`: makes `t` a copy of `template` in place when
/// both have the same sizes, and says whether it did.
unsafe extern "C-unwind" fn reset_table(state: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    mlua::ffi::luaL_checktype(state, 1, mlua::ffi::LUA_TTABLE);
    mlua::ffi::luaL_checktype(state, 2, mlua::ffi::LUA_TTABLE);
    let done = lua_resettable(state, 1, 2);
    mlua::ffi::lua_pushboolean(state, done);
    1
}

/// `H.empty(...)`: whether every table argument is empty (no array or hash
/// entry, its metatable aside): one call for the four library overlays of
/// a run instead of a `next` each.
unsafe extern "C-unwind" fn all_empty(state: *mut mlua::ffi::lua_State) -> std::ffi::c_int {
    let n = mlua::ffi::lua_gettop(state);
    mlua::ffi::luaL_checkstack(state, 2, c"empty".as_ptr());
    let mut empty = true;
    for i in 1..=n {
        mlua::ffi::luaL_checktype(state, i, mlua::ffi::LUA_TTABLE);
        mlua::ffi::lua_pushnil(state);
        if mlua::ffi::lua_next(state, i) != 0 {
            mlua::ffi::lua_pop(state, 2);
            empty = false;
            break;
        }
    }
    mlua::ffi::lua_pushboolean(state, std::ffi::c_int::from(empty));
    1
}

/// A freshly built sandboxed state: the VM, its `run` function (prelude) and
/// its deadline.
pub(crate) struct Sandbox {
    pub lua: Lua,
    pub run: Function,
    pub probe: Function,
    /// Runs a script's top-level code with one global set (`run_top`).
    pub top: Function,
    pub deadline: Deadline,
    /// The message of the last sandbox refusal of the current run (set by
    /// the prelude through `H.refused` just before it raises the error).
    pub refusal: Refusal,
    /// The state's main thread, for the lazy conversion's span.
    pub main: crate::convert::MainState,
}

/// The last refusal the prelude reported in a run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Refusal(Arc<RefusalSlot>);

/// A refusal's message, and whether there is one (so that a run with none,
/// the common case, takes no lock).
#[derive(Debug, Default)]
pub(crate) struct RefusalSlot {
    set: std::sync::atomic::AtomicBool,
    message: std::sync::Mutex<Option<String>>,
}

impl Refusal {
    fn set(&self, message: String) {
        if let Ok(mut m) = self.0.message.lock() {
            *m = Some(message);
            self.0.set.store(true, Ordering::Release);
        }
    }

    /// Takes (and forgets) the recorded refusal.
    pub(crate) fn take(&self) -> Option<String> {
        if !self.0.set.swap(false, Ordering::Acquire) {
            return None;
        }
        self.0.message.lock().ok().and_then(|mut m| m.take())
    }
}

impl Sandbox {
    /// Tells what failed a run: the deadline (`expired`), the memory
    /// limit, a refusal the prelude recorded in this run, or the script.
    pub(crate) fn classify(&self, e: &mlua::Error, expired: bool) -> ScriptError {
        let message = lua_message(e);
        let refused = self
            .refusal
            .take()
            .is_some_and(|r| message.contains(r.as_str()));
        if expired {
            ScriptError::Timeout(message)
        } else if is_memory_error(e) {
            ScriptError::MemoryLimit(message)
        } else if refused {
            ScriptError::Refused(message)
        } else {
            ScriptError::Runtime(message)
        }
    }
}

fn arg_text(v: &LuaValue) -> String {
    match v {
        LuaValue::Nil => "nil".to_owned(),
        LuaValue::Boolean(b) => b.to_string(),
        LuaValue::Integer(i) => i.to_string(),
        LuaValue::Number(n) => text::number_to_string(*n),
        LuaValue::String(s) => s.to_string_lossy(),
        other => format!(
            "{}: {:p}",
            super::convert::type_name(other),
            other.to_pointer()
        ),
    }
}

fn string_arg(v: &LuaValue, n: usize, func: &str) -> mlua::Result<Vec<u8>> {
    match v {
        LuaValue::String(s) => Ok(s.as_bytes().to_vec()),
        LuaValue::Integer(_) | LuaValue::Number(_) => Ok(arg_text(v).into_bytes()),
        other => Err(mlua::Error::runtime(format!(
            "bad argument #{n} to {func} (string expected, got {})",
            super::convert::type_name(other)
        ))),
    }
}

/// Builds a sandboxed state with a memory limit of `memory` bytes (0 = none);
/// with `coverage`, the hook also notes every line a script runs; with
/// `compose` (composition on), the `kube` module has `below`.
pub(crate) fn build(
    memory: usize,
    coverage: Option<super::coverage::LineNotes>,
    next: bool,
    compose: bool,
) -> mlua::Result<Sandbox> {
    let lua = Lua::new_with(
        StdLib::STRING | StdLib::TABLE | StdLib::MATH,
        LuaOptions::default(),
    )?;
    let deadline = Deadline::new();
    let h = lua.create_table()?;
    // SAFETY: `clone_table` checks its argument and pushes one value.
    h.set("clone", unsafe { lua.create_c_function(clone_table)? })?;
    // SAFETY: `reset_table` checks its arguments and pushes one value.
    h.set("reset", unsafe { lua.create_c_function(reset_table)? })?;
    // SAFETY: `all_empty` checks its arguments and stack space and pushes
    // one value.
    h.set("empty", unsafe { lua.create_c_function(all_empty)? })?;

    let d = deadline.clone();
    h.set(
        "check",
        lua.create_function(move |_, ()| {
            if d.expired() {
                Err(mlua::Error::runtime(DEADLINE_MESSAGE))
            } else {
                Ok(())
            }
        })?,
    )?;
    let refusal = Refusal::default();
    let r = refusal.clone();
    h.set(
        "refused",
        lua.create_function(move |_, message: String| {
            r.set(message);
            Ok(())
        })?,
    )?;
    // The text of an error a host helper raised, for `pcall`/`xpcall`
    // handlers: gopher-lua hands them a string, not an error object.
    h.set(
        "raise",
        lua.create_function(|_, message: String| -> mlua::Result<()> {
            Err(mlua::Error::runtime(message))
        })?,
    )?;
    // gopher-lua's `where(level, skipg)`: the position of the first script
    // frame from stack level `level` up (`""` when there is none).
    h.set(
        "where",
        lua.create_function(|lua, level: usize| {
            let mut l = level;
            loop {
                let frame = lua.inspect_stack(l, |d| {
                    let script = d.source().short_src.as_deref() == Some("<string>");
                    script.then(|| d.current_line().unwrap_or(0))
                });
                match frame {
                    None => return Ok(String::new()),
                    Some(Some(line)) => return Ok(format!("<string>:{line}:")),
                    Some(None) => l += 1,
                }
            }
        })?,
    )?;
    h.set(
        "errtext",
        lua.create_function(|lua, v: LuaValue| {
            Ok(match v {
                LuaValue::Error(e) => LuaValue::String(lua.create_string(lua_message(&e))?),
                other => other,
            })
        })?,
    )?;
    let d = deadline.clone();
    h.set(
        "expired",
        lua.create_function(move |_, ()| Ok(d.expired()))?,
    )?;
    h.set(
        "upper",
        lua.create_function(|lua, v: LuaValue| {
            let s = string_arg(&v, 1, "upper")?;
            lua.create_string(text::map_case(&s, true))
        })?,
    )?;
    h.set(
        "lower",
        lua.create_function(|lua, v: LuaValue| {
            let s = string_arg(&v, 1, "lower")?;
            lua.create_string(text::map_case(&s, false))
        })?,
    )?;
    h.set(
        "format",
        lua.create_function(|lua, args: MultiValue| {
            let mut it = args.into_iter();
            let fmt = string_arg(&it.next().unwrap_or(LuaValue::Nil), 1, "format")?;
            let wanted = text::count_verbs(&fmt);
            let args: Vec<FmtArg> = it
                .take(wanted)
                .map(|v| match v {
                    LuaValue::Nil => FmtArg::Nil,
                    LuaValue::Boolean(b) => FmtArg::Bool(b),
                    LuaValue::Integer(i) => FmtArg::Number(i as f64),
                    LuaValue::Number(n) => FmtArg::Number(n),
                    LuaValue::String(s) => FmtArg::Str(s.as_bytes().to_vec()),
                    other => FmtArg::Other(super::convert::type_name(&other), arg_text(&other)),
                })
                .collect();
            let out = text::go_format(&fmt, &args).map_err(mlua::Error::runtime)?;
            lua.create_string(out)
        })?,
    )?;
    let raw_tostring: Function = lua.globals().get("tostring")?;
    h.set(
        "tostring",
        lua.create_function(move |lua, args: MultiValue| {
            let Some(v) = args.into_iter().next() else {
                return Err(mlua::Error::runtime(
                    "bad argument #1 to tostring (value expected)",
                ));
            };
            match v {
                LuaValue::Integer(i) => lua.create_string(i.to_string()),
                LuaValue::Number(n) => lua.create_string(text::number_to_string(n)),
                other => raw_tostring.call(other),
            }
        })?,
    )?;
    h.set(
        "tonumber",
        lua.create_function(|_, args: MultiValue| {
            let mut it = args.into_iter();
            let Some(v) = it.next() else {
                return Err(mlua::Error::runtime(
                    "bad argument #1 to tonumber (value expected)",
                ));
            };
            let base = match it.next() {
                None | Some(LuaValue::Nil) => None,
                Some(LuaValue::Integer(b)) => Some(u32::try_from(b).unwrap_or(0)),
                Some(LuaValue::Number(b)) => Some(b as u32),
                Some(other) => {
                    return Err(mlua::Error::runtime(format!(
                        "bad argument #2 to tonumber (number expected, got {})",
                        super::convert::type_name(&other)
                    )))
                }
            };
            Ok(match v {
                LuaValue::Integer(i) => Some(i as f64),
                LuaValue::Number(n) => Some(n),
                LuaValue::String(s) => text::tonumber_str(&s.to_string_lossy(), base),
                _ => None,
            })
        })?,
    )?;
    h.set(
        "print",
        lua.create_function(|_, args: MultiValue| {
            let line: Vec<String> = args.iter().map(arg_text).collect();
            eprintln!("{}", line.join("\t"));
            Ok(())
        })?,
    )?;
    h.set(
        "ostime",
        lua.create_function(|_, t: Option<Table>| {
            let Some(t) = t else {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs() as f64)
                    .unwrap_or(0.0);
                return Ok(now);
            };
            // Karmada's safe `os.time` (lifted `getIntField`): a field is
            // read raw and only a number counts; text (what `string.match`
            // returns), booleans and anything else take the default.
            let field = |k: &str, d: f64| -> mlua::Result<f64> {
                Ok(match t.raw_get::<LuaValue>(k)? {
                    LuaValue::Number(n) => n,
                    LuaValue::Integer(n) => n as f64,
                    _ => d,
                })
            };
            let (y, mo, d) = (
                field("year", -1.0)?,
                field("month", -1.0)?,
                field("day", -1.0)?,
            );
            let (h, mi, s) = (field("hour", 12.0)?, field("min", 0.0)?, field("sec", 0.0)?);
            for (name, v) in [
                ("year", y),
                ("month", mo),
                ("day", d),
                ("hour", h),
                ("min", mi),
                ("sec", s),
            ] {
                if !(-1e9..=1e9).contains(&v) {
                    return Err(mlua::Error::runtime(format!(
                        "field '{name}' is out-of-bound"
                    )));
                }
            }
            let days = super::osdate::days_from_civil(y as i64, mo as i64, d as i64);
            Ok(days as f64 * 86400.0 + h.trunc() * 3600.0 + mi.trunc() * 60.0 + s.trunc())
        })?,
    )?;
    h.set(
        "osdate",
        lua.create_function(|lua, args: MultiValue| {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0);
            let fmt: Option<String> = match args.front() {
                None | Some(LuaValue::Nil) => None,
                Some(v) => Some(String::from_lua(v.clone(), lua)?),
            };
            // gopher-lua's CheckInt64: a second argument, nil included, must
            // be a number (a numeric string is refused)
            let secs = match args.get(1) {
                None => now,
                Some(LuaValue::Integer(i)) => *i,
                Some(LuaValue::Number(x)) => *x as i64,
                Some(other) => {
                    return Err(mlua::Error::runtime(format!(
                        "bad argument #2 to date (number expected, got {})",
                        super::convert::type_name(other)
                    )))
                }
            };
            let fmt = fmt.unwrap_or_else(|| "%c".to_owned());
            let fmt = fmt.strip_prefix('!').unwrap_or(&fmt);
            let parts = super::osdate::Civil::from_unix(secs);
            if fmt.starts_with("*t") {
                let tbl = lua.create_table()?;
                tbl.set("year", parts.year)?;
                tbl.set("month", parts.month)?;
                tbl.set("day", parts.day)?;
                tbl.set("hour", parts.hour)?;
                tbl.set("min", parts.min)?;
                tbl.set("sec", parts.sec)?;
                tbl.set("wday", parts.wday + 1)?;
                tbl.set("yday", 0)?;
                tbl.set("isdst", false)?;
                return Ok(LuaValue::Table(tbl));
            }
            Ok(LuaValue::String(lua.create_string(parts.format(fmt))?))
        })?,
    )?;
    install_patterns(&lua, &h, &deadline)?;
    h.set("kube", super::kube::module(&lua, next, compose)?)?;

    let (run, probe, top): (Function, Function, Function) = lua
        .load(PRELUDE)
        .set_name("=prelude")
        .set_mode(mlua::chunk::ChunkMode::Text)
        .call(h)?;

    let d = deadline.clone();
    // Soft limit: the collector runs with a large pause (below), so a script
    // with a big live heap could reach the hard limit before a cycle starts.
    // Past 3/4 of the limit the hook forces a full collection once the heap
    // has grown by half of the room the previous forced one left below the
    // limit (so a script whose live heap is near the limit still gets its
    // garbage collected, and one with little garbage is not collected over
    // and over).
    let soft = memory.saturating_mul(3) / 4;
    let last_forced = Arc::new(AtomicU64::new(0));
    let mut triggers = HookTriggers::new().every_nth_instruction(HOOK_INTERVAL);
    if coverage.is_some() {
        triggers = triggers.every_line();
    }
    lua.set_hook(triggers, move |lua, debug| {
        if let Some(notes) = &coverage {
            if debug.event() == mlua::debug::DebugEvent::Line {
                // Scripts are compiled as `=<string>`; the prelude is not
                // covered.
                if debug.source().source.as_deref() == Some("=<string>") {
                    if let Some(line) = debug.current_line() {
                        notes.note(line);
                    }
                }
                return Ok(VmState::Continue);
            }
        }
        if d.expired() {
            // The innermost frame of the script (not the prelude's, nor a
            // host function's) is the line people look at.
            let line = (0..64)
                .map_while(|level| {
                    lua.inspect_stack(level, |frame| {
                        (frame.source().source.as_deref() == Some("=<string>"))
                            .then(|| frame.current_line())
                            .flatten()
                    })
                })
                .flatten()
                .next();
            d.line
                .store(line.map_or(0, |l| l as u64), Ordering::Relaxed);
            return Err(mlua::Error::runtime(DEADLINE_MESSAGE));
        }
        if soft > 0 {
            let used = lua.used_memory();
            let last = last_forced.load(Ordering::Relaxed) as usize;
            let room = memory.saturating_sub(last) / 2;
            if used > soft && used.saturating_sub(last) > room {
                lua.gc_collect()?;
                last_forced.store(lua.used_memory() as u64, Ordering::Relaxed);
            }
        }
        Ok(VmState::Continue)
    })?;
    // Runs produce short-lived garbage; collect less eagerly than the
    // default (pause 200%): the heap may grow to 4x its live size before a
    // cycle starts. Not much more: the small-block cache hands the blocks a
    // collection freed back out, and a heap much larger than the processor's
    // cache (pause 1000% was measured) makes each of them a cache miss, which
    // cost more than the marking saved.
    lua.gc_set_mode(mlua::state::GcMode::Incremental(
        mlua::state::GcIncParams::default().pause(400),
    ));
    if memory > 0 {
        lua.set_memory_limit(lua.used_memory() + memory)?;
    }
    let main = crate::convert::MainState::of(&lua)?;
    Ok(Sandbox {
        lua,
        run,
        probe,
        top,
        deadline,
        refusal,
        main,
    })
}

/// gopher-lua's `OptInt`: a number (truncated) or nil for `default`; a
/// numeric string is refused like any other type.
fn int_arg(v: Option<&LuaValue>, n: usize, func: &str, default: i64) -> mlua::Result<i64> {
    match v {
        None | Some(LuaValue::Nil) => Ok(default),
        Some(LuaValue::Integer(i)) => Ok(*i),
        Some(LuaValue::Number(x)) => Ok(*x as i64),
        Some(other) => Err(mlua::Error::runtime(format!(
            "bad argument #{n} to {func} (number expected, got {})",
            super::convert::type_name(other)
        ))),
    }
}

fn push_captures(
    lua: &Lua,
    src: &[u8],
    captures: &[super::pattern::Capture],
    out: &mut MultiValue,
) -> mlua::Result<()> {
    for c in captures {
        out.push_back(match c {
            super::pattern::Capture::Str(a, b) => {
                LuaValue::String(lua.create_string(&src[*a..*b])?)
            }
            super::pattern::Capture::Pos(p) => LuaValue::Number(*p as f64),
        });
    }
    Ok(())
}

/// `(s, pattern [, init [, plain]])` and the first match, for `string.find`
/// (which honours `plain` and reports positions) and `string.match`.
fn first_match(
    args: &MultiValue,
    func: &str,
    deadline: &Deadline,
) -> mlua::Result<(Vec<u8>, Option<super::pattern::Found>)> {
    let s = string_arg(args.front().unwrap_or(&LuaValue::Nil), 1, func)?;
    let p = string_arg(args.get(1).unwrap_or(&LuaValue::Nil), 2, func)?;
    let init = int_arg(args.get(2), 3, func, 1)?;
    let is_find = func == "find";
    let plain = is_find && matches!(args.get(3), Some(LuaValue::Boolean(true)));
    // gopher-lua slices the subject at `init - 1` in plain mode: past the end
    // that is a Go panic, reported as such (without a script position).
    if plain && init > 1 && (init - 1) as u64 > s.len() as u64 {
        return Err(mlua::Error::external(HostPanic(format!(
            "runtime error: slice bounds out of range [{}:{}]",
            init - 1,
            s.len()
        ))));
    }
    let expired = || deadline.expired();
    let found = super::pattern::find(&s, &p, init, plain, is_find, &expired)
        .map_err(mlua::Error::runtime)?;
    Ok((s, found))
}

/// `string.find`, `string.match` and `string.gmatch` on the Rust matcher.
fn install_patterns(lua: &Lua, h: &Table, deadline: &Deadline) -> mlua::Result<()> {
    let d = deadline.clone();
    h.set(
        "find",
        lua.create_function(move |lua, args: MultiValue| {
            let (s, found) = first_match(&args, "find", &d)?;
            let mut out = MultiValue::new();
            match found {
                None => out.push_back(LuaValue::Nil),
                Some(f) => {
                    out.push_back(LuaValue::Number((f.start + 1) as f64));
                    out.push_back(LuaValue::Number(f.end as f64));
                    push_captures(lua, &s, &f.captures, &mut out)?;
                }
            }
            Ok(out)
        })?,
    )?;
    let d = deadline.clone();
    h.set(
        "match",
        lua.create_function(move |lua, args: MultiValue| {
            let (s, found) = first_match(&args, "match", &d)?;
            let mut out = MultiValue::new();
            if let Some(f) = found {
                push_captures(lua, &s, &f.captures, &mut out)?;
            }
            Ok(out)
        })?,
    )?;
    let d = deadline.clone();
    h.set(
        "gmatch",
        lua.create_function(move |lua, args: MultiValue| {
            let s = string_arg(args.front().unwrap_or(&LuaValue::Nil), 1, "gmatch")?;
            let p = string_arg(args.get(1).unwrap_or(&LuaValue::Nil), 2, "gmatch")?;
            let expired = || d.expired();
            let all = super::pattern::gmatch(&s, &p, &expired).map_err(mlua::Error::runtime)?;
            let t = lua.create_table_with_capacity(all.len(), 0)?;
            for (i, caps) in all.iter().enumerate() {
                let mut mv = MultiValue::new();
                push_captures(lua, &s, caps, &mut mv)?;
                let row = lua.create_sequence_from(mv)?;
                t.raw_set(i + 1, row)?;
            }
            Ok(t)
        })?,
    )?;
    Ok(())
}
