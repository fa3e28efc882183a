//! A standalone CEL expression over named JSON values, on the same CEL as
//! the health rules ([`crate::cel`]: the `cel` crate with kube-cel's
//! Kubernetes functions, optional syntax, the same limits): the golden
//! cases' `assert` expressions (`output.replica == 3`).
//!
//! ```
//! use karmada_interpreter_health::cel_expression::Expression;
//! use serde_json::json;
//!
//! let e = Expression::compile("output.replica == 3 && object.kind == 'Deployment'").unwrap();
//! let vars = json!({"output": {"replica": 2}, "object": {"kind": "Deployment"}});
//! assert_eq!(e.evaluate(vars.as_object().unwrap()).unwrap(), json!(false));
//! // What a failure shows: the fields the expression reads, with their values.
//! assert_eq!(e.selections(), ["output.replica", "object.kind"]);
//! ```

use kube_cel::cel;
use kube_cel::KubeCelExt;
use serde_json::{Map, Value};

use crate::cel::{
    compile_expression, optional_select, to_cel, Compiled, Failure, EVAL_RED_ZONE_BYTES,
    EVAL_STACK_BYTES, OPTIONAL_SELECT,
};

/// Why an expression does not compile or evaluate.
#[derive(Debug, thiserror::Error)]
pub enum ExpressionError {
    /// The expression does not parse (or is too long or too deep).
    #[error("`{expression}` {message}")]
    Compile {
        /// Its text.
        expression: String,
        /// The parser's message.
        message: String,
    },
    /// It calls functions or macros the `cel` crate does not provide.
    #[error("`{expression}`: the cel crate has no function or macro {}",
            functions.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", "))]
    Missing {
        /// Its text.
        expression: String,
        /// The functions or macros missing, sorted.
        functions: Vec<String>,
    },
    /// It failed on the values given (a missing field or variable, a
    /// function refusing its arguments).
    #[error("`{expression}` fails: {message}")]
    Eval {
        /// Its text.
        expression: String,
        /// What went wrong.
        message: String,
    },
}

/// A compiled expression and the functions it may call.
pub struct Expression {
    compiled: Compiled,
    context: cel::Context<'static>,
}

impl std::fmt::Debug for Expression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Expression")
            .field(&self.compiled.text)
            .finish()
    }
}

impl Expression {
    /// Compiles `text`: it parses, and every function it calls exists.
    pub fn compile(text: &str) -> Result<Self, ExpressionError> {
        let mut context = cel::Context::default().with_all();
        context.add_function(OPTIONAL_SELECT, optional_select);
        let compiled = compile_expression(text, &context).map_err(|failure| match failure {
            Failure::Parse(message, _) => ExpressionError::Compile {
                expression: text.to_owned(),
                message,
            },
            Failure::Missing(functions) => ExpressionError::Missing {
                expression: text.to_owned(),
                functions,
            },
        })?;
        Ok(Self { compiled, context })
    }

    /// The expression's text.
    pub fn text(&self) -> &str {
        &self.compiled.text
    }

    /// Its value with `variables` (name → JSON value) in scope, as JSON
    /// (integers stay integers). A variable the expression reads that is
    /// not given is an error naming the variables given.
    pub fn evaluate(&self, variables: &Map<String, Value>) -> Result<Value, ExpressionError> {
        let error = |message: String| ExpressionError::Eval {
            expression: self.compiled.text.clone(),
            message,
        };
        let mut scope = self.context.new_inner_scope();
        for name in &self.compiled.variables {
            if let Some(value) = variables.get(name) {
                scope.add_variable_from_value(name.as_str(), to_cel(value));
            }
        }
        let result = stacker::maybe_grow(EVAL_RED_ZONE_BYTES, EVAL_STACK_BYTES, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                scope.resolve(&self.compiled.expression)
            }))
        })
        .map_err(|_| error("the CEL interpreter failed (panicked) on these values".into()))?;
        match result {
            Ok(value) => Ok(to_json(&value)),
            Err(cel::ExecutionError::UndeclaredReference(name))
                if self.compiled.variables.iter().any(|v| **v == *name) =>
            {
                Err(error(format!(
                    "no variable `{name}` (there are: {})",
                    variables
                        .keys()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
            Err(e) => Err(error(e.to_string())),
        }
    }

    /// The fields the expression reads, as `variable.field.field` (bare
    /// variables too), in the order written, each once: what a failure
    /// shows with their values. Fields of a comprehension's own variables
    /// are left out.
    pub fn selections(&self) -> Vec<String> {
        let mut out = Vec::new();
        selections(&self.compiled.expression, &mut out);
        out
    }
}

/// Collects the select chains rooted at an identifier (`a.b.c`), outermost
/// first.
fn selections(expression: &cel::parser::Expression, out: &mut Vec<String>) {
    use cel::common::ast::{EntryExpr, Expr};
    let mut push = |text: String| {
        if !out.contains(&text) {
            out.push(text);
        }
    };
    match &expression.expr {
        Expr::Ident(name) => push(name.clone()),
        Expr::Select(select) => match chain(expression) {
            Some(text) => push(text),
            None => selections(&select.operand, out),
        },
        Expr::Call(call) => {
            if let Some(target) = &call.target {
                selections(target, out);
            }
            for arg in &call.args {
                selections(arg, out);
            }
        }
        // Only the range: the rest reads the comprehension's own variables.
        Expr::Comprehension(c) => selections(&c.iter_range, out),
        Expr::List(list) => list.elements.iter().for_each(|e| selections(e, out)),
        Expr::Map(map) => {
            for entry in &map.entries {
                if let EntryExpr::MapEntry(e) = &entry.expr {
                    selections(&e.key, out);
                    selections(&e.value, out);
                }
            }
        }
        Expr::Struct(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// `a.b.c` for a select chain rooted at an identifier (no `.?`, no
/// `has()`), else `None`.
fn chain(expression: &cel::parser::Expression) -> Option<String> {
    use cel::common::ast::Expr;
    match &expression.expr {
        Expr::Ident(name) => Some(name.clone()),
        Expr::Select(select) if !select.test => {
            Some(format!("{}.{}", chain(&select.operand)?, select.field))
        }
        _ => None,
    }
}

/// A CEL value as JSON: lists and maps as JSON arrays and objects, other
/// values as their CEL text.
fn to_json(value: &cel::Value) -> Value {
    use cel::objects::Key;
    match value {
        cel::Value::Null => Value::Null,
        cel::Value::Bool(b) => Value::Bool(*b),
        cel::Value::Int(i) => Value::from(*i),
        cel::Value::UInt(u) => Value::from(*u),
        cel::Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        cel::Value::String(s) => Value::String(s.to_string()),
        cel::Value::List(items) => Value::Array(items.iter().map(to_json).collect()),
        cel::Value::Map(map) => Value::Object(
            map.map
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Key::String(s) => s.to_string(),
                        Key::Int(i) => i.to_string(),
                        Key::Uint(u) => u.to_string(),
                        Key::Bool(b) => b.to_string(),
                    };
                    (key, to_json(v))
                })
                .collect(),
        ),
        other => Value::String(format!("{other:?}")),
    }
}

/// The type name CEL gives `value` (for "not a boolean" messages).
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "double",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "map",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn evaluates_over_json_values() {
        let e = Expression::compile(
            "size(output.dependencies) == 2 && output.dependencies.all(d, d.kind == 'ConfigMap')",
        )
        .unwrap();
        let v = vars(
            json!({"output": {"dependencies": [{"kind": "ConfigMap"}, {"kind": "ConfigMap"}]}}),
        );
        assert_eq!(e.evaluate(&v).unwrap(), json!(true));
        assert_eq!(e.selections(), ["output.dependencies"]);
        let e = Expression::compile("output.status").unwrap();
        let v = vars(json!({"output": {"status": {"readyReplicas": 2, "phase": "Running"}}}));
        assert_eq!(
            e.evaluate(&v).unwrap(),
            json!({"readyReplicas": 2, "phase": "Running"})
        );
        // Optional syntax and kube-cel's functions, as in health rules.
        let e = Expression::compile("output.?missing.orValue('none') == 'none' && quantity('1Gi').isGreaterThan(quantity('1Mi'))").unwrap();
        assert_eq!(
            e.evaluate(&vars(json!({"output": {}}))).unwrap(),
            json!(true)
        );
    }

    #[test]
    fn errors_name_the_expression_and_what_is_wrong() {
        let err = Expression::compile("output.replica ==").unwrap_err();
        assert!(matches!(err, ExpressionError::Compile { .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("`output.replica ==` does not parse"),
            "{err}"
        );
        let err = Expression::compile("nosuch(output)").unwrap_err();
        assert!(
            err.to_string().contains("no function or macro `nosuch`"),
            "{err}"
        );
        let e = Expression::compile("outptu.replica == 1").unwrap();
        let err = e
            .evaluate(&vars(json!({"output": {}, "object": {}})))
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("no variable `outptu` (there are: `")
                && err.to_string().contains("`output`"),
            "{err}"
        );
        let e = Expression::compile("output.replica == 1").unwrap();
        let err = e.evaluate(&vars(json!({"output": {}}))).unwrap_err();
        assert!(matches!(err, ExpressionError::Eval { .. }), "{err}");
    }
}
