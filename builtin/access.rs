//! Raw access to fields of an object held as JSON (`native-builtins.md` §1.3).
//!
//! Getters walk a path of object keys. A missing key or a `null`
//! intermediate value means "absent" (`Ok(None)`); an intermediate value that
//! is present but not an object is an error. The leaf must have the getter's
//! type exactly (`null` included: a `null` leaf is an error for every getter
//! but [`get_any`]). Errors are [`Error::InvalidField`] naming the object
//! (`Kind namespace/name`) and the dotted path.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::interpreter::describe;

/// An [`Error::InvalidField`] for `field` of `object`.
pub(crate) fn invalid(object: &Value, field: &str, reason: impl Into<String>) -> Error {
    Error::InvalidField {
        object: describe(object),
        field: field.to_owned(),
        reason: reason.into(),
    }
}

/// The JSON type name of a value, for messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() => "integer",
        Value::Number(_) => "float",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn dotted(path: &[&str]) -> String {
    path.join(".")
}

/// The leaf at `path` under `root` (the object itself when `path` is empty),
/// or `None` when a key is missing or an intermediate value is `null`.
///
/// `object` is the whole object, used only to name it in errors.
pub(crate) fn get_any<'a>(
    object: &Value,
    root: &'a Value,
    path: &[&str],
) -> Result<Option<&'a Value>> {
    let mut current = root;
    for (i, key) in path.iter().enumerate() {
        match current {
            Value::Object(map) => match map.get(*key) {
                Some(next) => current = next,
                None => return Ok(None),
            },
            // Only intermediate nulls mean "absent": the root is never null here
            // unless the caller passed one, which we treat the same way.
            Value::Null => return Ok(None),
            other => {
                return Err(invalid(
                    object,
                    &dotted(&path[..i]),
                    format!("expected an object, got {}", type_name(other)),
                ))
            }
        }
    }
    Ok(Some(current))
}

/// A string leaf.
pub(crate) fn get_str<'a>(object: &'a Value, path: &[&str]) -> Result<Option<&'a str>> {
    match get_any(object, object, path)? {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(invalid(
            object,
            &dotted(path),
            format!("expected a string, got {}", type_name(other)),
        )),
    }
}

/// An integer leaf (a JSON number without fraction or exponent that fits in
/// 64 bits; `3.0` is not an integer here).
pub(crate) fn get_int(object: &Value, path: &[&str]) -> Result<Option<i64>> {
    match get_any(object, object, path)? {
        None => Ok(None),
        Some(Value::Number(n)) if n.is_i64() => Ok(n.as_i64()),
        Some(other) => Err(invalid(
            object,
            &dotted(path),
            format!("expected an integer, got {}", type_name(other)),
        )),
    }
}

/// A string-map leaf: an object whose values are all strings.
pub(crate) fn get_string_map<'a>(
    object: &'a Value,
    path: &[&str],
) -> Result<Option<&'a Map<String, Value>>> {
    match get_any(object, object, path)? {
        None => Ok(None),
        Some(Value::Object(map)) => {
            if let Some((key, value)) = map.iter().find(|(_, v)| !v.is_string()) {
                return Err(invalid(
                    object,
                    &format!("{}.{key}", dotted(path)),
                    format!("expected a string, got {}", type_name(value)),
                ));
            }
            Ok(Some(map))
        }
        Some(other) => Err(invalid(
            object,
            &dotted(path),
            format!("expected a map of strings, got {}", type_name(other)),
        )),
    }
}

/// A list leaf.
pub(crate) fn get_list<'a>(object: &'a Value, path: &[&str]) -> Result<Option<&'a Vec<Value>>> {
    match get_any(object, object, path)? {
        None => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(invalid(
            object,
            &dotted(path),
            format!("expected a list, got {}", type_name(other)),
        )),
    }
}

/// Writes `value` at `path` (non-empty), creating missing intermediate
/// objects. An intermediate value that exists but is not an object
/// (including `null`) is an error; the object is then left unchanged.
pub(crate) fn set(object: &mut Value, path: &[&str], value: Value) -> Result<()> {
    let Some((leaf, parents)) = path.split_last() else {
        return Err(invalid(object, "", "cannot replace the whole object"));
    };
    // Check the existing part of the path first, so a failed write changes nothing.
    let mut current: &Value = object;
    for (i, key) in parents.iter().enumerate() {
        match current {
            Value::Object(map) => match map.get(*key) {
                Some(next) => current = next,
                None => break,
            },
            other => {
                let reason = format!("expected an object, got {}", type_name(other));
                return Err(invalid(object, &dotted(&path[..i]), reason));
            }
        }
    }
    // The loop stops at an object (missing key) or at the last parent.
    if !current.is_object() {
        let reason = format!("expected an object, got {}", type_name(current));
        return Err(invalid(object, &dotted(parents), reason));
    }
    let mut map = match object {
        Value::Object(map) => map,
        other => {
            let reason = format!("expected an object, got {}", type_name(other));
            return Err(invalid(other, "", reason));
        }
    };
    for key in parents {
        let next = map
            .entry((*key).to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        map = match next {
            Value::Object(m) => m,
            // Ruled out by the check above.
            _ => return Ok(()),
        };
    }
    map.insert((*leaf).to_owned(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn walking_distinguishes_absent_null_and_wrong_types() {
        let obj =
            json!({"kind": "X", "spec": {"a": null, "s": "x", "n": 2, "f": 2.0, "l": []}, "t": 3});
        assert_eq!(get_int(&obj, &["spec", "n"]).unwrap(), Some(2));
        assert!(get_int(&obj, &["spec", "f"]).is_err());
        assert!(get_int(&obj, &["spec", "a"]).is_err());
        assert_eq!(get_int(&obj, &["spec", "missing"]).unwrap(), None);
        assert_eq!(get_int(&obj, &["spec", "a", "deeper"]).unwrap(), None);
        assert!(get_int(&obj, &["t", "deeper"]).is_err());
        assert_eq!(get_str(&obj, &["spec", "s"]).unwrap(), Some("x"));
        assert!(get_str(&obj, &["spec", "n"]).is_err());
        assert!(get_list(&obj, &["spec", "l"]).unwrap().is_some());
        assert!(get_list(&obj, &["spec", "a"]).is_err());
        assert_eq!(
            get_any(&obj, &obj, &["spec", "a"]).unwrap(),
            Some(&Value::Null)
        );
    }

    #[test]
    fn string_maps_need_string_values() {
        let obj = json!({"kind": "X", "m": {"a": "1"}, "bad": {"a": 1}, "n": null});
        assert_eq!(get_string_map(&obj, &["m"]).unwrap().unwrap().len(), 1);
        let err = get_string_map(&obj, &["bad"]).unwrap_err().to_string();
        assert!(err.contains("bad.a"), "{err}");
        assert!(get_string_map(&obj, &["n"]).is_err());
    }

    #[test]
    fn setting_creates_objects_but_not_through_scalars_or_null() {
        let mut obj = json!({"kind": "X"});
        set(&mut obj, &["spec", "replicas"], json!(3)).unwrap();
        assert_eq!(obj, json!({"kind": "X", "spec": {"replicas": 3}}));
        let mut obj = json!({"kind": "X", "spec": null});
        assert!(set(&mut obj, &["spec", "replicas"], json!(3)).is_err());
        assert_eq!(obj, json!({"kind": "X", "spec": null}));
        let mut obj = json!({"kind": "X", "spec": {"a": 1}});
        assert!(set(&mut obj, &["spec", "a", "b"], json!(3)).is_err());
    }
}
