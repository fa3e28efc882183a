//! The one JSON field-path reader of the crate, in three flavours:
//!
//! - **strict getters** ([`get_str`], [`get_int`], [`get_list`],
//!   [`get_string_map`], [`get_any`]) for objects nothing has checked yet,
//!   and the writer [`set`];
//! - **lenient readers of a checked object** ([`get`], [`int`], [`int32`],
//!   [`namespace`], [`generation`]): the object passed the typed-acceptance
//!   check (`normalize::check`), so a wrong type cannot occur and absent or
//!   `null` simply reads as `None`;
//! - **lenient readers of an optional node** (`at`, [`list`], [`text`],
//!   [`map`]) for walking into nested parts (a pod spec, a decoded status)
//!   one key at a time, on JSON values and decoded maps alike.
//!
//! Strict getters walk a path of object keys. A missing key or a `null`
//! intermediate value means "absent" (`Ok(None)`); an intermediate value that
//! is present but not an object is an error. The leaf must have the getter's
//! type exactly (`null` included: a `null` leaf is an error for every getter
//! but [`get_any`]). Errors are [`ObjectError::Field`] naming the object
//! (`Kind namespace/name`) and the dotted path.

use serde_json::{Map, Value};

use super::error::{ObjectError, Result};

/// The most members a map may have for [`member`] to scan it instead of
/// searching it: a B-tree leaf's worth (the maps of Kubernetes objects are
/// mostly this small).
const SCAN_MAX: usize = 11;

/// Whether two keys or names are equal: lengths first, then the bytes in
/// an inlined loop (they are short; a library `memcmp` call costs more than
/// the comparison).
#[inline]
pub fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// The member `key` of `map`: the same answer as `map.get(key)`, found
/// without ordering comparisons in small maps (a search compares `key`
/// with each smaller key byte by byte; a scan skips every key of another
/// length without reading it).
#[inline]
pub fn member<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() > SCAN_MAX {
        return map.get(key);
    }
    map.iter().find(|(k, _)| same_key(k, key)).map(|(_, v)| v)
}

/// [`member`] for writing: the same answer as `map.get_mut(key)`.
#[inline]
pub fn member_mut<'a>(map: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Value> {
    if map.len() > SCAN_MAX {
        return map.get_mut(key);
    }
    map.iter_mut()
        .find(|(k, _)| same_key(k, key))
        .map(|(_, v)| v)
}

/// The member `key` of `value` when it is an object ([`Value::get`] for a
/// key, found by [`member`]).
#[inline]
pub fn child<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => member(map, key),
        _ => None,
    }
}

/// An [`ObjectError::Field`] for `field` of `object`.
pub fn invalid(object: &Value, field: &str, reason: impl Into<String>) -> ObjectError {
    ObjectError::field(object, field, reason)
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

/// The 64-bit integer Go reads from Go's JSON text of the double `x`, the
/// one rule for an integral double in an integer field: Go writes a double
/// in its shortest decimal form (`1537228672809129200` for the double
/// nearest `1537228672809129216`, `-9223372036854776000` for -2^63) and
/// decoding reads that text as an integer or fails. `None` for a fraction,
/// NaN, an infinity, and a text beyond the 64-bit range (-2^63, 2^63 and
/// beyond; from 1e21 on Go writes an exponent, which no integer field reads).
pub fn integer_of_double(x: f64) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if !x.is_finite() || x.fract() != 0.0 {
        return None;
    }
    if x.abs() < EXACT {
        // Every integer below 2^53 is its own shortest form.
        return Some(x as i64);
    }
    if x.abs() >= 1e21 {
        return None;
    }
    // Rust's `Display` of a double is its shortest form, zero-padded, as Go's.
    format!("{x}").parse().ok()
}

/// "a string", "an array", ... for messages about a JSON value of the wrong type.
pub fn type_phrase(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn dotted(path: &[&str]) -> String {
    path.join(".")
}

/// The leaf at `path` under `root` (the object itself when `path` is empty),
/// or `None` when a key is missing or an intermediate value is `null`.
///
/// `object` is the whole object, used only to name it in errors.
pub fn get_any<'a>(object: &Value, root: &'a Value, path: &[&str]) -> Result<Option<&'a Value>> {
    let mut current = root;
    for (i, key) in path.iter().enumerate() {
        match current {
            Value::Object(map) => match member(map, key) {
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
pub fn get_str<'a>(object: &'a Value, path: &[&str]) -> Result<Option<&'a str>> {
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
pub fn get_int(object: &Value, path: &[&str]) -> Result<Option<i64>> {
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
pub fn get_string_map<'a>(
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
pub fn get_list<'a>(object: &'a Value, path: &[&str]) -> Result<Option<&'a Vec<Value>>> {
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

/// The non-null value at `path` of a checked object (`None` when a key is
/// missing or a value on the way is `null` or not an object).
pub fn get<'a>(object: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter()
        .try_fold(object, |v, key| child(v, key))
        .filter(|v| !v.is_null())
}

/// The integer at `path` of a checked object (typed decoding also accepts
/// floats with an integral value, `2.0`, which the check verified).
pub fn int(object: &Value, path: &[&str]) -> Option<i64> {
    integral(get(object, path)?)
}

/// A checked integer value: an integer, or a float with an integral value.
fn integral(v: &Value) -> Option<i64> {
    let n = v.as_number()?;
    n.as_i64().or_else(|| n.as_f64().map(|f| f as i64))
}

/// [`int`] of a 32-bit field (the check verified the range).
pub fn int32(object: &Value, path: &[&str]) -> Option<i32> {
    int(object, path).and_then(|n| i32::try_from(n).ok())
}

/// `metadata.namespace`, empty when absent.
pub fn namespace(object: &Value) -> &str {
    get(object, &["metadata", "namespace"])
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// `metadata.generation`, 0 when absent.
pub fn generation(object: &Value) -> i64 {
    int(object, &["metadata", "generation"]).unwrap_or(0)
}

/// Something with named fields: a JSON value (an object, or anything else
/// that has none) or a decoded map.
pub trait Node {
    /// The value of field `key`, if any.
    fn child(&self, key: &str) -> Option<&Value>;
}

impl Node for Value {
    fn child(&self, key: &str) -> Option<&Value> {
        child(self, key)
    }
}

impl Node for Map<String, Value> {
    fn child(&self, key: &str) -> Option<&Value> {
        member(self, key)
    }
}

/// The non-null value at `key` of `node` (`None` for no node, a missing key,
/// a `null` value or a node without fields).
pub(crate) fn at<'v, N: Node + ?Sized>(node: Option<&'v N>, key: &str) -> Option<&'v Value> {
    node?.child(key).filter(|x| !x.is_null())
}

/// The list at `key` of `node`, empty when absent or not a list.
pub fn list<'v, N: Node + ?Sized>(node: Option<&'v N>, key: &str) -> &'v [Value] {
    at(node, key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The string at `key` of `node`, empty when absent or not a string.
pub fn text<'v, N: Node + ?Sized>(node: Option<&'v N>, key: &str) -> &'v str {
    at(node, key).and_then(Value::as_str).unwrap_or_default()
}

/// The integer at `key` of a checked `node` (integral floats accepted, as
/// for [`int`]), `None` when absent or not a number.
pub fn integer<N: Node + ?Sized>(node: Option<&N>, key: &str) -> Option<i64> {
    integral(at(node, key)?)
}

/// The map at `key` of `node`, `None` when absent or not a map.
pub fn map<'v, N: Node + ?Sized>(node: Option<&'v N>, key: &str) -> Option<&'v Map<String, Value>> {
    at(node, key).and_then(Value::as_object)
}

/// Overwrites the integer leaf at `path` (see [`get_int`]) with `value` in
/// place: `Ok(true)` when it was there, `Ok(false)` when it is absent
/// (nothing written), the error of [`get_int`] (nothing written) when it
/// or a value on the way has another type.
pub fn replace_int(object: &mut Value, path: &[&str], value: i64) -> Result<bool> {
    // The common case, an integer there, in one walk down.
    if let Some(slot) = at_path_mut(object, path).filter(|s| s.is_i64()) {
        *slot = Value::from(value);
        return Ok(true);
    }
    // Otherwise `get_int` tells an absent leaf from a wrong type.
    get_int(object, path).map(|_| false)
}

/// Whether [`set`] at `path` would succeed: the path is non-empty and every
/// existing value on the way to the leaf is an object.
pub fn check_set(object: &Value, path: &[&str]) -> Result<()> {
    let Some((_, parents)) = path.split_last() else {
        return Err(invalid(object, "", "cannot replace the whole object"));
    };
    let mut current: &Value = object;
    for (i, key) in parents.iter().enumerate() {
        match current {
            Value::Object(map) => match member(map, key) {
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
    Ok(())
}

/// Writes `value` at `path` (non-empty) in place, creating missing
/// intermediate objects. An intermediate value that exists but is not an
/// object (including `null`) is an error; the object is then left
/// unchanged. Keys that exist are not allocated again.
pub fn set(object: &mut Value, path: &[&str], value: Value) -> Result<()> {
    let Some((leaf, parents)) = path.split_last() else {
        return Err(invalid(object, "", "cannot replace the whole object"));
    };
    // Every parent there as an object (the common case): one walk down.
    if let Some(map) = parents_map(object, parents) {
        put_member(map, leaf, value);
        return Ok(());
    }
    // Else check the whole path before writing, so an error leaves the
    // object unchanged; then create the missing parents.
    check_set(object, path)?;
    let mut current = object;
    for key in parents {
        let Value::Object(map) = current else {
            // Ruled out by the check above.
            return Ok(());
        };
        if member(map, key).is_none() {
            map.insert((*key).to_owned(), Value::Object(Map::new()));
        }
        let Some(next) = member_mut(map, key) else {
            return Ok(());
        };
        current = next;
    }
    if let Value::Object(map) = current {
        put_member(map, leaf, value);
    }
    Ok(())
}

/// Writes member `key` of `map`: an existing member is overwritten (its
/// key kept, not allocated again), a missing one added. True when the member
/// was there.
pub fn put_member(map: &mut Map<String, Value>, key: &str, value: Value) -> bool {
    match member_mut(map, key) {
        Some(slot) => {
            *slot = value;
            true
        }
        None => {
            map.insert(key.to_owned(), value);
            false
        }
    }
}

/// The value at `path`, when every value on the way is an object holding
/// the next key. (Inlined: without it the Retain bench cases were 5–15%
/// slower.)
#[inline]
pub(crate) fn at_path_mut<'a>(object: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    path.iter().try_fold(object, |v, key| match v {
        Value::Object(map) => member_mut(map, key),
        _ => None,
    })
}

/// The object at `parents` when each of them is there as an object.
fn parents_map<'a>(object: &'a mut Value, parents: &[&str]) -> Option<&'a mut Map<String, Value>> {
    at_path_mut(object, parents)?.as_object_mut()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `member` and `member_mut` answer as `Map::get` for every probe key, in maps below,
    /// at and above the scan size, with keys of equal length, a common
    /// prefix, the empty key and multi-byte characters.
    #[test]
    fn member_and_member_mut_find_what_get_finds() {
        let keys = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "spec",
            "kind",
            "kinds",
            "status",
            "metadata",
            "apiVersion",
            "é",
            "e\u{301}",
            "ü",
            "replicas",
            "replicaz",
            "x1",
            "x2",
            "x3",
            "x4",
        ];
        for size in [0, 1, 2, SCAN_MAX - 1, SCAN_MAX, SCAN_MAX + 1, keys.len()] {
            let map: Map<String, Value> = keys
                .iter()
                .take(size)
                .enumerate()
                .map(|(i, k)| ((*k).to_owned(), json!(i)))
                .collect();
            for probe in keys
                .iter()
                .chain(["missing", "spe", "specs", "Spec"].iter())
            {
                assert_eq!(member(&map, probe), map.get(*probe), "{size} {probe:?}");
                let value = Value::Object(map.clone());
                assert_eq!(child(&value, probe), map.get(*probe), "{size} {probe:?}");
                let mut copy = map.clone();
                let found = member_mut(&mut copy, probe).map(|v| v.clone());
                assert_eq!(found.as_ref(), map.get(*probe), "{size} {probe:?}");
            }
        }
        assert_eq!(child(&json!([1]), "a"), None);
        assert_eq!(child(&json!("a"), "a"), None);
    }

    /// What Go's decoding reads into an int64 from Go's text of the double.
    #[rstest::rstest]
    #[case(3.0, Some(3))]
    #[case(-0.0, Some(0))]
    #[case(2.5, None)]
    #[case(9_007_199_254_740_992.0, Some(9_007_199_254_740_992))]
    #[case(-9_007_199_254_740_994.0, Some(-9_007_199_254_740_994))]
    #[case(1_537_228_672_809_129_216.0, Some(1_537_228_672_809_129_200))]
    #[case(4_611_686_018_427_387_904.0, Some(4_611_686_018_427_388_000))]
    // the largest double below 2^63, and its negative: shortest forms fit
    #[case(9_223_372_036_854_774_784.0, Some(9_223_372_036_854_775_000))]
    #[case(-9_223_372_036_854_774_784.0, Some(-9_223_372_036_854_775_000))]
    // -2^63 is written -9223372036854776000, beyond the range; so is 2^63
    #[case(-9_223_372_036_854_775_808.0, None)]
    #[case(9_223_372_036_854_775_808.0, None)]
    #[case(1e20, None)]
    #[case(-1e300, None)]
    #[case(f64::NAN, None)]
    #[case(f64::INFINITY, None)]
    fn integral_doubles_read_as_go_reads_their_text(#[case] x: f64, #[case] want: Option<i64>) {
        assert_eq!(integer_of_double(x), want);
    }

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

    /// `set` writes through existing objects in one walk and creates
    /// missing ones; a scalar or `null` on the way is an error naming it,
    /// with the object unchanged.
    #[rstest::rstest]
    #[case::overwrite(json!({"spec": {"replicas": 1}}), &["spec", "replicas"], Ok(json!({"spec": {"replicas": 9}})))]
    #[case::add_leaf(json!({"spec": {"a": 1}}), &["spec", "replicas"], Ok(json!({"spec": {"a": 1, "replicas": 9}})))]
    #[case::create_parents(json!({"spec": {}}), &["spec", "x", "y"], Ok(json!({"spec": {"x": {"y": 9}}})))]
    #[case::root_leaf(json!({}), &["replicas"], Ok(json!({"replicas": 9})))]
    #[case::through_scalar(json!({"spec": 1}), &["spec", "replicas"], Err("`spec`"))]
    #[case::through_null(json!({"spec": {"x": null}}), &["spec", "x", "y"], Err("`spec.x`"))]
    #[case::through_a_deeper_scalar(json!({"spec": {"a": "s"}}), &["spec", "a", "b", "c"], Err("`spec.a`"))]
    #[case::whole_object(json!({}), &[], Err("whole object"))]
    fn set_writes_or_fails_without_writing(
        #[case] mut object: Value,
        #[case] path: &[&str],
        #[case] want: std::result::Result<Value, &str>,
    ) {
        let before = object.clone();
        match (set(&mut object, path, json!(9)), want) {
            (Ok(()), Ok(want)) => assert_eq!(object, want),
            (Err(e), Err(text)) => {
                assert!(e.to_string().contains(text), "{e}");
                assert_eq!(object, before);
            }
            (got, want) => panic!("{got:?}, want {want:?}"),
        }
    }

    /// `replace_int` overwrites an integer leaf, leaves an absent one (or
    /// one below an absent or `null` parent) alone, and refuses another
    /// type with `get_int`'s error, writing nothing.
    #[rstest::rstest]
    #[case::integer(json!({"spec": {"replicas": 1}}), Ok(true))]
    #[case::absent(json!({"spec": {}}), Ok(false))]
    #[case::no_parent(json!({}), Ok(false))]
    #[case::null_parent(json!({"spec": null}), Ok(false))]
    #[case::null_leaf(json!({"spec": {"replicas": null}}), Err("expected an integer, got null"))]
    #[case::float(json!({"spec": {"replicas": 1.5}}), Err("expected an integer, got float"))]
    #[case::string(json!({"spec": {"replicas": "1"}}), Err("expected an integer, got string"))]
    #[case::scalar_parent(json!({"spec": 3}), Err("expected an object, got integer"))]
    fn replace_int_writes_integers_only(
        #[case] mut object: Value,
        #[case] want: std::result::Result<bool, &str>,
    ) {
        let before = object.clone();
        let path = &["spec", "replicas"];
        let expected_error = get_int(&object, path).err().map(|e| e.to_string());
        match (replace_int(&mut object, path, 9), want) {
            (Ok(true), Ok(true)) => assert_eq!(object["spec"]["replicas"], 9),
            (Ok(false), Ok(false)) => assert_eq!(object, before),
            (Err(e), Err(text)) => {
                assert!(e.to_string().contains(text), "{e}");
                assert_eq!(Some(e.to_string()), expected_error);
                assert_eq!(object, before);
            }
            (got, want) => panic!("{got:?}, want {want:?}"),
        }
    }
}
