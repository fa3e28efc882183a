//! Expression assertions of golden cases: `assert`, a list of CEL
//! expressions (the CEL of the health rules, feature `cel`) that must each
//! be true of the operation's answer.
//!
//! Each expression sees `output` (the operation's named results, as
//! `output` states them: `output.replica`, `output.aggregatedStatus.status`),
//! `object` (the object the operation ran on: `desiredObj`, else
//! `observedObj`), `desiredObj`, `observedObj`, `statusItems` and
//! `inputReplicas` (those the case gives). A failure names the assertion and
//! shows the fields it reads with their values:
//!
//! ```text
//! assert[0] `output.replica == 3` is false (output.replica = 2)
//! ```
//!
//! Without the feature, a case with `assert` does not load: an error says
//! the build lacks CEL, so no assertion ever passes unchecked.

use serde_json::{Map, Value};

/// Why `text` cannot be an assertion: it does not compile (feature `cel`),
/// or this build has no CEL.
pub(crate) fn check(text: &str) -> Result<(), String> {
    #[cfg(feature = "cel")]
    {
        karmada_interpreter::health::cel_expression::Expression::compile(text)
            .map(drop)
            .map_err(|e| e.to_string())
    }
    #[cfg(not(feature = "cel"))]
    {
        let _ = text;
        Err("`assert` holds CEL expressions, and this build has no CEL: build karmada-interpreter-golden with its cargo feature `cel` (the karmada-interpreter CLI has it)".into())
    }
}

/// One line per assertion that does not hold with `vars` in scope
/// (`GoldenCase::variables`).
#[cfg(feature = "cel")]
pub(crate) fn failures(assertions: &[String], vars: &Map<String, Value>) -> Vec<String> {
    use karmada_interpreter::health::cel_expression::{type_name, Expression};
    let mut out = Vec::new();
    for (i, text) in assertions.iter().enumerate() {
        let expression = match Expression::compile(text) {
            Ok(e) => e,
            Err(e) => {
                out.push(format!("assert[{i}] {e}"));
                continue;
            }
        };
        let shown = || {
            let values: Vec<String> = expression
                .selections()
                .into_iter()
                .filter_map(|path| {
                    // The longest part of the path that has a value
                    // (`output` when `output.replicas` is not there).
                    let mut path = path.as_str();
                    loop {
                        if let Some(value) = Expression::compile(path)
                            .ok()
                            .and_then(|e| e.evaluate(vars).ok())
                        {
                            return Some(format!("{path} = {value}"));
                        }
                        path = path.rsplit_once('.')?.0;
                    }
                })
                .collect();
            if values.is_empty() {
                String::new()
            } else {
                format!(" ({})", values.join(", "))
            }
        };
        match expression.evaluate(vars) {
            Ok(Value::Bool(true)) => {}
            Ok(Value::Bool(false)) => out.push(format!("assert[{i}] `{text}` is false{}", shown())),
            Ok(other) => out.push(format!(
                "assert[{i}] `{text}` is not a boolean: it gives {} {other}",
                type_name(&other)
            )),
            Err(e) => out.push(format!("assert[{i}] {e}{}", shown())),
        }
    }
    out
}

/// Without CEL no case with assertions loads ([`check`]); should one be
/// built by hand, every assertion fails rather than pass unchecked.
#[cfg(not(feature = "cel"))]
pub(crate) fn failures(assertions: &[String], _: &Map<String, Value>) -> Vec<String> {
    assertions
        .iter()
        .enumerate()
        .map(|(i, text)| {
            format!(
                "assert[{i}] `{text}`: {}",
                check(text).err().unwrap_or_default()
            )
        })
        .collect()
}
