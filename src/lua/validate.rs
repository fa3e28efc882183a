//! Admission validation of customizations (`lua-environment.md` §1.4) and the
//! per-rule compile check used by `karmada-interpreter check` (§9).

use crate::api::{InterpreterOperation, ResourceInterpreterCustomization};

use super::engine::compile_check;

/// Why a customization is denied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Denial {
    /// Another customization for the same target already defines a rule.
    #[error("conflicting with InterpreterOperation({operation}) of existing ResourceInterpreterCustomization({existing})")]
    Conflict {
        /// The rule defined twice.
        operation: InterpreterOperation,
        /// Name of the existing customization.
        existing: String,
    },
    /// A script does not compile.
    #[error("InterpreterOperation({operation}) Lua script error: {message}")]
    Compile {
        /// The rule.
        operation: InterpreterOperation,
        /// The compiler message.
        message: String,
    },
}

/// Validates `incoming` against the `existing` customizations, as the
/// validating admission webhook does: conflicts first (every rule except
/// `InterpretDependency`, existing customizations in list order), then a
/// compile check of every non-empty script in canonical rule order.
pub fn admit(
    incoming: &ResourceInterpreterCustomization,
    existing: &[ResourceInterpreterCustomization],
) -> Result<(), Denial> {
    for other in existing {
        if other.name() == incoming.name()
            || other.spec.target.api_version != incoming.spec.target.api_version
            || other.spec.target.kind != incoming.spec.target.kind
        {
            continue;
        }
        for op in InterpreterOperation::ALL {
            if op == InterpreterOperation::InterpretDependency {
                continue;
            }
            if incoming.script(op).is_some() && other.script(op).is_some() {
                return Err(Denial::Conflict {
                    operation: op,
                    existing: other.name().to_owned(),
                });
            }
        }
    }
    for op in InterpreterOperation::ALL {
        if let Some(script) = incoming.script(op) {
            compile_check(script).map_err(|message| Denial::Compile {
                operation: op,
                message,
            })?;
        }
    }
    Ok(())
}

/// The check status of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleStatus {
    /// No script (or an empty one).
    Unset,
    /// The script compiles and defines its entry function at top level.
    Pass,
    /// The script compiles but never assigns the entry function's global.
    MissingFunction,
    /// The script does not compile.
    Error(String),
}

/// Checks every rule of a customization, in canonical order: compile status
/// and whether the entry function is defined.
pub fn check_rules(c: &ResourceInterpreterCustomization) -> Vec<(InterpreterOperation, RuleStatus)> {
    InterpreterOperation::ALL
        .iter()
        .map(|&op| {
            let status = match c.script(op) {
                None => RuleStatus::Unset,
                Some(script) => match compile_check(script) {
                    Err(m) => RuleStatus::Error(m.trim().to_owned()),
                    Ok(()) if defines_function(script, op.lua_function()) => RuleStatus::Pass,
                    Ok(()) => RuleStatus::MissingFunction,
                },
            };
            (op, status)
        })
        .collect()
}

/// Whether the text assigns the global `name` as a function: `function
/// name(`, or `name = function`. A textual check (the script is not run).
pub fn defines_function(script: &str, name: &str) -> bool {
    let bytes = script.as_bytes();
    let mut start = 0;
    while let Some(pos) = script[start..].find(name) {
        let at = start + pos;
        let end = at + name.len();
        start = end;
        let before_ok = at == 0 || {
            let b = bytes[at - 1];
            !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b':')
        };
        let after_ok = bytes
            .get(end)
            .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
        if !before_ok || !after_ok {
            continue;
        }
        let prefix = script[..at].trim_end();
        let suffix = script[end..].trim_start();
        let local_fn = prefix.ends_with("local function");
        if prefix.ends_with("function") && !local_fn && suffix.starts_with('(') {
            return true;
        }
        if suffix.starts_with('=') && !suffix.starts_with("==") && !prefix.ends_with("local") {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_definitions() {
        assert!(defines_function("function GetReplicas(obj) end", "GetReplicas"));
        assert!(defines_function("GetReplicas = function(o) end", "GetReplicas"));
        assert!(!defines_function("local function GetReplicas(o) end", "GetReplicas"));
        assert!(!defines_function("function GetReplicasX(o) end", "GetReplicas"));
        assert!(!defines_function("if GetReplicas == nil then end", "GetReplicas"));
    }
}
