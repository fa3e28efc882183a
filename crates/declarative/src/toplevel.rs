//! Scripts whose top level is the whole program, as Argo CD writes its
//! `health.lua` checks: the input is a global, the answer is what the top
//! level returns. Same sandbox, limits and error kinds as Karmada's scripts.

use mlua::Value as LuaValue;
use serde_json::Value;

use super::convert::{from_lua, to_lua, type_name};
use super::engine::{Engine, Script};
use super::fault::{lua_message, ScriptError};

/// What a top-level script returned (its first result).
#[derive(Debug, Clone, PartialEq)]
pub enum TopLevelResult {
    /// `nil` (or nothing).
    Nil,
    /// A table, as JSON (an empty table is `[]`, as Argo CD's JSON bridge
    /// writes it).
    Table(Value),
    /// Anything else: the Lua type name.
    Other(&'static str),
}

/// Runs `script`'s top level on a pooled state of `engine` with the global
/// `global` set to `value` (converted as every object handed to Lua is).
pub fn run_top_level(
    engine: &Engine,
    script: &Script,
    global: &'static str,
    value: &Value,
) -> Result<TopLevelResult, ScriptError> {
    engine.with_vm(|vm, timeout| {
        let lua = vm.lua().clone();
        let arg = to_lua(&lua, value).map_err(|e| ScriptError::Runtime(lua_message(&e)))?;
        let results = vm.call_top(script, global, arg, timeout)?;
        match results.into_iter().next().unwrap_or(LuaValue::Nil) {
            LuaValue::Nil => Ok(TopLevelResult::Nil),
            table @ LuaValue::Table(_) => from_lua(&lua, &table)
                .map(TopLevelResult::Table)
                .map_err(|m| {
                    ScriptError::Runtime(format!("encode lua result to json failed: {m}"))
                }),
            other => Ok(TopLevelResult::Other(type_name(&other))),
        }
    })
}
