//! Hostile scripts: each must fail cleanly (a typed `lua::ScriptFailure` naming the
//! customization and operation) within its limit, and the next call on the
//! same layer must still work.

use std::time::{Duration, Instant};

use karmada_interpreter::api::{InterpreterOperation, ResourceInterpreterCustomization};
use karmada_interpreter::declarative::{compile_check, Limits, LuaLayer, ScriptError};
use karmada_interpreter::interpreter::{Layer, Outcome, Request};
use karmada_interpreter::Error;
use rstest::rstest;
use serde_json::{json, Value};

use crate::support::customization::Customization;

const TIMEOUT: Duration = Duration::from_millis(300);
/// Scheduling slack on a loaded machine; a run that ignores the deadline
/// would take far longer (or forever).
const SLACK: Duration = Duration::from_secs(3);

fn customization(name: &str, kind: &str, health: &str) -> ResourceInterpreterCustomization {
    Customization::new(name, "sandbox.example.io/v1", kind)
        .script(InterpreterOperation::InterpretHealth, health)
        .typed()
}

const BENIGN: &str = r#"
function InterpretHealth(obj)
  local parts = {}
  table.insert(parts, string.upper("ok"))
  assert(type(parts) == "table" and leak == nil and string.upper ~= nil)
  return obj.status.ready == true and table.concat(parts) == "OK"
end
"#;

fn layer(hostile: &str) -> LuaLayer {
    layer_with(
        hostile,
        Limits {
            timeout: TIMEOUT,
            memory: 32 << 20,
        },
    )
}

/// Memory bombs run with a small memory limit and a long deadline, so the
/// memory limit is what stops them.
/// The deadline cases' limits (those of [`layer`]).
const TIMEOUT_LIMITS: Limits = Limits {
    timeout: TIMEOUT,
    memory: 32 << 20,
};

const MEMORY_LIMITS: Limits = Limits {
    timeout: Duration::from_secs(20),
    memory: 8 << 20,
};

fn layer_with(hostile: &str, limits: Limits) -> LuaLayer {
    LuaLayer::customizations_with_limits(
        vec![
            customization("hostile", "Hostile", hostile),
            customization("benign", "Benign", BENIGN),
        ],
        limits,
    )
    .unwrap()
}

fn object(kind: &str) -> Value {
    json!({"apiVersion": "sandbox.example.io/v1", "kind": kind, "metadata": {"name": "x"},
           "status": {"ready": true}})
}

fn health(layer: &LuaLayer, kind: &str) -> Result<Outcome, Error> {
    let obj = object(kind);
    layer.interpret(&Request::InterpretHealth { object: &obj })
}

fn assert_benign_works(layer: &LuaLayer) {
    for _ in 0..3 {
        assert_eq!(health(layer, "Benign").unwrap(), Outcome::Healthy(true));
    }
}

/// Runs the hostile script, checks the failure, then the benign script.
fn hostile(script: &str, expected: &str) {
    hostile_with(script, expected, layer(script), TIMEOUT);
}

fn hostile_with(script: &str, expected: &str, layer: LuaLayer, timeout: Duration) {
    let _ = script;
    // a benign run first so the hostile one reuses a pooled state
    assert_benign_works(&layer);
    let start = Instant::now();
    let err = health(&layer, "Hostile").expect_err("the hostile script must fail");
    let elapsed = start.elapsed();
    match karmada_interpreter::declarative::script_error(&err) {
        Some(failure) => {
            let (customization, operation, source) =
                (&failure.customization, &failure.operation, &failure.error);
            let message = source.message();
            assert_eq!(customization, "hostile");
            assert_eq!(*operation, InterpreterOperation::InterpretHealth);
            assert!(
                message.contains(expected),
                "message {message:?} does not contain {expected:?}"
            );
        }
        None => panic!("expected a Lua error, got {err:?}"),
    }
    assert!(
        elapsed < timeout + SLACK,
        "took {elapsed:?}, limit {timeout:?}"
    );
    assert_benign_works(&layer);
    // and the hostile script fails the same way again
    assert!(health(&layer, "Hostile").is_err());
    assert_benign_works(&layer);
}

fn wrap(body: &str) -> String {
    format!("function InterpretHealth(obj)\n{body}\nreturn true\nend")
}

#[rstest]
// file, process and environment access
#[case::io_open(
    "io.open('/etc/passwd')",
    "attempt to index a non-table object(nil) with key 'open'"
)]
#[case::io_popen(
    "local f = io.popen('id')",
    "attempt to index a non-table object(nil) with key 'popen'"
)]
#[case::os_execute("os.execute('id')", "attempt to call a non-function object")]
#[case::os_exit("os.exit(1)", "attempt to call a non-function object")]
#[case::os_getenv(
    "local home = os.getenv('HOME')",
    "attempt to call a non-function object"
)]
#[case::os_remove("os.remove('/tmp/x')", "attempt to call a non-function object")]
#[case::dofile("dofile('/etc/passwd')", "call function dofile is not supported")]
#[case::loadfile("loadfile('/etc/passwd')", "call function loadfile is not supported")]
// modules
// Karmada serves the opened libraries: `require("os")` is the restricted `os`
#[case::require_os("require('os').execute('id')", "attempt to call a non-function object")]
#[case::require_io("require('io')", "module io not found")]
#[case::require_debug("require('debug')", "module debug not found")]
#[case::require_ffi("require('ffi')", "module ffi not found")]
#[case::package_loadlib("package.loadlib('libc.so.6', 'system')", "loadlib is not supported")]
#[case::package_preload("package.preload.evil = function() end", "read-only")]
#[case::kube_write("require('kube').resourceAdd = nil", "read-only")]
// code loading
#[case::load("load('return 1')", "call function load is not supported")]
#[case::loadstring("loadstring('return 1')", "call function loadstring is not supported")]
#[case::string_dump("local b = string.dump(print)", "string.dump is not supported")]
#[case::loadstring_bytecode(
    "loadstring('\\27Lua\\81\\0')",
    "call function loadstring is not supported"
)]
// debug and environment tricks
#[case::debug(
    "debug.getinfo(1)",
    "attempt to index a non-table object(nil) with key 'getinfo'"
)]
#[case::getfenv("local g = getfenv(0)", "call function getfenv is not supported")]
#[case::setfenv("setfenv(1, {})", "call function setfenv is not supported")]
#[case::getmetatable_string(
    "getmetatable('').__index.rep = nil",
    "call function getmetatable is not supported"
)]
#[case::setmetatable_g(
    "setmetatable(_G, {__index = function() end})",
    "call function setmetatable is not supported"
)]
#[case::rawset("rawset(string, 'x', 1)", "call function rawset is not supported")]
#[case::collectgarbage(
    "collectgarbage('stop')",
    "call function collectgarbage is not supported"
)]
#[case::newproxy("newproxy(true)", "call function newproxy is not supported")]
#[case::string_method_rep("local s = ('x'):rep(1e9)", "string.rep is not supported")]
#[case::string_method_gsub("local s = ('x'):gsub('x', 'y')", "string.gsub is not supported")]
#[case::coroutine(
    "local co = coroutine.create(function() while true do end end)",
    "attempt to index a non-table object(nil) with key 'create'"
)]
// limits
#[case::infinite_loop("while true do end", "context deadline exceeded")]
#[case::loop_in_pcall(
    "while true do pcall(function() while true do end end) end",
    "context deadline exceeded"
)]
#[case::pcall_swallows_errors("repeat pcall(error, 'x') until false", "context deadline exceeded")]
#[case::xpcall_handler_loops(
    "while true do xpcall(function() while true do end end, function(e) while true do end end) end",
    "context deadline exceeded"
)]
#[case::busy_recursion_in_pcall(
    "local function f() pcall(f) pcall(f) end while true do f() end",
    "context deadline exceeded"
)]
#[case::deep_recursion("local function f(n) return 1 + f(n + 1) end f(1)", "stack overflow")]
#[case::pattern_too_complex(
    "local p, s = '', '' for i = 1, 300 do p = p .. 'a?' s = s .. 'a' end string.find(s, p)",
    "pattern too complex"
)]
#[case::backtracking_pattern(
    "local s = 'a' for i = 1, 14 do s = s .. s end string.find(s, 'a*a*a*a*a*a*b')",
    "context deadline exceeded"
)]
#[case::format_bomb(
    "local t = {} local f = '' for i = 1, 2000 do t[i] = 1 f = f .. '%9999d' end string.format(f, unpack(t))",
    "string.format result exceeds"
)]
#[case::os_time_overflow("os.time({year = 1e300, month = 1, day = 1})", "out-of-bound")]
#[case::huge_string_input(
    "local s = 'x' for i = 1, 21 do s = s .. s end string.upper(s)",
    "exceeds the maximum allowed input string length"
)]
fn hostile_scripts(#[case] body: &str, #[case] expected: &str) {
    hostile(&wrap(body), expected);
}

#[rstest]
// MEMORY_CASES
#[case::string_table_growth("local t = {} local i = 0 while true do i = i + 1 t[i] = tostring(i) .. 'padding-padding-padding' end", "not enough memory")]
#[case::table_growth("local t = {} for i = 1, 1e9 do t[i] = {i} end", "not enough memory")]
#[case::string_doubling("local s = 'x' while true do s = s .. s end", "not enough memory")]
fn memory_bombs(#[case] body: &str, #[case] expected: &str) {
    let script = wrap(body);
    hostile_with(
        &script,
        expected,
        layer_with(&script, MEMORY_LIMITS),
        MEMORY_LIMITS.timeout,
    );
}

#[test]
fn memory_bomb_inside_pcall_loop_still_ends() {
    // pcall catches each out-of-memory error; the deadline ends the loop.
    hostile(
        &wrap(
            "while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end) end",
        ),
        "",
    );
}

#[test]
fn deep_recursion_through_pcall_ends_cleanly() {
    hostile(
        &wrap(
            "local function f() local ok = pcall(f) return ok end f() error('recursion survived')",
        ),
        "recursion survived",
    );
}

#[test]
fn binary_chunk_is_refused() {
    hostile("\x1bLua\x51\x00\x01\x04\x08\x04\x08\x00", "binary");
}

#[test]
fn globals_do_not_leak_between_calls_or_scripts() {
    // every global and library mutation stays in the run's own environment
    let polluter = r#"
      type = ''
      error = ''
      leak = 1
      string.upper = nil
      table.insert = nil
      _G.tostring = nil
      function InterpretHealth(obj) return leak == 1 end
    "#;
    let layer = layer(polluter);
    for _ in 0..3 {
        assert_eq!(health(&layer, "Hostile").unwrap(), Outcome::Healthy(true));
        assert_benign_works(&layer);
    }
}

/// The strings' metatable is shared by every run of a state: a script that
/// reaches the string library through a string value (`("x").__index`, as
/// gopher-lua's library holds itself) or the metatable itself writes nothing
/// a later run or another customization sees.
#[test]
fn the_string_library_behind_string_values_is_not_shared_state() {
    let polluter = r#"
      function InterpretHealth(obj)
        local seen = ("x").marker
        pcall(function()
          local lib = ("x").__index
          lib.marker = "leaked"
          lib.upper = nil
          rawset(lib, "lower", nil)
        end)
        pcall(function()
          local meta = getmetatable("")
          meta.__index = {marker = "leaked"}
        end)
        return seen == nil
      end
    "#;
    let layer = layer(polluter);
    for _ in 0..3 {
        assert_eq!(health(&layer, "Hostile").unwrap(), Outcome::Healthy(true));
        assert_benign_works(&layer);
    }
    let methods = customization(
        "methods",
        "Methods",
        r#"function InterpretHealth(obj)
             return ("ok"):upper() == "OK" and ("OK"):lower() == "ok" and ("x").marker == nil
           end"#,
    );
    let both = LuaLayer::customizations_with_limits(
        vec![customization("hostile", "Hostile", polluter), methods],
        TIMEOUT_LIMITS,
    )
    .unwrap();
    for _ in 0..3 {
        assert_eq!(health(&both, "Hostile").unwrap(), Outcome::Healthy(true));
        assert_eq!(health(&both, "Methods").unwrap(), Outcome::Healthy(true));
    }
}

#[test]
fn leftover_entry_point_is_not_found() {
    // the reference may call a function left behind by an earlier run; a fresh
    // environment per run reports the missing function instead
    let layer = LuaLayer::customizations_with_limits(
        vec![
            customization("benign", "Benign", BENIGN),
            customization(
                "typo",
                "Typo",
                "function InterpretHeatlh(obj) return true end",
            ),
        ],
        Limits::default(),
    )
    .unwrap();
    assert_benign_works(&layer);
    let err = health(&layer, "Typo").unwrap_err();
    assert!(
        err.to_string()
            .contains("not found function InterpretHealth"),
        "{err}"
    );
}

#[test]
fn state_is_usable_after_many_failures() {
    let layer = layer(&wrap("error('boom')"));
    for _ in 0..50 {
        assert!(health(&layer, "Hostile").is_err());
    }
    assert_benign_works(&layer);
}

/// The kind of failure is told by type, not by message: the deadline, the
/// memory limit, a sandbox refusal, a compile error and an ordinary Lua error
/// are different `ScriptError` variants.
#[rstest]
#[case::deadline(wrap("while true do end"), TIMEOUT_LIMITS, "timeout")]
#[case::deadline_in_pcall(
    wrap("repeat pcall(error, 'x') until false"),
    TIMEOUT_LIMITS,
    "timeout"
)]
#[case::memory(
    wrap("local s = 'x' while true do s = s .. s end"),
    MEMORY_LIMITS,
    "memory"
)]
#[case::disabled_function(wrap("loadstring('return 1')"), TIMEOUT_LIMITS, "refused")]
#[case::unknown_module(wrap("require('io')"), TIMEOUT_LIMITS, "refused")]
#[case::unsupported_string(wrap("local s = ('x'):rep(3)"), TIMEOUT_LIMITS, "refused")]
#[case::read_only_library(wrap("require('kube').resourceAdd = nil"), TIMEOUT_LIMITS, "refused")]
#[case::caught_refusal_then_error(
    wrap("pcall(loadstring, 'x') error('plain failure')"),
    TIMEOUT_LIMITS,
    "runtime"
)]
#[case::script_error(wrap("error('boom')"), TIMEOUT_LIMITS, "runtime")]
#[case::missing_global(wrap("io.open('/etc/passwd')"), TIMEOUT_LIMITS, "runtime")]
fn failures_are_told_apart_by_type(
    #[case] script: String,
    #[case] limits: Limits,
    #[case] expected: &str,
) {
    let layer = layer_with(&script, limits);
    let kind = match health(&layer, "Hostile") {
        Err(e) => match karmada_interpreter::declarative::script_error(&e)
            .map(|f| f.error.clone())
            .unwrap_or_else(|| panic!("expected a Lua error, got {e:?}"))
        {
            ScriptError::Timeout(_) => "timeout",
            ScriptError::MemoryLimit(_) => "memory",
            ScriptError::Refused(_) => "refused",
            ScriptError::Runtime(_) => "runtime",
            other => panic!("unexpected {other:?}"),
        },
        other => panic!("expected a Lua error, got {other:?}"),
    };
    assert_eq!(kind, expected);
    // The error chain exposes the typed cause.
    if let Err(e) = health(&layer, "Hostile") {
        let source = std::error::Error::source(&e).expect("a source");
        assert!(source
            .downcast_ref::<karmada_interpreter::declarative::ScriptFailure>()
            .is_some());
    }
}

#[test]
fn compile_failures_and_binary_chunks_are_told_apart() {
    assert!(matches!(
        compile_check("function f( end"),
        Err(ScriptError::Compile(_))
    ));
    assert!(matches!(
        compile_check("\x1bLua\x51\x00\x01"),
        Err(ScriptError::Refused(_))
    ));
    assert_eq!(compile_check("return 1"), Ok(()));
}
