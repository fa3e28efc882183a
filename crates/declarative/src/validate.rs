//! Admission validation of customizations and the
//! per-rule compile check used by `karmada-interpreter check`.

use karmada_interpreter_core::api::{InterpreterOperation, ResourceInterpreterCustomization};

use super::engine::{compile_check, defines_function, Limits};

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
    if let Some(denial) = conflict(incoming, existing, false) {
        return Err(denial);
    }
    for op in InterpreterOperation::ALL {
        if let Some(script) = incoming.script(op) {
            compile_check(script).map_err(|e| Denial::Compile {
                operation: op,
                message: e.message().to_owned(),
            })?;
        }
    }
    Ok(())
}

/// The first rule of `incoming` that another of the `existing`
/// customizations (same target, another name) defines too (every rule
/// except `InterpretDependency`, existing customizations in list order):
/// Karmada would run only one of them. With `composition` on, the editing
/// rules are no conflict either (they compose, `docs/composition.md`).
pub fn conflict(
    incoming: &ResourceInterpreterCustomization,
    existing: &[ResourceInterpreterCustomization],
    composition: bool,
) -> Option<Denial> {
    for other in existing {
        if other.name() == incoming.name()
            || other.spec.target.api_version != incoming.spec.target.api_version
            || other.spec.target.kind != incoming.spec.target.kind
        {
            continue;
        }
        for op in InterpreterOperation::ALL {
            if op == InterpreterOperation::InterpretDependency || (composition && op.is_edit()) {
                continue;
            }
            if incoming.script(op).is_some() && other.script(op).is_some() {
                return Some(Denial::Conflict {
                    operation: op,
                    existing: other.name().to_owned(),
                });
            }
        }
    }
    None
}

/// The check status of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleStatus {
    /// No script (or an empty one).
    Unset,
    /// The script compiles and its top-level code defines the entry function.
    Pass,
    /// The script compiles but its top-level code leaves no global function
    /// of the entry point's name.
    MissingFunction,
    /// The script does not compile.
    Error(String),
    /// The script compiles but its top-level code fails (every call would).
    TopLevelError(String),
}

/// Checks every rule of a customization, in canonical order: compile status
/// and whether the entry function is defined (the top-level code is run in
/// the sandbox, with the default limits, to find out).
pub fn check_rules(
    c: &ResourceInterpreterCustomization,
) -> Vec<(InterpreterOperation, RuleStatus)> {
    InterpreterOperation::ALL
        .iter()
        .map(|&op| {
            let status = match c.script(op) {
                None => RuleStatus::Unset,
                Some(script) => match compile_check(script) {
                    Err(e) => RuleStatus::Error(e.message().trim().to_owned()),
                    Ok(()) => {
                        match defines_function(script, op.lua_function(), Limits::default()) {
                            Ok(true) => RuleStatus::Pass,
                            Ok(false) => RuleStatus::MissingFunction,
                            Err(e) => RuleStatus::TopLevelError(e.message().trim().to_owned()),
                        }
                    }
                },
            };
            (op, status)
        })
        .collect()
}
