//! The bundled customizations never raise a Lua runtime error on an object
//! the API server could store: every input of the project's own bundled
//! golden cases (`thirdparty/*/testdata`), for every bundled (kind,
//! operation), is mutated deterministically — each field removed, set to
//! null, emptied, and given another JSON type (which a structural schema
//! refuses, but an object without a schema or an old stored object may carry)
//! — and the bundled layer must answer or fail with an error of the script's
//! own (naming what is wrong), never with "attempt to index a nil value" and
//! the like.

use std::path::Path;

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::thirdparty;
use karmada_interpreter_golden::{load_cases, GoldenCase};
use serde_json::{json, Value};

/// Texts of the Lua VM's and the standard library's own runtime errors (a
/// script bug, not an answer), in both PUC Lua's forms and gopher-lua's
/// (Karmada's engine): `attempt to index field 'x' (a nil value)` and
/// `attempt to index a non-table object(nil) with key 'x'`, `attempt to
/// perform arithmetic on ...` and `cannot perform add operation between ...`,
/// `attempt to get length of ...` and `__len undefined`, and so on. A script's
/// own `error("spec.replicas must be a number, got string")` matches none.
const RUNTIME_ERRORS: [&str; 18] = [
    "attempt to index",
    "attempt to call",
    "attempt to perform arithmetic",
    "attempt to compare",
    "attempt to concatenate",
    "attempt to get length",
    "__len undefined",
    "__unm undefined",
    "cannot perform ",
    "bad argument",
    "table index is nil",
    "table index is NaN",
    "'for' initial value must be a number",
    "'for' limit must be a number",
    "'for' step must be a number",
    "for statement ",
    "invalid key to 'next'",
    "invalid value (at index",
];

/// Where a mutation is applied.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// The operation's object (both copies for Retain).
    Object,
    /// The first member's reflected status (AggregateStatus).
    MemberStatus,
    /// The status item list itself (AggregateStatus): removed (`nil` in
    /// Lua), emptied, or its first item's status null or a string.
    ItemList,
}

#[derive(Clone, Copy, Debug)]
enum Mutation {
    Remove,
    Null,
    Empty,
    /// The field given a value of another JSON type: the `n`th of
    /// [`retyped`]'s replacements for the field's current value.
    Retype(usize),
}

const MUTATIONS: [Mutation; 9] = [
    Mutation::Remove,
    Mutation::Null,
    Mutation::Empty,
    Mutation::Retype(0),
    Mutation::Retype(1),
    Mutation::Retype(2),
    Mutation::Retype(3),
    Mutation::Retype(4),
    Mutation::Retype(5),
];

/// Values of every other JSON type for a value (with `null` from
/// [`Mutation::Null`] and the empty value of its own type from
/// [`Mutation::Empty`], every JSON type reaches every path): an object
/// becomes a text, a number, a boolean or a list; a list an object, a text,
/// a number or a boolean; a text a number, `false`, an object (a label or
/// annotation value that is not a string) or a list; a number a text, a
/// numeric text, `false` (what `x or 0` lets through), an integral float
/// beyond the integer range, an object or a list; a boolean a text, a number,
/// an object or a list. For the status item list, `Retype(1)` adds a `null`
/// item (Go's zero item).
fn retyped(value: &Value, path: &[Value]) -> Vec<Value> {
    match value {
        Value::Object(_) if path == [json!("metadata")] => {
            vec![json!("text"), json!(1.5), json!(true), json!(["text"])]
        }
        Value::Object(_) => vec![
            json!("text"),
            json!(7),
            json!(true),
            json!([{"key": "text"}]),
        ],
        Value::Array(_) => vec![json!({"key": "text"}), json!("text"), json!(7), json!(true)],
        Value::String(_) => vec![
            json!(1),
            json!(false),
            json!({"key": "text"}),
            json!(["text"]),
        ],
        Value::Number(_) => vec![
            json!("text"),
            json!(false),
            json!(1e20),
            json!("7"),
            json!({"key": 1}),
            json!([1]),
        ],
        Value::Bool(_) => vec![json!("text"), json!(1), json!({}), json!(["text"])],
        Value::Null => vec![],
    }
}

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

/// The object with `mutation` applied at `path`, or `None` when the mutation
/// does not apply there (no second replacement for that JSON type).
fn mutated(object: &Value, path: &[Value], mutation: Mutation) -> Option<Value> {
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
                return Some(out);
            }
            m.get_mut(k)
        }
        (Value::Number(i), Value::Array(a)) => {
            let i = i.as_u64().unwrap_or(0) as usize;
            if let Mutation::Remove = mutation {
                if i < a.len() {
                    a.remove(i);
                }
                return Some(out);
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
            Mutation::Retype(n) => retyped(slot, path).get(n)?.clone(),
            Mutation::Remove => unreachable!("handled above"),
        };
    }
    Some(out)
}

/// The value at `path` below `root`.
fn value_at<'a>(root: &'a Value, path: &[Value]) -> Option<&'a Value> {
    path.iter().try_fold(root, |cur, step| match step {
        Value::String(k) => cur.get(k.as_str()),
        _ => cur.get(usize::try_from(step.as_u64()?).ok()?),
    })
}

fn seeds() -> Vec<GoldenCase> {
    let root = Path::new(crate::support::ROOT).join("thirdparty");
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
        // Keyed by apiVersion too: a kind bundled at two versions (Flux's) is
        // mutated at each.
        let kind = format!(
            "{} {}",
            primary["apiVersion"].as_str().unwrap_or(""),
            primary["kind"].as_str().unwrap_or("")
        );
        covered.insert((kind.clone(), case.operation));
        // Paths in the object, and for AggregateStatus in the first member's
        // reflected status too (what `x or 0` and `#s` read there).
        let mut all = Vec::new();
        paths(&primary, &mut Vec::new(), &mut all);
        let mut all: Vec<(Target, Vec<Value>)> =
            all.into_iter().map(|p| (Target::Object, p)).collect();
        let item_status = case
            .status_items
            .as_ref()
            .and_then(|items| items.first())
            .and_then(|item| item.status.clone());
        if let Some(status) = &item_status {
            let mut in_status = Vec::new();
            paths(status, &mut Vec::new(), &mut in_status);
            all.extend(in_status.into_iter().map(|p| (Target::MemberStatus, p)));
        }
        if case.status_items.is_some() {
            all.push((Target::ItemList, Vec::new()));
        }
        for (target, path) in &all {
            for mutation in MUTATIONS {
                // One run per (kind, operation, path, mutation): cases of the
                // same kind share most of their fields.
                if !tried.insert(format!(
                    "{kind} {} {target:?} {path:?} {mutation:?}",
                    case.operation
                )) {
                    continue;
                }
                let mut variant = case.clone();
                match (target, &item_status) {
                    (Target::Object, _) => {
                        let Some(object) = mutated(&primary, path, mutation) else {
                            continue;
                        };
                        match case.operation {
                            // Retain also gets the mutated object as the
                            // member's copy.
                            Op::Retain => {
                                variant.desired = Some(object.clone());
                                variant.observed = Some(object);
                            }
                            _ if case.desired.is_some() => variant.desired = Some(object),
                            _ => variant.observed = Some(object),
                        }
                    }
                    (Target::MemberStatus, Some(status)) => {
                        let Some(status) = mutated(status, path, mutation) else {
                            continue;
                        };
                        if let Some(item) =
                            variant.status_items.as_mut().and_then(|i| i.first_mut())
                        {
                            item.status = Some(status);
                        }
                    }
                    (Target::MemberStatus, None) => continue,
                    (Target::ItemList, _) => match mutation {
                        Mutation::Remove => variant.status_items = None,
                        Mutation::Empty => variant.status_items = Some(Vec::new()),
                        Mutation::Null | Mutation::Retype(0) => {
                            let Some(item) =
                                variant.status_items.as_mut().and_then(|i| i.first_mut())
                            else {
                                continue;
                            };
                            item.status = match mutation {
                                Mutation::Null => None,
                                _ => Some(json!("text")),
                            };
                        }
                        Mutation::Retype(1) => {
                            // A `null` item: Go's decoding makes it the zero item.
                            let item: karmada_interpreter::api::AggregatedStatusItem =
                                serde_json::from_value(Value::Null).expect("null is an item");
                            variant
                                .status_items
                                .get_or_insert_with(Vec::new)
                                .insert(0, item);
                        }
                        Mutation::Retype(_) => continue,
                    },
                }
                let Ok(request) = variant.request() else {
                    continue;
                };
                runs += 1;
                // An object given a number or a boolean fails where the script
                // reads a field of it, as Karmada's scripts fail there, with
                // the engine's error naming the key (not yet a message of the
                // script's own naming the field's path).
                let original = match target {
                    Target::Object => value_at(&primary, path),
                    Target::MemberStatus => item_status.as_ref().and_then(|s| value_at(s, path)),
                    Target::ItemList => None,
                };
                let scalar_for_object = original.is_some_and(Value::is_object)
                    && matches!(mutation, Mutation::Retype(1) | Mutation::Retype(2));
                if let Err(e) = layer.interpret(&request) {
                    let message = e.to_string();
                    let indexed_scalar = scalar_for_object
                        && (message
                            .contains("attempt to index a non-table object(number) with key '")
                            || message.contains(
                                "attempt to index a non-table object(boolean) with key '",
                            ));
                    if runtime_error(&message) && !indexed_scalar {
                        failures.push(format!(
                            "{kind} {} with {target:?} {path:?} {mutation:?}: {message}",
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
    eprintln!("{runs} runs over {} (kind, operation) pairs", covered.len());
    assert!(
        failures.is_empty(),
        "{} runtime errors in {runs} runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_classifier_tells_lua_runtime_errors_from_the_scripts_own_errors() {
    for lua in [
        "<string>:3: attempt to index field 'metadata' (a nil value)",
        "<string>:3: attempt to index a non-table object(nil) with key 'metadata'",
        "<string>:5: attempt to perform arithmetic on field '?' (a string value)",
        "<string>:5: cannot perform add operation between number and string",
        "<string>:6: cannot perform concat operation between string and nil",
        "<string>:7: attempt to get length of local 's' (a boolean value)",
        "<string>:7: __len undefined",
        "<string>:9: bad argument #1 to 'ipairs' (table expected, got string)",
        "<string>:9: attempt to compare number with string",
        "<string>:2: attempt to call a non-function object",
        "<string>:4: 'for' initial value must be a number",
        "<string>:4: for statement init must be a number",
    ] {
        assert!(runtime_error(lua), "{lua}");
    }
    for own in [
        "status.replicas of cluster member1 must be a number, got string",
        "spec.template must be an object, got string",
        "status.rulecount.generate of cluster member1 is required: Kyverno reports every counter",
        "statusItems are required: a SidecarSet's status is summed over its members",
    ] {
        assert!(!runtime_error(own), "{own}");
    }
}
