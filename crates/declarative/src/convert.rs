//! Host ↔ Lua value conversion.
//!
//! Values cross the boundary directly between `serde_json::Value` and Lua
//! tables through the C API: there is no JSON text round trip. The rules are
//! the reference's JSON bridge:
//!
//! * into Lua: objects and arrays become tables, every number a double,
//!   `null` members are absent and `null` array elements are dropped (the
//!   array is compacted);
//! * out of Lua: the kind of a table is decided by its keys (sequence 1..n →
//!   array, string keys → object, empty → `[]`), a table reachable twice is an
//!   error, NaN/±Inf are errors, whole numbers in the signed 64-bit range
//!   become integers;
//! * then the empty-container reconciliation ([`reconcile`]): an empty
//!   table converts to `[]`, which becomes `{}` where the reference objects
//!   hold an empty object at that path, stays `[]` where they hold an empty
//!   list, and is dropped otherwise.
// The conversion pushes and reads values through the Lua C API: each unsafe
// block says why its call is sound.
#![allow(unsafe_code)]

use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_void};
use std::hash::{BuildHasherDefault, Hasher};

use mlua::{ffi, Lua, Value as LuaValue};
use serde_json::{Map, Number, Value};

use karmada_interpreter_core::api::AggregatedStatusItem;
use karmada_interpreter_core::k8s::field::integer_of_double;

/// Hasher for table addresses (already well distributed).
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Seen = HashSet<usize, BuildHasherDefault<AddressHasher>>;

/// A Lua string's bytes as a Rust string (invalid UTF-8 replaced).
fn lossy(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Deepest table nesting the encoder follows (deeper → error, never a crash).
pub const MAX_DEPTH: usize = 200;

/// Converts a JSON value into a Lua value. `null` becomes `nil`.
pub fn to_lua(lua: &Lua, value: &Value) -> mlua::Result<LuaValue> {
    match value {
        Value::Null => Ok(LuaValue::Nil),
        Value::Bool(b) => Ok(LuaValue::Boolean(*b)),
        Value::Number(n) => Ok(LuaValue::Number(n.as_f64().unwrap_or(0.0))),
        Value::String(s) => Ok(LuaValue::String(lua.create_string(s)?)),
        Value::Array(_) | Value::Object(_) => {
            // SAFETY: `push` keeps the stack balanced (one value pushed per
            // call) and checks stack space at every level; errors raised by
            // the C API (out of memory) are caught by `exec_raw`'s protected
            // call.
            unsafe {
                lua.exec_raw::<LuaValue>((), |state| {
                    push(state, value);
                })
            }
        }
    }
}

/// One argument to push.
pub enum Push<'a> {
    /// A JSON value (`null` → `nil`).
    Json(&'a Value),
    /// A number.
    Number(f64),
    /// The status items of `AggregateStatus` (`None` → `nil`), as the
    /// reference hands them to Lua: `clusterName` always, `status` when not
    /// null, `applied` when true, `appliedMessage` and `health` when not
    /// empty.
    Items(Option<&'a [AggregatedStatusItem]>),
    /// The component assignment of `ReviseComponents` (`None` → `nil`), as
    /// Karmada's pull request #7830 hands it to Lua: each item a table of
    /// `name` and `replicas`, both always present.
    #[cfg(feature = "karmada-next")]
    Components(Option<&'a [karmada_interpreter_core::api::TargetComponent]>),
}

/// The span of one run in which arguments are converted lazily (see
/// [`to_lua_many`]): the values handed to Lua must outlive it, which the
/// borrow of `'a` ensures. Ends (and every lazy table of the run is then
/// dead: it reads as empty) when dropped.
pub struct LazyScope<'a> {
    _values: std::marker::PhantomData<&'a Value>,
}

impl<'a> LazyScope<'a> {
    /// Starts the span on a state's main thread.
    pub fn begin(main: &MainState) -> Self {
        // SAFETY: `lua_lazybegin` only records the state and the expander
        // in thread-local storage; the expander reads values that the
        // scope's lifetime keeps alive until `lua_lazyend` in `drop`.
        unsafe { lua_lazybegin(main.0, expand) };
        Self {
            _values: std::marker::PhantomData,
        }
    }
}

/// A state's main thread (`lua_State *`), taken once when the state is
/// built: starting a [`LazyScope`] then needs no protected call.
pub struct MainState(*mut ffi::lua_State);

// SAFETY: the pointer is only used by whoever holds the state's `Lua`
// (the pool hands a state to one thread at a time).
unsafe impl Send for MainState {}

impl MainState {
    /// The main thread of `lua`.
    pub fn of(lua: &Lua) -> mlua::Result<Self> {
        let mut main = std::ptr::null_mut();
        // SAFETY: reads the state pointer the call runs on.
        unsafe { lua.exec_raw::<()>((), |state| main = state)? };
        Ok(Self(main))
    }
}

impl Drop for LazyScope<'_> {
    fn drop(&mut self) {
        // SAFETY: clears the thread-local span state.
        unsafe { lua_lazyend() }
    }
}

unsafe extern "C-unwind" {
    fn lua_lazybegin(
        state: *mut ffi::lua_State,
        expand: unsafe extern "C-unwind" fn(*mut ffi::lua_State, *mut c_void, *const c_void),
    );
    fn lua_lazyend();
    fn lua_pushlazytable(state: *mut ffi::lua_State, origin: *const c_void);
    fn lua_lazytable(state: *mut ffi::lua_State, origin: *const c_void) -> *mut c_void;
    fn lua_lazysize(state: *mut ffi::lua_State, t: *mut c_void, narray: c_int, nhash: c_int);
    #[allow(clippy::too_many_arguments)]
    fn lua_lazyset(
        state: *mut ffi::lua_State,
        t: *mut c_void,
        key: *const c_char,
        keylen: usize,
        index: c_int,
        kind: c_int,
        n: ffi::lua_Number,
        s: *const c_char,
        slen: usize,
        child: *mut c_void,
    );
    fn lua_tableorigin(t: *const c_void) -> *const c_void;
    fn lua_lazyorigin(t: *const c_void) -> *const c_void;
}

/// The input value a table was made from, while no table made from the
/// run's input has been written (so the table still equals what
/// converting that value gives). `None` outside a [`LazyScope`] (the C
/// side knows the run), so the value is alive while the table is.
pub fn origin_of(table: &mlua::Table) -> Option<&Value> {
    // SAFETY: `lua_tableorigin` reads the table's fields; a non-null result
    // is a value pushed in the running scope, alive until it ends, and the
    // table handed to a library function does not outlive the run.
    unsafe {
        let origin = lua_tableorigin(table.to_pointer());
        (!origin.is_null()).then(|| &*origin.cast::<Value>())
    }
}

/// Whether converting `value` into Lua and back gives `value` itself: no
/// `null`, no empty object or list (those come back as `[]` and are then
/// reconciled), every number one the round trip through a double keeps
/// (integers up to 2^53, non-integral floats), and no deeper than the
/// encoder follows.
pub fn round_trip_stable(value: &Value) -> bool {
    stable_at(value, 0)
}

/// [`round_trip_stable`] for a value met `depth` tables deep.
fn stable_at(v: &Value, depth: usize) -> bool {
    const EXACT: u64 = 1 << 53;
    match v {
        Value::Null => false,
        Value::Bool(_) | Value::String(_) => true,
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u <= EXACT
            } else if let Some(i) = n.as_i64() {
                i.unsigned_abs() <= EXACT
            } else {
                n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() != 0.0)
            }
        }
        Value::Array(items) => {
            depth < MAX_DEPTH && !items.is_empty() && items.iter().all(|x| stable_at(x, depth + 1))
        }
        Value::Object(map) => {
            depth < MAX_DEPTH && !map.is_empty() && map.values().all(|x| stable_at(x, depth + 1))
        }
    }
}

/// Fills a lazy table from the value it stands for: its scalars, and a
/// lazy table for each object or list. Runs inside a table access, so it
/// keeps to the calls made for that (no stack use, no collection step) and
/// holds nothing that needs dropping (an allocation failure unwinds
/// through it as a Lua error).
unsafe extern "C-unwind" fn expand(
    state: *mut ffi::lua_State,
    t: *mut c_void,
    origin: *const c_void,
) {
    let value = &*origin.cast::<Value>();
    match value {
        Value::Array(items) => {
            let n = items.iter().filter(|v| !v.is_null()).count();
            lua_lazysize(state, t, c_int::try_from(n).unwrap_or(c_int::MAX), 0);
            let mut i: c_int = 0;
            for item in items {
                if item.is_null() {
                    continue;
                }
                i = i.saturating_add(1);
                lazy_set(state, t, None, i, item);
            }
        }
        Value::Object(map) => {
            let n = map.values().filter(|v| !v.is_null()).count();
            lua_lazysize(state, t, 0, c_int::try_from(n).unwrap_or(c_int::MAX));
            for (k, v) in map {
                if v.is_null() {
                    continue;
                }
                lazy_set(state, t, Some(k), 0, v);
            }
        }
        _ => {}
    }
}

unsafe fn lazy_set(
    state: *mut ffi::lua_State,
    t: *mut c_void,
    key: Option<&str>,
    index: c_int,
    value: &Value,
) {
    let (kp, kl) = key.map_or((std::ptr::null(), 0), |k| (k.as_ptr().cast(), k.len()));
    let (mut n, mut text, mut child) = (0.0, "", std::ptr::null_mut());
    let kind = match value {
        Value::Null => return,
        Value::Bool(b) => {
            n = if *b { 1.0 } else { 0.0 };
            ffi::LUA_TBOOLEAN
        }
        Value::Number(x) => {
            n = x.as_f64().unwrap_or(0.0);
            ffi::LUA_TNUMBER
        }
        Value::String(s) => {
            text = s;
            ffi::LUA_TSTRING
        }
        Value::Array(_) | Value::Object(_) => {
            child = lua_lazytable(state, (value as *const Value).cast());
            ffi::LUA_TTABLE
        }
    };
    lua_lazyset(
        state,
        t,
        kp,
        kl,
        index,
        kind,
        n,
        text.as_ptr().cast(),
        text.len(),
        child,
    );
}

/// Pushes a value whose objects and lists become lazy tables.
unsafe fn push_lazy(state: *mut ffi::lua_State, value: &Value) {
    match value {
        Value::Array(_) | Value::Object(_) => {
            lua_pushlazytable(state, (value as *const Value).cast());
        }
        other => push(state, other),
    }
}

/// Converts several arguments in one protected call. Objects and lists
/// become lazy tables of `scope` (made on first access, as an eager
/// conversion would make them).
#[cfg(test)]
pub fn to_lua_many<'a>(
    lua: &Lua,
    _scope: &LazyScope<'a>,
    args: &[Push<'a>],
) -> mlua::Result<mlua::MultiValue> {
    // SAFETY: inside `exec_raw`'s protected call; the values are borrowed
    // for the scope's lifetime.
    unsafe {
        lua.exec_raw::<mlua::MultiValue>((), |state| {
            push_args(state, args);
        })
    }
}

/// Pushes the arguments of a run onto `state`'s stack (objects and lists
/// as lazy tables of the running [`LazyScope`]) and returns how many.
///
/// # Safety
///
/// `state` is inside a protected call, and the values stay alive until the
/// scope they are pushed in ends.
pub(crate) unsafe fn push_args(state: *mut ffi::lua_State, args: &[Push<'_>]) -> c_int {
    for a in args {
        ffi::luaL_checkstack(state, 4, c"too many arguments".as_ptr());
        match a {
            Push::Json(v) => push_lazy(state, v),
            Push::Number(n) => ffi::lua_pushnumber(state, *n),
            Push::Items(None) => ffi::lua_pushnil(state),
            Push::Items(Some(items)) => push_items(state, items),
            #[cfg(feature = "karmada-next")]
            Push::Components(None) => ffi::lua_pushnil(state),
            #[cfg(feature = "karmada-next")]
            Push::Components(Some(components)) => push_components(state, components),
        }
    }
    c_int::try_from(args.len()).unwrap_or(c_int::MAX)
}

/// The values a run returned, read where they are on the Lua stack (no
/// handle per value, no second protected call): what an entry point's
/// result is converted from.
pub(crate) struct Results {
    state: *mut ffi::lua_State,
    /// Stack index of the first result.
    base: c_int,
    len: c_int,
}

impl Results {
    /// The `len` values from stack index `base` of `state`.
    ///
    /// # Safety
    ///
    /// `state` is inside a protected call and the values stay on its stack
    /// while the `Results` is used.
    pub(crate) unsafe fn on_stack(state: *mut ffi::lua_State, base: c_int, len: c_int) -> Self {
        Self { state, base, len }
    }

    /// The Lua type of result `i` (`LUA_TNIL` past the last one).
    fn kind(&self, i: c_int) -> c_int {
        if i < 0 || i >= self.len {
            return ffi::LUA_TNIL;
        }
        // SAFETY: the index is one of the results (see `on_stack`).
        unsafe { ffi::lua_type(self.state, self.base + i) }
    }

    /// Whether result `i` is `nil` (or missing).
    pub(crate) fn is_nil(&self, i: c_int) -> bool {
        self.kind(i) == ffi::LUA_TNIL
    }

    /// Whether result `i` is a table.
    pub(crate) fn is_table(&self, i: c_int) -> bool {
        self.kind(i) == ffi::LUA_TTABLE
    }

    /// Result `i` when it is a boolean.
    pub(crate) fn boolean(&self, i: c_int) -> Option<bool> {
        // SAFETY: a boolean result on the stack (see `on_stack`).
        (self.kind(i) == ffi::LUA_TBOOLEAN)
            .then(|| unsafe { ffi::lua_toboolean(self.state, self.base + i) != 0 })
    }

    /// Result `i` when it is a number.
    pub(crate) fn number(&self, i: c_int) -> Option<f64> {
        // SAFETY: a number result on the stack (see `on_stack`).
        (self.kind(i) == ffi::LUA_TNUMBER)
            .then(|| unsafe { ffi::lua_tonumber(self.state, self.base + i) })
    }

    /// `type()` of result `i`.
    pub(crate) fn type_name(&self, i: c_int) -> &'static str {
        lua_type_name(self.kind(i))
    }

    /// gopher-lua's numeric type code of result `i` (in two reference
    /// error texts).
    pub(crate) fn type_code(&self, i: c_int) -> u8 {
        match self.kind(i) {
            ffi::LUA_TNIL => 0,
            ffi::LUA_TBOOLEAN => 1,
            ffi::LUA_TNUMBER => 2,
            ffi::LUA_TSTRING => 3,
            ffi::LUA_TFUNCTION => 4,
            ffi::LUA_TTHREAD => 6,
            ffi::LUA_TTABLE => 7,
            _ => 5,
        }
    }

    /// Result `i` encoded the way the reference's JSON bridge does (as
    /// [`from_lua`]); empty tables become `[]`.
    pub(crate) fn encode(&self, i: c_int) -> Result<Value, String> {
        match self.kind(i) {
            ffi::LUA_TNIL => Ok(Value::Null),
            ffi::LUA_TTABLE => {
                let mut seen = Seen::default();
                // SAFETY: `encode` reads the table at a result's index,
                // keeps the stack balanced and checks stack space before
                // every nesting level.
                unsafe { encode(self.state, self.base + i, 0, &mut seen) }.map_err(marshal_error)
            }
            ffi::LUA_TFUNCTION
            | ffi::LUA_TTHREAD
            | ffi::LUA_TUSERDATA
            | ffi::LUA_TLIGHTUSERDATA => Err(marshal_error(format!(
                "cannot encode {} to JSON",
                self.type_name(i)
            ))),
            // SAFETY: a boolean, number or string result on the stack.
            _ => unsafe { encode(self.state, self.base + i, 0, &mut Seen::default()) },
        }
    }
}

/// `type()`'s name of a Lua type code.
fn lua_type_name(kind: c_int) -> &'static str {
    match kind {
        ffi::LUA_TNIL => "nil",
        ffi::LUA_TBOOLEAN => "boolean",
        ffi::LUA_TNUMBER => "number",
        ffi::LUA_TSTRING => "string",
        ffi::LUA_TTABLE => "table",
        ffi::LUA_TFUNCTION => "function",
        ffi::LUA_TTHREAD => "thread",
        _ => "userdata",
    }
}

unsafe fn push_str(state: *mut ffi::lua_State, s: &str) {
    ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
}

/// Pushes the status items as one array of tables. The members go in in
/// the order a JSON object holds them (sorted by name), so `pairs` sees
/// them as it would see the same items converted from a `Value`.
unsafe fn push_items(state: *mut ffi::lua_State, items: &[AggregatedStatusItem]) {
    ffi::luaL_checkstack(state, 4, c"nesting too deep".as_ptr());
    let len = c_int::try_from(items.len()).unwrap_or(c_int::MAX);
    ffi::lua_createtable(state, len, 0);
    let mut i: ffi::lua_Integer = 0;
    for item in items {
        ffi::luaL_checkstack(state, 4, c"nesting too deep".as_ptr());
        ffi::lua_createtable(state, 0, 5);
        if item.applied {
            push_str(state, "applied");
            ffi::lua_pushboolean(state, 1);
            ffi::lua_rawset(state, -3);
        }
        if !item.applied_message.is_empty() {
            push_str(state, "appliedMessage");
            push_str(state, &item.applied_message);
            ffi::lua_rawset(state, -3);
        }
        push_str(state, "clusterName");
        push_str(state, &item.cluster_name);
        ffi::lua_rawset(state, -3);
        if let Some(h) = item.health.as_ref().filter(|h| !h.as_str().is_empty()) {
            push_str(state, "health");
            push_str(state, h.as_str());
            ffi::lua_rawset(state, -3);
        }
        if let Some(s) = item.status.as_ref().filter(|s| !s.is_null()) {
            push_str(state, "status");
            push_lazy(state, s);
            ffi::lua_rawset(state, -3);
        }
        i += 1;
        ffi::lua_rawseti(state, -2, i);
    }
}

/// Pushes the component assignment as one array of `{name, replicas}` tables.
#[cfg(feature = "karmada-next")]
unsafe fn push_components(
    state: *mut ffi::lua_State,
    components: &[karmada_interpreter_core::api::TargetComponent],
) {
    ffi::luaL_checkstack(state, 4, c"nesting too deep".as_ptr());
    let len = c_int::try_from(components.len()).unwrap_or(c_int::MAX);
    ffi::lua_createtable(state, len, 0);
    let mut i: ffi::lua_Integer = 0;
    for component in components {
        ffi::luaL_checkstack(state, 4, c"nesting too deep".as_ptr());
        ffi::lua_createtable(state, 0, 2);
        push_str(state, "name");
        push_str(state, &component.name);
        ffi::lua_rawset(state, -3);
        push_str(state, "replicas");
        ffi::lua_pushnumber(state, f64::from(component.replicas));
        ffi::lua_rawset(state, -3);
        i += 1;
        ffi::lua_rawseti(state, -2, i);
    }
}

/// Pushes one value (never `Null`: callers skip nulls).
unsafe fn push(state: *mut ffi::lua_State, value: &Value) {
    match value {
        Value::Null => ffi::lua_pushnil(state),
        Value::Bool(b) => ffi::lua_pushboolean(state, c_int::from(*b)),
        Value::Number(n) => ffi::lua_pushnumber(state, n.as_f64().unwrap_or(0.0)),
        Value::String(s) => push_str(state, s),
        Value::Array(items) => {
            ffi::luaL_checkstack(state, 4, c"nesting too deep".as_ptr());
            let len = c_int::try_from(items.len()).unwrap_or(c_int::MAX);
            ffi::lua_createtable(state, len, 0);
            let mut i: ffi::lua_Integer = 0;
            for item in items {
                if item.is_null() {
                    continue;
                }
                i += 1;
                push(state, item);
                ffi::lua_rawseti(state, -2, i);
            }
        }
        Value::Object(map) => {
            ffi::luaL_checkstack(state, 4, c"nesting too deep".as_ptr());
            let len = c_int::try_from(map.len()).unwrap_or(c_int::MAX);
            ffi::lua_createtable(state, 0, len);
            for (k, v) in map {
                if v.is_null() {
                    continue;
                }
                push_str(state, k);
                push(state, v);
                ffi::lua_rawset(state, -3);
            }
        }
    }
}

/// Lua type name as `type()` reports it.
pub fn type_name(v: &LuaValue) -> &'static str {
    match v {
        LuaValue::Nil => "nil",
        LuaValue::Boolean(_) => "boolean",
        LuaValue::Integer(_) | LuaValue::Number(_) => "number",
        LuaValue::String(_) => "string",
        LuaValue::Table(_) => "table",
        LuaValue::Function(_) => "function",
        LuaValue::Thread(_) => "thread",
        LuaValue::LightUserData(_) | LuaValue::UserData(_) => "userdata",
        _ => "userdata",
    }
}

/// A number as the reference's JSON decoding sees it: whole values in the
/// signed 64-bit range are integers, everything else doubles. Go writes a
/// double in its shortest decimal form (`1537228672809129200` for the double
/// nearest `1537228672809129216`), and that text is the integer read back.
pub(crate) fn number_to_json(x: f64) -> Result<Value, String> {
    if x.is_nan() {
        return Err("json: unsupported value: NaN".to_owned());
    }
    if x.is_infinite() {
        let sign = if x > 0.0 { "+" } else { "-" };
        return Err(format!("json: unsupported value: {sign}Inf"));
    }
    // -2^63 is written `-9223372036854776000`, beyond the integers: a
    // double, as Go's decoding reads that text (a quantity `-9223372036854776k`).
    if let Some(i) = integer_of_double(x) {
        return Ok(Value::Number(Number::from(i)));
    }
    Ok(Number::from_f64(x).map_or(Value::Null, Value::Number))
}

/// Encodes a Lua value the way the reference's JSON bridge does.
/// Empty tables become `[]`; call [`reconcile`] afterwards.
pub(crate) fn from_lua(lua: &Lua, value: &LuaValue) -> Result<Value, String> {
    match value {
        LuaValue::Nil => Ok(Value::Null),
        LuaValue::Boolean(b) => Ok(Value::Bool(*b)),
        LuaValue::Integer(i) => Ok(Value::from(*i)),
        LuaValue::Number(n) => number_to_json(*n),
        LuaValue::String(s) => Ok(Value::String(s.to_string_lossy())),
        LuaValue::Table(_) => {
            let mut out: Result<Value, String> = Ok(Value::Null);
            // SAFETY: `encode` only reads the table at the top of the stack,
            // iterates with lua_next keeping the stack balanced, and checks
            // stack space before every nesting level.
            let res = unsafe {
                lua.exec_raw::<()>(value, |state| {
                    let mut seen = Seen::default();
                    out = encode(state, -1, 0, &mut seen);
                    ffi::lua_pop(state, 1);
                })
            };
            match res {
                Ok(()) => out.map_err(marshal_error),
                Err(e) => Err(e.to_string()),
            }
        }
        LuaValue::Function(_) | LuaValue::Thread(_) | LuaValue::UserData(_) => Err(marshal_error(
            format!("cannot encode {} to JSON", type_name(value)),
        )),
        other => Err(format!("cannot encode {} to JSON", type_name(other))),
    }
}

/// The reference's JSON bridge encodes through Go's `json.Marshal`, which
/// wraps an error of a value's `MarshalJSON` in `json: error calling
/// MarshalJSON for type *json.jsonValue: ` once per level, from the value
/// that failed up to the result. The engine's own limits (nesting, stack)
/// are not the reference's and are said once.
fn marshal_error(e: String) -> String {
    if e == DEPTH_LIMIT || e == STACK_LIMIT {
        return e;
    }
    format!("json: error calling MarshalJSON for type *json.jsonValue: {e}")
}

/// The engine's own encoding limits.
const DEPTH_LIMIT: &str = "cannot encode tables nested deeper than 200 levels";
const STACK_LIMIT: &str = "cannot encode: Lua stack exhausted";

unsafe fn encode(
    state: *mut ffi::lua_State,
    idx: c_int,
    depth: usize,
    seen: &mut Seen,
) -> Result<Value, String> {
    match ffi::lua_type(state, idx) {
        ffi::LUA_TNIL => Ok(Value::Null),
        ffi::LUA_TBOOLEAN => Ok(Value::Bool(ffi::lua_toboolean(state, idx) != 0)),
        ffi::LUA_TNUMBER => number_to_json(ffi::lua_tonumber(state, idx)),
        ffi::LUA_TSTRING => {
            let mut len = 0usize;
            let ptr = ffi::lua_tolstring(state, idx, &mut len);
            let bytes = std::slice::from_raw_parts(ptr.cast::<u8>(), len);
            Ok(Value::String(lossy(bytes)))
        }
        ffi::LUA_TTABLE => {
            if depth >= MAX_DEPTH {
                return Err(DEPTH_LIMIT.to_owned());
            }
            let table = ffi::lua_topointer(state, idx);
            if !seen.insert(table as usize) {
                return Err("cannot encode recursively nested tables to JSON".to_owned());
            }
            // A lazy table the script never touched: its value is the input
            // value it stands for, read from there when the round trip
            // would give it back unchanged.
            let origin = lua_lazyorigin(table);
            if !origin.is_null() {
                let origin = &*origin.cast::<Value>();
                if stable_at(origin, depth) {
                    return Ok(origin.clone());
                }
            }
            if ffi::lua_checkstack(state, 4) == 0 {
                return Err(STACK_LIMIT.to_owned());
            }
            let t = ffi::lua_gettop(state) + idx + 1; // absolute index (idx < 0)
            let t = if idx > 0 { idx } else { t };
            let mut array: Vec<Option<Value>> = Vec::new();
            let mut object = Map::new();
            // 0 = undecided, 1 = numeric keys, 2 = string keys, 3 = mixed
            let mut mode = 0u8;
            let mut count = 0usize;
            let mut err: Option<String> = None;
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, t) != 0 {
                // key at -2, value at -1
                count += 1;
                let ktype = ffi::lua_type(state, -2);
                let this = match ktype {
                    ffi::LUA_TNUMBER => 1,
                    ffi::LUA_TSTRING => 2,
                    _ => 3,
                };
                if mode == 0 {
                    mode = this;
                } else if mode != this {
                    mode = 3;
                }
                if mode == 3 {
                    err = Some("cannot encode mixed or invalid key types".to_owned());
                    ffi::lua_pop(state, 2);
                    break;
                }
                let v = encode(state, -1, depth + 1, seen);
                let v = match v {
                    Ok(v) => v,
                    Err(e) => {
                        err = Some(marshal_error(e));
                        ffi::lua_pop(state, 2);
                        break;
                    }
                };
                if mode == 1 {
                    let k = ffi::lua_tonumber(state, -2);
                    if k.fract() != 0.0 || !(1.0..=67_108_863.0).contains(&k) {
                        err = Some("cannot encode sparse array".to_owned());
                        ffi::lua_pop(state, 2);
                        break;
                    }
                    let k = k as usize;
                    if array.len() < k {
                        array.resize(k, None);
                    }
                    array[k - 1] = Some(v);
                } else {
                    // string key: read it without lua_tolstring's in-place
                    // conversion (it is a string already).
                    let mut len = 0usize;
                    let ptr = ffi::lua_tolstring(state, -2, &mut len);
                    let bytes = std::slice::from_raw_parts(ptr.cast::<u8>(), len);
                    object.insert(lossy(bytes), v);
                }
                ffi::lua_pop(state, 1);
            }
            if let Some(e) = err {
                return Err(e);
            }
            match mode {
                0 => Ok(Value::Array(Vec::new())),
                1 => {
                    if array.len() != count || array.iter().any(Option::is_none) {
                        return Err("cannot encode sparse array".to_owned());
                    }
                    Ok(Value::Array(array.into_iter().flatten().collect()))
                }
                _ => Ok(Value::Object(object)),
            }
        }
        ffi::LUA_TFUNCTION => Err("cannot encode function to JSON".to_owned()),
        ffi::LUA_TTHREAD => Err("cannot encode thread to JSON".to_owned()),
        _ => Err("cannot encode userdata to JSON".to_owned()),
    }
}

/// Whether the converted value is meant to be an object or a list: decides
/// what a whole-result `[]` becomes (the first step of the empty-container
/// reconciliation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A structure or object: a whole `[]` becomes `{}`.
    Object,
    /// A list: a whole `[]` stays `[]`.
    List,
}

fn escape_key(k: &str, out: &mut String) {
    for c in k.chars() {
        if c == '.' || c == ':' {
            out.push('\\');
        }
        out.push(c);
    }
}

fn child_path(parent: &str, key: &str) -> String {
    let mut p = String::with_capacity(parent.len() + key.len() + 1);
    p.push_str(parent);
    if !parent.is_empty() {
        p.push('.');
    }
    escape_key(key, &mut p);
    p
}

#[derive(Default)]
struct EmptyPaths {
    objects: HashSet<String>,
    arrays: HashSet<String>,
}

fn collect(value: &Value, path: &str, out: &mut EmptyPaths) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match v {
                    Value::Object(m) if m.is_empty() => {
                        out.objects.insert(child_path(path, k));
                    }
                    Value::Array(a) if a.is_empty() => {
                        out.arrays.insert(child_path(path, k));
                    }
                    Value::Object(_) | Value::Array(_) => collect(v, &child_path(path, k), out),
                    _ => {}
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                match v {
                    Value::Object(m) if m.is_empty() => {
                        out.objects.insert(path.to_owned());
                    }
                    Value::Array(a) if a.is_empty() => {
                        out.arrays.insert(path.to_owned());
                    }
                    _ => collect(v, path, out),
                }
            }
        }
        _ => {}
    }
}

/// Repairs empty containers: every `[]` in `value` becomes `{}` when
/// the same index-free path is an empty object in a reference, stays `[]`
/// when it is an empty array there, and is removed otherwise. One pass: a
/// container emptied by the removals is kept.
pub fn reconcile(value: Value, references: &[&Value], target: Target) -> Value {
    if matches!(&value, Value::Array(a) if a.is_empty()) {
        return match target {
            Target::Object => Value::Object(Map::new()),
            Target::List => value,
        };
    }
    if !has_empty_array(&value) {
        return value;
    }
    let mut paths = EmptyPaths::default();
    for r in references {
        collect(r, "", &mut paths);
    }
    let mut value = value;
    walk(&mut value, "", &paths);
    value
}

fn has_empty_array(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.is_empty() || a.iter().any(has_empty_array),
        Value::Object(m) => m.values().any(has_empty_array),
        _ => false,
    }
}

enum Fate {
    Keep,
    Object,
    Delete,
}

fn fate(path: &str, paths: &EmptyPaths) -> Fate {
    if paths.objects.contains(path) {
        Fate::Object
    } else if paths.arrays.contains(path) {
        Fate::Keep
    } else {
        Fate::Delete
    }
}

fn is_empty_array(v: &Value) -> bool {
    matches!(v, Value::Array(a) if a.is_empty())
}

fn walk(value: &mut Value, path: &str, paths: &EmptyPaths) {
    match value {
        Value::Object(map) => {
            let mut delete = Vec::new();
            for (k, v) in map.iter_mut() {
                if !matches!(v, Value::Object(_) | Value::Array(_)) {
                    continue;
                }
                let p = child_path(path, k);
                if is_empty_array(v) {
                    match fate(&p, paths) {
                        Fate::Keep => {}
                        Fate::Object => *v = Value::Object(Map::new()),
                        Fate::Delete => delete.push(k.clone()),
                    }
                } else if has_empty_array(v) {
                    walk(v, &p, paths);
                }
            }
            for k in delete {
                map.remove(&k);
            }
        }
        Value::Array(items) => {
            let mut i = 0;
            while i < items.len() {
                if is_empty_array(&items[i]) {
                    match fate(path, paths) {
                        Fate::Keep => {}
                        Fate::Object => items[i] = Value::Object(Map::new()),
                        Fate::Delete => {
                            items.remove(i);
                            continue;
                        }
                    }
                } else {
                    walk(&mut items[i], path, paths);
                }
                i += 1;
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reconcile_without_references_removes_every_empty() {
        let v = json!({"status": {"conditions": [], "replicaStatuses": []}, "x": [1, []]});
        let out = reconcile(v, &[], Target::Object);
        assert_eq!(out, json!({"status": {}, "x": [1]}));
    }

    #[test]
    fn reconcile_restores_kinds_from_references() {
        let r = json!({"spec": {"a": {}, "b": [], "c": [{"d": {}}]}});
        let v = json!({"spec": {"a": [], "b": [], "c": [{"d": []}, {"d": []}], "e": []}});
        let out = reconcile(v, &[&r], Target::Object);
        assert_eq!(
            out,
            json!({"spec": {"a": {}, "b": [], "c": [{"d": {}}, {"d": {}}]}})
        );
    }

    #[test]
    fn whole_empty_result_depends_on_target() {
        assert_eq!(reconcile(json!([]), &[], Target::Object), json!({}));
        assert_eq!(reconcile(json!([]), &[], Target::List), json!([]));
    }

    /// Karmada deletes the empty tables of a list one by one by index while
    /// the indices shift (`[A, {}, B, {}, C]` gives `[A, B, []]`): a
    /// deliberate difference (COMPATIBILITY.md), every one is dropped here.
    #[test]
    fn every_empty_table_of_a_list_is_dropped() {
        let v = json!({"status": {"conditions": [{"type": "A"}, [], {"type": "B"}, [], {"type": "C"}]}});
        assert_eq!(
            reconcile(v, &[], Target::Object),
            json!({"status": {"conditions": [{"type": "A"}, {"type": "B"}, {"type": "C"}]}})
        );
    }

    #[test]
    fn keys_with_dots_are_escaped() {
        let r = json!({"metadata": {"annotations": {"a.b/c": {}}}});
        let v = json!({"metadata": {"annotations": {"a.b/c": []}}});
        assert_eq!(reconcile(v, &[&r], Target::Object), r);
    }

    #[test]
    fn numbers() {
        assert_eq!(number_to_json(3.0).unwrap(), json!(3));
        assert_eq!(number_to_json(2.5).unwrap(), json!(2.5));
        assert_eq!(number_to_json(-0.0).unwrap(), json!(0));
        assert!(number_to_json(1e19).unwrap().is_f64());
        // Above 2^53, Go's shortest decimal form of the double.
        assert_eq!(
            number_to_json(1_537_228_672_809_129_216.0).unwrap(),
            json!(1_537_228_672_809_129_200_i64)
        );
        assert_eq!(
            number_to_json(4_611_686_018_427_387_904.0).unwrap(),
            json!(4_611_686_018_427_388_000_i64)
        );
        // -2^63: its shortest form `-9223372036854776000` is beyond the integers.
        assert!(number_to_json(-9_223_372_036_854_775_808.0)
            .unwrap()
            .is_f64());
        assert_eq!(
            number_to_json(-9_007_199_254_740_994.0).unwrap(),
            json!(-9_007_199_254_740_994_i64)
        );
        assert_eq!(
            number_to_json(9_007_199_254_740_992.0).unwrap(),
            json!(9_007_199_254_740_992_i64)
        );
        assert_eq!(
            number_to_json(f64::NAN).unwrap_err(),
            "json: unsupported value: NaN"
        );
        assert_eq!(
            number_to_json(f64::NEG_INFINITY).unwrap_err(),
            "json: unsupported value: -Inf"
        );
    }
}

/// Lazily made tables against the eager conversion they stand for.
#[cfg(test)]
mod lazy_tests {
    use super::*;
    use serde_json::json;

    /// A deterministic generator of JSON values with every shape the
    /// conversion treats specially: `null` members and elements, empty
    /// objects and lists, integers beyond 2^53, integral floats, nesting.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }

        fn value(&mut self, depth: usize) -> Value {
            let pick = self.next() % if depth >= 4 { 7 } else { 10 };
            match pick {
                0 => Value::Null,
                1 => Value::Bool(self.next().is_multiple_of(2)),
                2 => json!(self.next() % 1000),
                3 => [
                    json!(-5),
                    json!(9_007_199_254_740_993_u64),
                    json!(2.0),
                    json!(1.5),
                    json!(1e300),
                ][(self.next() % 5) as usize]
                    .clone(),
                4 => Value::String(format!("s{}", self.next() % 50)),
                5 => json!({}),
                6 => json!([]),
                7 | 8 => {
                    let n = self.next() % 6;
                    Value::Object(
                        (0..n)
                            .map(|_| (format!("k{}", self.next() % 20), self.value(depth + 1)))
                            .collect(),
                    )
                }
                _ => {
                    let n = self.next() % 6;
                    Value::Array((0..n).map(|_| self.value(depth + 1)).collect())
                }
            }
        }
    }

    /// Describes a Lua value as a script sees it: types, `#`, and the
    /// `pairs` order at every level.
    const DUMP: &str = r#"
        local function dump(v, out)
          if type(v) ~= "table" then
            out[#out + 1] = type(v) .. ":" .. tostring(v)
            return
          end
          out[#out + 1] = "{#" .. #v .. " "
          for k, x in pairs(v) do
            out[#out + 1] = type(k) .. ":" .. tostring(k) .. "="
            dump(x, out)
            out[#out + 1] = ","
          end
          out[#out + 1] = "}"
        end
        return function(v) local out = {} dump(v, out) return table.concat(out) end
    "#;

    fn lazily<T>(lua: &Lua, value: &Value, f: impl FnOnce(LuaValue) -> T) -> T {
        let main = MainState::of(lua).unwrap();
        let scope = LazyScope::begin(&main);
        let mut args = to_lua_many(lua, &scope, &[Push::Json(value)]).unwrap();
        f(args.pop_front().unwrap())
    }

    #[test]
    fn scripts_see_lazy_tables_as_the_eager_conversion() {
        let lua = Lua::new();
        let dump: mlua::Function = lua.load(DUMP).eval().unwrap();
        let mut gen = Gen(24);
        for case in 0..3000 {
            let value = json!({"root": gen.value(0), "more": gen.value(0)});
            let eager = dump.call::<String>(to_lua(&lua, &value).unwrap()).unwrap();
            let lazy = lazily(&lua, &value, |t| dump.call::<String>(t).unwrap());
            assert_eq!(lazy, eager, "case {case}: {value}");
        }
    }

    #[test]
    fn untouched_lazy_tables_encode_as_the_eager_conversion() {
        let lua = Lua::new();
        let touch: mlua::Function = lua
            .load("return function(t, n) if n % 2 == 0 then local _ = t.root end return t end")
            .eval()
            .unwrap();
        let mut gen = Gen(7);
        for case in 0..3000 {
            let value = json!({"root": gen.value(0), "more": gen.value(0)});
            let eager = from_lua(&lua, &to_lua(&lua, &value).unwrap());
            let lazy = lazily(&lua, &value, |t| {
                let t: LuaValue = touch.call((t, case)).unwrap();
                from_lua(&lua, &t)
            });
            assert_eq!(lazy, eager, "case {case}: {value}");
        }
    }

    #[test]
    fn a_written_input_table_is_no_longer_its_origin() {
        let lua = Lua::new();
        let value = json!({"spec": {"template": {"a": 1}}, "other": {"b": 2}});
        lazily(&lua, &value, |t| {
            let LuaValue::Table(t) = t else {
                panic!("a table")
            };
            let template: mlua::Table = t
                .get::<mlua::Table>("spec")
                .unwrap()
                .get("template")
                .unwrap();
            assert_eq!(origin_of(&template), Some(&value["spec"]["template"]));
            // a write to any input table, even another one
            let other: mlua::Table = t.get("other").unwrap();
            other.set("b", 3).unwrap();
            assert_eq!(origin_of(&template), None);
        });
    }

    #[test]
    fn a_lazy_table_outliving_its_run_reads_as_empty() {
        let lua = Lua::new();
        let value = json!({"a": {"b": 1}});
        lazily(&lua, &value, |t| lua.globals().set("kept", t).unwrap());
        drop(value);
        let n: i64 = lua
            .load("local n = 0 for _ in pairs(kept) do n = n + 1 end return n")
            .eval()
            .unwrap();
        assert_eq!(n, 0);
        let t: mlua::Table = lua.globals().get("kept").unwrap();
        assert_eq!(origin_of(&t), None);
    }
}
