//! The sandbox catalogue of `docs/security.md`: the entries that
//! `tests/lua_sandbox.rs` (hostile scripts that must fail) does not already
//! cover — CPU spent inside library calls, the memory limit of one state
//! while other states keep working, gigantic and deeply nested results,
//! deadlines under `pcall`/`xpcall`, isolation between calls and concurrent
//! runs, and the exact library surface.
//!
//! Every test bounds itself: a hostile run must end within its limit plus
//! scheduling slack, and the layer must answer a benign script afterwards.

use std::time::{Duration, Instant};

use karmada_interpreter::api::ResourceInterpreterCustomization;
use karmada_interpreter::declarative::{Limits, LuaLayer};
use karmada_interpreter::interpreter::{Layer, Outcome, Request};
use karmada_interpreter::Error;
use rstest::rstest;
use serde_json::{json, Value};

use crate::support::customization::Customization;

const API_VERSION: &str = "sandbox.example.io/v1";
/// Scheduling slack on a loaded machine; a run that ignored its limit would
/// take far longer (or forever).
const SLACK: Duration = Duration::from_secs(3);

const LIMITS: Limits = Limits {
    timeout: Duration::from_millis(300),
    memory: 16 << 20,
};

fn customization(kind: &str, member: &str, script: &str) -> ResourceInterpreterCustomization {
    Customization::new(&kind.to_lowercase(), API_VERSION, kind)
        .rule(member, script)
        .typed()
}

const BENIGN: &str = "function InterpretHealth(obj) return obj.status.ready == true end";

/// A layer with a `Hostile` kind running `script` (InterpretHealth) and a
/// `Benign` kind.
fn layer(script: &str, limits: Limits) -> LuaLayer {
    LuaLayer::customizations_with_limits(
        vec![
            customization("Hostile", "healthInterpretation", script),
            customization("Benign", "healthInterpretation", BENIGN),
        ],
        limits,
    )
    .unwrap()
}

fn object(kind: &str) -> Value {
    json!({"apiVersion": API_VERSION, "kind": kind, "metadata": {"name": "x"},
           "status": {"ready": true}})
}

fn health(layer: &LuaLayer, kind: &str) -> Result<Outcome, Error> {
    layer.interpret(&Request::InterpretHealth {
        object: &object(kind),
    })
}

fn assert_benign_works(layer: &LuaLayer) {
    assert_eq!(health(layer, "Benign").unwrap(), Outcome::Healthy(true));
}

fn lua_message(err: &Error) -> String {
    match karmada_interpreter::declarative::script_error(err) {
        Some(failure) => failure.error.to_string(),
        None => panic!("expected a Lua error, got {err:?}"),
    }
}

fn wrap(body: &str) -> String {
    format!("function InterpretHealth(obj)\n{body}\nreturn true\nend")
}

/// Runs `body` as the hostile script: it must fail with `expected` within
/// the limits, and the layer must keep working.
fn refused(body: &str, expected: &str, limits: Limits) {
    let layer = layer(&wrap(body), limits);
    assert_benign_works(&layer);
    let started = Instant::now();
    let err = health(&layer, "Hostile").expect_err("the hostile script must fail");
    let took = started.elapsed();
    let message = lua_message(&err);
    assert!(
        message.contains(expected),
        "{message:?} does not contain {expected:?}"
    );
    assert!(
        took < limits.timeout + SLACK,
        "took {took:?}, limit {:?}",
        limits.timeout
    );
    assert_benign_works(&layer);
}

/// CPU spent inside library calls (C code the instruction hook does not
/// see) is bounded: either each call is bounded by its input (which the
/// memory and input-size limits bound) and the deadline fires between
/// calls, or the library checks the deadline itself.
#[rstest]
#[case::sort_bad_comparator(
    "local t = {} for i = 1, 1000 do t[i] = i % 7 end while true do table.sort(t, function(a, b) return true end) end",
    "context deadline exceeded"
)]
#[case::sort_looping_comparator(
    "local t = {3, 1, 2} table.sort(t, function(a, b) while true do end end)",
    "context deadline exceeded"
)]
#[case::sort_big_tables_forever(
    "local t = {} for i = 1, 100000 do t[i] = (i * 7919) % 100003 end while true do table.sort(t) table.sort(t, function(a, b) return a > b end) end",
    "context deadline exceeded"
)]
#[case::concat_forever(
    "local t = {} for i = 1, 10000 do t[i] = 'abcdefgh' end while true do local s = table.concat(t, ',') end",
    "context deadline exceeded"
)]
#[case::concat_growth(
    "local t = {'x'} while true do t[#t + 1] = table.concat(t) end",
    "not enough memory"
)]
#[case::find_backtracking_under_pcall(
    "local s = 'a' for i = 1, 14 do s = s .. s end while true do pcall(string.find, s, 'a*a*a*a*a*a*b') end",
    "context deadline exceeded"
)]
#[case::match_backtracking(
    "local s = 'a' for i = 1, 14 do s = s .. s end string.match(s, '.-.-.-.-.-.-.-.-b')",
    "context deadline exceeded"
)]
#[case::gmatch_backtracking(
    "local s = 'a' for i = 1, 14 do s = s .. s end for m in string.gmatch(s, 'a*a*a*a*a*a*b') do end",
    "context deadline exceeded"
)]
#[case::unpack_huge_range("local x = unpack({}, 1, 1e8)", "too many results to unpack")]
#[case::char_of_huge_unpack(
    "local t = {} for i = 1, 20000 do t[i] = 65 end local s = string.char(unpack(t))",
    "too many results to unpack"
)]
#[case::format_wide_forever(
    "while true do local s = string.format('%0999999d', 1) end",
    "context deadline exceeded"
)]
fn cpu_inside_library_calls_is_bounded(#[case] body: &str, #[case] expected: &str) {
    refused(body, expected, LIMITS);
}

/// The deadline cannot be swallowed by `pcall`/`xpcall` at any depth, nor
/// outlived by an error handler.
#[rstest]
#[case::nested_pcall(
    "pcall(pcall, pcall, function() while true do end end) while true do end",
    "context deadline exceeded"
)]
#[case::pcall_retry_loop(
    "while true do local ok, e = pcall(function() while true do end end) end",
    "context deadline exceeded"
)]
#[case::xpcall_handler_retries(
    "while true do xpcall(function() while true do end end, function(e) return pcall(function() while true do end end) end) end",
    "context deadline exceeded"
)]
#[case::error_object_table("while true do pcall(error, {}) end", "context deadline exceeded")]
#[case::sort_comparator_in_pcall(
    "while true do pcall(table.sort, {3, 2, 1}, function(a, b) while true do end end) end",
    "context deadline exceeded"
)]
fn deadline_holds_under_protected_calls(#[case] body: &str, #[case] expected: &str) {
    refused(body, expected, LIMITS);
}

/// One state exhausting its memory limit fails alone: runs on other pooled
/// states (other threads, same layer) keep answering meanwhile, and the
/// layer answers afterwards.
#[test]
fn memory_limit_of_one_state_spares_the_others() {
    let limits = Limits {
        timeout: Duration::from_secs(20),
        memory: 8 << 20,
    };
    let layer = layer(
        &wrap("local t = {} local i = 0 while true do i = i + 1 t[i] = {i, i} end"),
        limits,
    );
    std::thread::scope(|s| {
        let bombs: Vec<_> = (0..2)
            .map(|_| s.spawn(|| health(&layer, "Hostile")))
            .collect();
        for _ in 0..20 {
            assert_benign_works(&layer);
        }
        for bomb in bombs {
            let err = bomb.join().unwrap().unwrap_err();
            assert!(lua_message(&err).contains("not enough memory"), "{err}");
        }
    });
    assert_benign_works(&layer);
}

/// A script returning a gigantic table: the result is bounded by the
/// state's memory limit (building a bigger one fails inside Lua); one that
/// fits is converted in full.
#[test]
fn gigantic_results_are_bounded_by_the_memory_limit() {
    let status = |script: &str| {
        let layer = LuaLayer::customizations_with_limits(
            vec![customization("Big", "statusReflection", script)],
            Limits {
                timeout: Duration::from_secs(20),
                memory: 16 << 20,
            },
        )
        .unwrap();
        let obj = json!({"apiVersion": API_VERSION, "kind": "Big"});
        layer.interpret(&Request::InterpretStatus { object: &obj })
    };
    let fits = status(
        "function ReflectStatus(o) local t = {} for i = 1, 50000 do t[i] = {n = i, s = 'item'} end return {items = t} end",
    )
    .unwrap();
    let Outcome::Status(Some(v)) = fits else {
        panic!("{fits:?}")
    };
    assert_eq!(v["items"].as_array().map(Vec::len), Some(50000));
    assert_eq!(v["items"][49999], json!({"n": 50000, "s": "item"}));
    let err = status(
        "function ReflectStatus(o) local t = {} for i = 1, 1e8 do t[i] = {n = i, s = 'item'} end return {items = t} end",
    )
    .unwrap_err();
    assert!(lua_message(&err).contains("not enough memory"), "{err}");
    // a table reachable twice is refused (no exponential blow-up of the output)
    let err = status(
        "function ReflectStatus(o) local t = {} for i = 1, 60 do t = {a = t, b = t} end return t end",
    )
    .unwrap_err();
    assert!(lua_message(&err).contains("recursively nested"), "{err}");
}

/// Stack depth: results nested deeper than 200 tables are an error, input
/// objects nested deeper than that still reach the script, and Lua
/// recursion ends with `stack overflow`.
#[test]
fn nesting_depth_is_bounded() {
    let layer = LuaLayer::customizations_with_limits(
        vec![
            customization(
                "Deep",
                "statusReflection",
                "function ReflectStatus(o) local t = {} for i = 1, 300 do t = {t} end return {x = t} end",
            ),
            customization(
                "Echo",
                "retention",
                "function Retain(d, o) return d end",
            ),
            customization(
                "Depth",
                "healthInterpretation",
                "function InterpretHealth(o) local n, t = 0, o.spec while type(t) == 'table' do n = n + 1 t = t.x end return n == 500 end",
            ),
        ],
        LIMITS,
    )
    .unwrap();
    let obj = json!({"apiVersion": API_VERSION, "kind": "Deep"});
    let err = layer
        .interpret(&Request::InterpretStatus { object: &obj })
        .unwrap_err();
    assert!(
        lua_message(&err).contains("nested deeper than 200 levels"),
        "{err}"
    );
    let mut deep = json!(1);
    for _ in 0..500 {
        deep = json!({ "x": deep });
    }
    let depth = json!({"apiVersion": API_VERSION, "kind": "Depth", "spec": deep});
    assert_eq!(
        layer
            .interpret(&Request::InterpretHealth { object: &depth })
            .unwrap(),
        Outcome::Healthy(true)
    );
    let echo = json!({"apiVersion": API_VERSION, "kind": "Echo", "spec": deep});
    let err = layer
        .interpret(&Request::Retain {
            desired: &echo,
            observed: &echo,
        })
        .unwrap_err();
    assert!(
        lua_message(&err).contains("nested deeper than 200 levels"),
        "{err}"
    );
}

/// Nothing passes between calls: top-level code runs afresh each call,
/// writes to the object a script received never reach the caller, and
/// concurrent runs of one script on several states do not see each other.
#[test]
fn nothing_passes_between_calls_or_concurrent_runs() {
    let script = r#"
      calls = (calls or 0) + 1
      local seen = 0
      function InterpretHealth(obj)
        seen = seen + 1
        obj.status.ready = false
        obj.metadata = nil
        string.mark = (string.mark or 0) + 1
        return calls == 1 and seen == 1 and string.mark == 1 and obj.status.ready == false
      end
    "#;
    let layer = layer(script, LIMITS);
    let obj = object("Hostile");
    for _ in 0..5 {
        assert_eq!(
            layer
                .interpret(&Request::InterpretHealth { object: &obj })
                .unwrap(),
            Outcome::Healthy(true)
        );
    }
    assert_eq!(obj, object("Hostile"), "the caller's object changed");
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    (0..25)
                        .map(|_| health(&layer, "Hostile").unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for run in runs {
            assert!(run
                .join()
                .unwrap()
                .iter()
                .all(|o| *o == Outcome::Healthy(true)));
        }
    });
}

/// The library surface is exactly the catalogue the engine exports (and the
/// linter uses): every provided name is there and runs, every refused name
/// is there and refuses, every absent name is absent, and a live state
/// holds no other name.
#[test]
fn library_surface_matches_the_catalogue() {
    use karmada_interpreter::declarative::catalogue::{ABSENT, LIBRARIES, PROVIDED, REFUSED};
    // `string.rep` → `string["rep"]`
    let lookup = |name: &str| match name.split_once('.') {
        Some((table, member)) => format!("{table}[{member:?}]"),
        None => name.to_owned(),
    };
    let quoted = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut checks = String::new();
    for name in PROVIDED {
        checks.push_str(&format!(
            "assert({} ~= nil, 'missing {name}')\n",
            lookup(name)
        ));
        if !name.starts_with("package.")
            && !["_G", "_VERSION", "math.huge", "math.pi"].contains(name)
        {
            checks.push_str(&format!(
                "do local ok, e = pcall({}) assert(ok or not tostring(e):find('not supported', 1, true), '{name} refuses') end\n",
                lookup(name)
            ));
        }
    }
    for name in ABSENT {
        let absent = match name.split_once('.') {
            Some((table, _)) => format!("{table} == nil or {} == nil", lookup(name)),
            None => format!("{name} == nil"),
        };
        checks.push_str(&format!("assert({absent}, 'present {name}')\n"));
    }
    for name in REFUSED {
        checks.push_str(&format!(
            "do local ok, e = pcall({}) assert(not ok and tostring(e):find('not supported', 1, true), '{name} ran: ' .. tostring(e)) end\n",
            lookup(name)
        ));
    }
    // Every name of the live environment is in the catalogue.
    checks.push_str(&format!(
        "local known = {{}}\n\
         for _, n in ipairs({{{}}}) do known[n] = true end\n\
         local libraries = {{{}}}\n\
         for k, v in pairs(_G) do\n\
           if k ~= 'InterpretHealth' then\n\
             local lib = false\n\
             for _, l in ipairs(libraries) do if l == k then lib = true end end\n\
             if lib then\n\
               for f in pairs(v) do assert(known[k .. '.' .. f], 'not in the catalogue: ' .. k .. '.' .. f) end\n\
             else\n\
               assert(known[k], 'not in the catalogue: ' .. tostring(k))\n\
             end\n\
           end\n\
         end\n",
        quoted(&[PROVIDED, REFUSED].concat()),
        quoted(LIBRARIES)
    ));
    let layer = layer(&wrap(&checks), LIMITS);
    assert_eq!(
        health(&layer, "Hostile").unwrap_or_else(|e| panic!("{e}")),
        Outcome::Healthy(true)
    );
}

/// The docs list the same surface: every provided and refused name appears
/// in `docs/lua-environment.md`.
#[test]
fn the_environment_doc_lists_the_catalogue() {
    use karmada_interpreter::declarative::catalogue::{PROVIDED, REFUSED};
    let doc = std::fs::read_to_string(
        std::path::Path::new(crate::support::ROOT).join("docs/lua-environment.md"),
    )
    .expect("docs/lua-environment.md");
    let missing: Vec<&&str> = PROVIDED
        .iter()
        .chain(REFUSED)
        .filter(|name| !doc.contains(*name))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/lua-environment.md does not mention {missing:?}"
    );
}
