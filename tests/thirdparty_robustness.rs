//! The bundled customizations never raise a Lua runtime error on an object
//! the API server could store: every input of the project's own bundled
//! golden cases (`thirdparty/*/testdata`), for every bundled (kind,
//! operation), is mutated deterministically — each field removed, set to
//! null and emptied, the changes an API server stores for any schema — and
//! the bundled layer must answer or fail with an error of the script's own
//! (naming what is wrong), never with "attempt to index a non-table object" and the
//! like. (A field given another JSON type, which a structural schema refuses,
//! is not covered yet.)

use std::path::Path;

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::golden::{load_cases, GoldenCase};
use karmada_interpreter::thirdparty;
use serde_json::{json, Value};

/// Texts of the Lua VM's own runtime errors (a script bug, not an answer),
/// in gopher-lua's words as the engine writes them.
const RUNTIME_ERRORS: [&str; 9] = [
    "attempt to index",
    "attempt to call",
    "cannot perform",
    "attempt to compare",
    "__len undefined",
    "__unm undefined",
    "for statement",
    "bad argument",
    "table index is nil",
];

#[derive(Clone, Copy, Debug)]
enum Mutation {
    Remove,
    Null,
    Empty,
}

const MUTATIONS: [Mutation; 3] = [Mutation::Remove, Mutation::Null, Mutation::Empty];

/// How deep mutations go (`spec.template.spec.containers[0].resources`).
const MAX_DEPTH: usize = 6;

/// Paths of object members (and first list items) below the top level down
/// to [`MAX_DEPTH`], except the dispatch fields `apiVersion` and `kind`.
fn paths(value: &Value, prefix: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    if prefix.len() == MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                if prefix.is_empty() && (k == "apiVersion" || k == "kind") {
                    continue;
                }
                prefix.push(json!(k));
                out.push(prefix.clone());
                paths(v, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate().take(1) {
                prefix.push(json!(i));
                out.push(prefix.clone());
                paths(v, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn mutated(object: &Value, path: &[Value], mutation: Mutation) -> Value {
    let mut out = object.clone();
    let (last, parents) = path.split_last().expect("paths are not empty");
    let mut cur = &mut out;
    for step in parents {
        cur = match step {
            Value::String(k) => &mut cur[k.as_str()],
            _ => &mut cur[step.as_u64().unwrap_or(0) as usize],
        };
    }
    let slot = match (last, &mut *cur) {
        (Value::String(k), Value::Object(m)) => {
            if let Mutation::Remove = mutation {
                m.remove(k);
                return out;
            }
            m.get_mut(k)
        }
        (Value::Number(i), Value::Array(a)) => {
            let i = i.as_u64().unwrap_or(0) as usize;
            if let Mutation::Remove = mutation {
                if i < a.len() {
                    a.remove(i);
                }
                return out;
            }
            a.get_mut(i)
        }
        _ => None,
    };
    if let Some(slot) = slot {
        *slot = match mutation {
            Mutation::Null => Value::Null,
            Mutation::Empty => match slot {
                Value::Object(_) => json!({}),
                Value::Array(_) => json!([]),
                Value::String(_) => json!(""),
                Value::Number(_) => json!(0),
                _ => json!(false),
            },
            Mutation::Remove => unreachable!("handled above"),
        };
    }
    out
}

fn seeds() -> Vec<GoldenCase> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("thirdparty");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("thirdparty/ is readable") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml")
                && path.parent().is_some_and(|p| p.ends_with("testdata"))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .iter()
        .flat_map(|f| load_cases(f).into_iter().flatten())
        .filter(|c| !c.expect_error)
        .collect()
}

fn runtime_error(message: &str) -> bool {
    RUNTIME_ERRORS.iter().any(|e| message.contains(e))
}

#[test]
fn mutated_inputs_never_raise_lua_runtime_errors_in_bundled_scripts() {
    let layer = thirdparty::layer();
    let seeds = seeds();
    assert!(seeds.len() > 100, "found {} seed cases", seeds.len());
    let mut covered = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    let mut runs = 0usize;
    let mut tried = std::collections::HashSet::new();
    for case in &seeds {
        let primary = match case.operation {
            Op::Retain => case.desired.clone(),
            _ => case.desired.clone().or_else(|| case.observed.clone()),
        };
        let Some(primary) = primary else { continue };
        let kind = primary["kind"].as_str().unwrap_or("").to_owned();
        covered.insert((kind.clone(), case.operation));
        let mut all = Vec::new();
        paths(&primary, &mut Vec::new(), &mut all);
        for path in &all {
            for mutation in MUTATIONS {
                // One run per (kind, operation, path, mutation): cases of the
                // same kind share most of their fields.
                if !tried.insert(format!("{kind} {} {path:?} {mutation:?}", case.operation)) {
                    continue;
                }
                let object = mutated(&primary, path, mutation);
                let mut variant = case.clone();
                match case.operation {
                    Op::Retain => variant.desired = Some(object.clone()),
                    _ if case.desired.is_some() => variant.desired = Some(object.clone()),
                    _ => variant.observed = Some(object.clone()),
                }
                // Retain also gets the mutated object as the member's copy.
                if case.operation == Op::Retain {
                    variant.observed = Some(object.clone());
                }
                let Ok(request) = variant.request() else {
                    continue;
                };
                runs += 1;
                if let Err(e) = layer.interpret(&request) {
                    let message = e.to_string();
                    if runtime_error(&message) {
                        failures.push(format!(
                            "{kind} {} with {path:?} {mutation:?}: {message}",
                            case.operation
                        ));
                    }
                }
            }
        }
    }
    failures.sort();
    failures.dedup();
    assert!(runs > 500, "only {runs} runs");
    assert!(covered.len() > 50, "covered only {covered:?}");
    eprintln!("{runs} runs");
    assert!(
        failures.is_empty(),
        "{} runtime errors in {runs} runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
