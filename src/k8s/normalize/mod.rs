//! Typed decoding and Go-style re-encoding of Kubernetes objects held as JSON
//! (`native-builtins.md` §1.4–§1.6, Appendix A).
//!
//! Karmada decodes an object into its Go type, works on it and encodes it
//! again. This module does the same on the JSON tree, driven by the
//! Kubernetes 1.36 type graph in [`schema`] (generated from k8s-openapi plus
//! Appendix A by `tools/gen_k8s_schema.py`):
//!
//! * [`encode`] checks every known field's JSON type (an error names the field
//!   and the object), then re-encodes the way Go does: empty optional fields
//!   dropped, always-emitted fields added, quantities and times canonical.
//!   **Unlike Karmada, keys unknown to the schema are kept verbatim**: the
//!   project never drops fields of the user's object that the operation does
//!   not own (`COMPATIBILITY.md`).
//! * [`decode`] gives the typed value as Go would hold it: unknown keys and
//!   nulls gone, zero value fields gone, present-but-empty lists and maps kept
//!   (Go tells a nil list from an empty one). Two decoded values are equal
//!   exactly when Karmada's typed values are. With `strict` it follows the
//!   status-item rules of §1.6 (case-insensitive keys, integer literals only).

#[rustfmt::skip]
#[allow(clippy::all, dead_code)]
pub(crate) mod schema;
#[cfg(test)]
mod schema_check;

pub(crate) use super::time::Time;

use base64::Engine as _;
use serde_json::{Map, Number, Value};

use super::error::{ObjectError, Result};
use super::field::type_phrase;
use super::path::FieldPath;
use super::quantity::Quantity;

/// One Kubernetes struct type.
#[derive(Debug)]
pub(crate) struct Ty {
    /// Go type name, for messages.
    pub name: &'static str,
    /// Fields sorted by JSON name.
    pub fields: &'static [Field],
    /// A type whose fields this one embeds (Karmada's wrapped member statuses).
    pub base: Option<&'static Ty>,
}

/// One field of a [`Ty`].
#[derive(Debug)]
pub(crate) struct Field {
    /// JSON key.
    pub json: &'static str,
    /// Value type.
    pub kind: Kind,
    /// When Go's encoder writes it.
    pub emit: Emit,
}

/// The JSON shape of a field. (Some shapes, e.g. `F64`, `MicroTime` and
/// `Bytes`, occur in Kubernetes types the served kinds do not reach today;
/// the generator may emit them when the root set grows.)
#[derive(Debug)]
#[allow(dead_code)]
pub(crate) enum Kind {
    Str,
    I32,
    I64,
    F64,
    Bool,
    Quantity,
    Time,
    MicroTime,
    IntOrString,
    Bytes,
    /// Raw JSON (FieldsV1, RawExtension): not checked, copied verbatim.
    Any,
    Struct(&'static Ty),
    List(&'static Kind),
    Map(&'static Kind),
}

/// When Go's encoder writes a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Emit {
    /// Optional pointer, list, map or struct: written when set (lists and maps
    /// when non-empty); scalars are written whenever present, zero included.
    Omit,
    /// Optional value scalar: omitted when zero.
    OmitZero,
    /// Not optional, value typed: written with its zero value when unset.
    AlwaysZero,
    /// Not optional, nil-able (list, map, pointer, time): `null` when unset.
    AlwaysNull,
}

impl Ty {
    /// The field named exactly `key`.
    pub(crate) fn field(&'static self, key: &str) -> Option<&'static Field> {
        match self.fields.binary_search_by(|f| f.json.cmp(key)) {
            Ok(i) => self.fields.get(i),
            Err(_) => self.base.and_then(|b| b.field(key)),
        }
    }

    /// The field whose name matches `key` ignoring ASCII case.
    fn field_ci(&'static self, key: &str) -> Option<&'static Field> {
        self.all_fields().find(|f| f.json.eq_ignore_ascii_case(key))
    }

    fn all_fields(&'static self) -> impl Iterator<Item = &'static Field> {
        self.fields
            .iter()
            .chain(self.base.into_iter().flat_map(|b| b.fields.iter()))
    }
}

/// How [`walk_struct`] treats its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Encode,
    Decode { strict: bool },
}

struct Cx<'a> {
    /// The object named in error messages.
    object: &'a Value,
    mode: Mode,
    /// Encode mode: keep keys the schema does not know.
    keep_unknown: bool,
}

impl Cx<'_> {
    fn err(&self, path: &FieldPath<'_>, reason: impl Into<String>) -> ObjectError {
        ObjectError::field(self.object, path.to_string(), reason)
    }
}

/// Typed-decodes `value` as `ty` and re-encodes it the way Go does (§1.5),
/// keeping keys the schema does not know. `object` names the object in
/// errors; `path` is where `value` sits in it (`""` for the object itself).
pub(crate) fn encode(object: &Value, path: &str, value: &Value, ty: &'static Ty) -> Result<Value> {
    encode_with(object, path, value, ty, true)
}

/// Like [`encode`], but drops keys the schema does not know: for values the
/// operation builds itself (reflected statuses), exactly Go's typed output.
pub(crate) fn encode_known(
    object: &Value,
    path: &str,
    value: &Value,
    ty: &'static Ty,
) -> Result<Value> {
    encode_with(object, path, value, ty, false)
}

fn encode_with(
    object: &Value,
    path: &str,
    value: &Value,
    ty: &'static Ty,
    keep_unknown: bool,
) -> Result<Value> {
    let cx = Cx {
        object,
        mode: Mode::Encode,
        keep_unknown,
    };
    let root = FieldPath::root(path);
    match value {
        Value::Object(m) => Ok(Value::Object(walk_struct(&cx, ty, Some(m), &root)?)),
        Value::Null => Ok(Value::Object(walk_struct(&cx, ty, None, &root)?)),
        other => Err(cx.err(
            &root,
            format!("expected an object, got {}", type_phrase(other)),
        )),
    }
}

/// Typed-decodes `value` as `ty` (§1.4; with `strict`, the status-item rules
/// of §1.6) into its canonical decoded form (see the module docs).
pub(crate) fn decode(
    object: &Value,
    path: &str,
    value: &Value,
    ty: &'static Ty,
    strict: bool,
) -> Result<Map<String, Value>> {
    decode_at(object, FieldPath::root(path), value, ty, strict)
}

/// [`decode`] with the strict status-item rules (§1.6) for the status of
/// item `index` (reported by cluster `cluster`).
pub(crate) fn decode_item(
    object: &Value,
    index: usize,
    cluster: &str,
    value: &Value,
    ty: &'static Ty,
) -> Result<Map<String, Value>> {
    decode_at(object, FieldPath::item(index, cluster), value, ty, true)
}

fn decode_at(
    object: &Value,
    root: FieldPath<'_>,
    value: &Value,
    ty: &'static Ty,
    strict: bool,
) -> Result<Map<String, Value>> {
    let cx = Cx {
        object,
        mode: Mode::Decode { strict },
        keep_unknown: false,
    };
    match value {
        Value::Object(m) => walk_struct(&cx, ty, Some(m), &root),
        Value::Null => Ok(Map::new()),
        other => Err(cx.err(
            &root,
            format!("expected an object, got {}", type_phrase(other)),
        )),
    }
}

fn walk_struct(
    cx: &Cx<'_>,
    ty: &'static Ty,
    input: Option<&Map<String, Value>>,
    path: &FieldPath<'_>,
) -> Result<Map<String, Value>> {
    let strict = matches!(cx.mode, Mode::Decode { strict: true });
    if strict || ty.base.is_some() {
        return walk_struct_lookup(cx, ty, input, path);
    }
    // Input keys and schema fields are both sorted: walk them side by side.
    let encode = cx.mode == Mode::Encode;
    let fields = ty.fields;
    let empty = Map::new();
    let input = input.unwrap_or(&empty);
    let mut out: Vec<(String, Value)> = Vec::with_capacity(input.len() + 2);
    let mut next = 0;
    let always = |f: &Field| matches!(f.emit, Emit::AlwaysZero | Emit::AlwaysNull);
    let zero = |f: &'static Field| -> Result<Value> {
        if f.emit == Emit::AlwaysNull {
            Ok(Value::Null)
        } else {
            zero_of(cx, &f.kind, path)
        }
    };
    for (key, v) in input {
        while let Some(f) = fields.get(next) {
            if f.json >= key.as_str() {
                break;
            }
            if encode && always(f) {
                out.push((f.json.to_owned(), zero(f)?));
            }
            next += 1;
        }
        let field = match fields.get(next) {
            Some(f) if f.json == key.as_str() => {
                next += 1;
                f
            }
            _ => {
                if cx.keep_unknown {
                    out.push((key.clone(), v.clone()));
                }
                continue;
            }
        };
        if v.is_null() {
            if encode && always(field) {
                out.push((field.json.to_owned(), zero(field)?));
            }
            continue;
        }
        let value = walk_value(cx, &field.kind, v, &path.key(key))?;
        if keep(cx.mode, field, &value) {
            out.push((field.json.to_owned(), value));
        }
    }
    if encode {
        for f in fields.get(next..).unwrap_or(&[]) {
            if always(f) {
                out.push((f.json.to_owned(), zero(f)?));
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// [`walk_struct`] by field lookup: status items (case-insensitive keys) and
/// wrapped types.
fn walk_struct_lookup(
    cx: &Cx<'_>,
    ty: &'static Ty,
    input: Option<&Map<String, Value>>,
    path: &FieldPath<'_>,
) -> Result<Map<String, Value>> {
    let mut out = Map::new();
    let strict = matches!(cx.mode, Mode::Decode { strict: true });
    if let Some(input) = input {
        for (key, v) in input {
            let field = match ty.field(key) {
                Some(f) => Some(f),
                None if strict => match ty.field_ci(key) {
                    // An exact-case key for the same field wins.
                    Some(f) if !input.contains_key(f.json) => Some(f),
                    _ => None,
                },
                None => None,
            };
            let Some(field) = field else {
                if cx.keep_unknown {
                    out.insert(key.clone(), v.clone());
                }
                continue;
            };
            let here = path.key(key);
            if v.is_null() {
                continue;
            }
            let value = walk_value(cx, &field.kind, v, &here)?;
            if keep(cx.mode, field, &value) {
                out.insert(field.json.to_owned(), value);
            }
        }
    }
    if cx.mode == Mode::Encode {
        for field in ty.all_fields() {
            if matches!(field.emit, Emit::AlwaysZero | Emit::AlwaysNull)
                && !out.contains_key(field.json)
            {
                let zero = if field.emit == Emit::AlwaysNull {
                    Value::Null
                } else {
                    zero_of(cx, &field.kind, path)?
                };
                out.insert(field.json.to_owned(), zero);
            }
        }
    }
    Ok(out)
}

/// Whether a present, non-null field's walked value is written.
fn keep(mode: Mode, field: &Field, value: &Value) -> bool {
    let is_scalar = matches!(
        field.kind,
        Kind::Str | Kind::I32 | Kind::I64 | Kind::F64 | Kind::Bool
    );
    match mode {
        Mode::Encode => match field.emit {
            Emit::AlwaysZero | Emit::AlwaysNull => true,
            Emit::OmitZero => !is_zero_scalar(value),
            Emit::Omit => match field.kind {
                Kind::List(_) | Kind::Map(_) | Kind::Bytes => !is_empty_collection(value),
                _ => true,
            },
        },
        Mode::Decode { .. } => match field.emit {
            Emit::OmitZero => !is_zero_scalar(value),
            // Value fields: the zero value is the same as unset.
            Emit::AlwaysZero => match field.kind {
                Kind::Struct(_) => !matches!(value, Value::Object(m) if m.is_empty()),
                Kind::Quantity => value.as_str() != Some("0"),
                Kind::IntOrString => value.as_i64() != Some(0),
                _ if is_scalar => !is_zero_scalar(value),
                _ => true,
            },
            Emit::AlwaysNull | Emit::Omit => true,
        },
    }
}

fn is_zero_scalar(v: &Value) -> bool {
    match v {
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Bool(b) => !b,
        Value::Null => true,
        _ => false,
    }
}

fn is_empty_collection(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

/// The encoded zero value of a value-typed field.
fn zero_of(cx: &Cx<'_>, kind: &'static Kind, path: &FieldPath<'_>) -> Result<Value> {
    Ok(match kind {
        Kind::Str | Kind::Bytes => Value::String(String::new()),
        Kind::I32 | Kind::I64 | Kind::IntOrString => Value::from(0),
        Kind::F64 => Value::from(0.0),
        Kind::Bool => Value::Bool(false),
        Kind::Quantity => Value::String("0".to_owned()),
        Kind::Time | Kind::MicroTime | Kind::Any | Kind::List(_) | Kind::Map(_) => Value::Null,
        Kind::Struct(ty) => Value::Object(walk_struct(cx, ty, None, path)?),
    })
}

fn walk_value(cx: &Cx<'_>, kind: &'static Kind, v: &Value, path: &FieldPath<'_>) -> Result<Value> {
    let strict = matches!(cx.mode, Mode::Decode { strict: true });
    let mismatch = |want: &str| cx.err(path, format!("expected {want}, got {}", type_phrase(v)));
    match kind {
        Kind::Str => match v {
            Value::String(_) => Ok(v.clone()),
            _ => Err(mismatch("a string")),
        },
        Kind::Bool => match v {
            Value::Bool(_) => Ok(v.clone()),
            _ => Err(mismatch("a boolean")),
        },
        Kind::I32 => {
            let n = integer(cx, v, strict, path)?;
            i32::try_from(n)
                .map(Value::from)
                .map_err(|_| cx.err(path, format!("{n} does not fit a 32-bit integer field")))
        }
        Kind::I64 => integer(cx, v, strict, path).map(Value::from),
        Kind::F64 => match v {
            Value::Number(n) => Ok(Value::Number(n.clone())),
            _ => Err(mismatch("a number")),
        },
        Kind::Quantity => match v {
            Value::String(text) if is_canonical_quantity(text) => Ok(v.clone()),
            Value::String(_) | Value::Number(_) => Quantity::from_json(v)
                .map(|q| Value::String(q.to_canonical_string()))
                .map_err(|e| cx.err(path, e.to_string())),
            _ => Err(mismatch("a quantity (string or number)")),
        },
        Kind::Time | Kind::MicroTime => match v {
            Value::String(s) => time(cx, s, matches!(kind, Kind::MicroTime), path),
            _ => Err(mismatch("an RFC 3339 time string")),
        },
        Kind::IntOrString => match v {
            Value::String(_) => Ok(v.clone()),
            Value::Number(_) => {
                let n = integer(cx, v, strict, path)?;
                i32::try_from(n)
                    .map(Value::from)
                    .map_err(|_| cx.err(path, format!("{n} does not fit an int-or-string")))
            }
            _ => Err(mismatch("an integer or a string")),
        },
        Kind::Bytes => match v {
            Value::String(s) => base64::engine::general_purpose::STANDARD
                .decode(s)
                .map(|_| v.clone())
                .map_err(|e| cx.err(path, format!("not base64: {e}"))),
            _ => Err(mismatch("a base64 string")),
        },
        Kind::Any => Ok(v.clone()),
        Kind::Struct(ty) => match v {
            Value::Object(m) => Ok(Value::Object(walk_struct(cx, ty, Some(m), path)?)),
            _ => Err(mismatch(&format!("an object ({})", ty.name))),
        },
        Kind::List(elem) => match v {
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let here = path.index(i);
                    out.push(element(cx, elem, item, &here)?);
                }
                Ok(Value::Array(out))
            }
            _ => Err(mismatch("an array")),
        },
        Kind::Map(elem) => match v {
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, item) in m {
                    let here = path.key(k);
                    out.insert(k.clone(), element(cx, elem, item, &here)?);
                }
                Ok(Value::Object(out))
            }
            _ => Err(mismatch("an object")),
        },
    }
}

/// A list element or map value: `null` stands for the element type's zero value.
fn element(cx: &Cx<'_>, kind: &'static Kind, v: &Value, path: &FieldPath<'_>) -> Result<Value> {
    if v.is_null() {
        return match (cx.mode, kind) {
            (Mode::Encode, _) => zero_of(cx, kind, path),
            (Mode::Decode { .. }, Kind::Struct(_)) => Ok(Value::Object(Map::new())),
            (Mode::Decode { .. }, _) => zero_of(cx, kind, path),
        };
    }
    walk_value(cx, kind, v, path)
}

/// Whether `text` is already a quantity's canonical form (Appendix B), so
/// re-rendering would give it back unchanged: `0`, or a plain integer
/// mantissa without leading zeros and a suffix it cannot be moved up from
/// (`250m`, `1500m`, `256Mi`, `120`). Anything else takes the full parser.
fn is_canonical_quantity(text: &str) -> bool {
    if text == "0" {
        return true;
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (mantissa, suffix) = text.split_at(digits);
    if digits == 0 || digits > 15 || mantissa.starts_with('0') {
        return false;
    }
    let Ok(m) = mantissa.parse::<u64>() else {
        return false;
    };
    match suffix {
        "n" | "u" | "m" | "" | "k" | "M" | "G" | "T" | "P" => m % 1000 != 0,
        "Ki" | "Mi" | "Gi" | "Ti" | "Pi" => m % 1024 != 0,
        _ => false,
    }
}

/// An integer field's value: integer literals; outside status items also
/// floats with an integral value (`2.0`).
fn integer(cx: &Cx<'_>, v: &Value, strict: bool, path: &FieldPath<'_>) -> Result<i64> {
    let Value::Number(n) = v else {
        return Err(cx.err(path, format!("expected an integer, got {}", type_phrase(v))));
    };
    if let Some(i) = n.as_i64() {
        return Ok(i);
    }
    if n.is_u64() {
        return Err(cx.err(path, format!("{n} does not fit a 64-bit integer field")));
    }
    match n.as_f64() {
        Some(f) if !strict && f.fract() == 0.0 && f >= -(2f64.powi(63)) && f < 2f64.powi(63) => {
            Ok(f as i64)
        }
        _ => Err(cx.err(path, format!("expected an integer, got {n}"))),
    }
}

fn time(cx: &Cx<'_>, s: &str, micro: bool, path: &FieldPath<'_>) -> Result<Value> {
    let t = Time::parse(s).ok_or_else(|| cx.err(path, format!("{s:?} is not an RFC 3339 time")))?;
    Ok(Value::String(match cx.mode {
        Mode::Encode if micro => t.to_micro_string(),
        Mode::Encode => t.to_seconds_string(),
        Mode::Decode { .. } => t.to_exact_string(),
    }))
}

/// Parses an RFC 3339 time (`2024-03-01T10:04:30Z`, fractions and offsets allowed).
pub(crate) fn parse_time(s: &str) -> Option<Time> {
    Time::parse(s)
}

/// Checks that `value` typed-decodes as `ty` (§1.4) without building
/// anything: the same errors as [`encode`] and [`decode`], no allocation on
/// success.
pub(crate) fn check(object: &Value, path: &str, value: &Value, ty: &'static Ty) -> Result<()> {
    let cx = Cx {
        object,
        mode: Mode::Decode { strict: false },
        keep_unknown: false,
    };
    let root = FieldPath::root(path);
    match value {
        Value::Object(m) => check_struct(&cx, ty, m, &root),
        Value::Null => Ok(()),
        other => Err(cx.err(
            &root,
            format!("expected an object, got {}", type_phrase(other)),
        )),
    }
}

fn check_struct(
    cx: &Cx<'_>,
    ty: &'static Ty,
    input: &Map<String, Value>,
    path: &FieldPath<'_>,
) -> Result<()> {
    let fields = ty.fields;
    let mut next = 0;
    for (key, v) in input {
        while fields.get(next).is_some_and(|f| f.json < key.as_str()) {
            next += 1;
        }
        let field = match fields.get(next) {
            Some(f) if f.json == key.as_str() => f,
            _ => match ty.base.and_then(|b| b.field(key)) {
                Some(f) => f,
                None => continue,
            },
        };
        if !v.is_null() {
            check_value(cx, &field.kind, v, &path.key(key))?;
        }
    }
    Ok(())
}

fn check_value(cx: &Cx<'_>, kind: &'static Kind, v: &Value, path: &FieldPath<'_>) -> Result<()> {
    match (kind, v) {
        (Kind::Str, Value::String(_)) | (Kind::Bool, Value::Bool(_)) | (Kind::Any, _) => Ok(()),
        (Kind::F64, Value::Number(_)) | (Kind::IntOrString, Value::String(_)) => Ok(()),
        (Kind::I64, Value::Number(n)) if n.is_i64() => Ok(()),
        (Kind::I32 | Kind::IntOrString, Value::Number(n))
            if n.as_i64().is_some_and(|i| i32::try_from(i).is_ok()) =>
        {
            Ok(())
        }
        (Kind::Time | Kind::MicroTime, Value::String(s)) if Time::parse(s).is_some() => Ok(()),
        (Kind::Quantity, Value::String(s)) if is_canonical_quantity(s) => Ok(()),
        (Kind::Struct(ty), Value::Object(m)) => check_struct(cx, ty, m, path),
        (Kind::List(elem), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_null() {
                    check_value(cx, elem, item, &path.index(i))?;
                }
            }
            Ok(())
        }
        (Kind::Map(elem), Value::Object(m)) => {
            for (k, item) in m {
                if !item.is_null() {
                    check_value(cx, elem, item, &path.key(k))?;
                }
            }
            Ok(())
        }
        // Everything else (quantities, bytes, integral floats, and every
        // mismatch) takes the full path, which reports the error.
        _ => walk_value(cx, kind, v, path).map(drop),
    }
}

/// An `i64` as a JSON number.
pub(crate) fn num(n: i64) -> Value {
    Value::Number(Number::from(n))
}

#[cfg(test)]
mod tests {
    use super::schema::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn bare_deployment_gains_always_emitted_fields() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment"});
        let out = encode(&obj, "", &obj, &DEPLOYMENT).unwrap();
        assert_eq!(
            out,
            json!({"apiVersion":"apps/v1","kind":"Deployment","metadata":{},
             "spec":{"selector":null,"strategy":{},"template":{"metadata":{},"spec":{"containers":null}}},
             "status":{}})
        );
    }

    #[test]
    fn unknown_keys_are_kept_and_empty_optionals_dropped() {
        let obj = json!({"apiVersion": "v1", "kind": "Pod", "extra": {"x": 1},
            "spec": {"containers": [{"name": "a", "future": true, "env": []}], "nodeName": ""}});
        let out = encode(&obj, "", &obj, &POD).unwrap();
        assert_eq!(out["extra"], json!({"x": 1}));
        assert_eq!(
            out["spec"]["containers"][0],
            json!({"name": "a", "future": true, "resources": {}})
        );
        assert!(out["spec"].get("nodeName").is_none());
    }

    #[test]
    fn wrong_types_name_the_field() {
        let obj = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
            "spec": {"containers": [{"name": "a", "ports": [{"containerPort": "80"}]}]}});
        let err = encode(&obj, "", &obj, &POD).unwrap_err().to_string();
        assert!(err.contains("Pod ns/p"), "{err}");
        assert!(
            err.contains("spec.containers[0].ports[0].containerPort"),
            "{err}"
        );
    }

    #[test]
    fn canonical_quantity_fast_path_agrees_with_the_parser() {
        for text in [
            "0",
            "1",
            "250m",
            "1500m",
            "1000m",
            "1k",
            "1000",
            "120",
            "256Mi",
            "1024Ki",
            "1536Mi",
            "2Gi",
            "100n",
            "5u",
            "7P",
            "3Pi",
            "1E",
            "1Ei",
            "01",
            "1.5",
            "1e3",
            "999999999999999",
            "1000000",
            "12345678",
            "1023Ki",
            "2048Ki",
        ] {
            let canonical = Quantity::parse(text).map(|q| q.to_canonical_string());
            if is_canonical_quantity(text) {
                assert_eq!(canonical.as_deref(), Ok(text), "{text}");
            }
        }
        assert!(is_canonical_quantity("250m"));
        assert!(!is_canonical_quantity("1000m"));
        assert!(!is_canonical_quantity("2048Ki"));
    }

    #[test]
    fn times_are_utc_seconds() {
        let obj = json!({"kind": "Job", "status": {"startTime": "2024-03-01T12:00:00.123+02:00"}});
        let out = encode(&obj, "", &obj, &JOB).unwrap();
        assert_eq!(out["status"]["startTime"], "2024-03-01T10:00:00Z");
        let obj = json!({"kind": "Job", "status": {"startTime": 5}});
        assert!(encode(&obj, "", &obj, &JOB).is_err());
    }

    #[test]
    fn strict_decoding_matches_keys_case_insensitively_and_rejects_floats() {
        let status = json!({"ReadyReplicas": 2, "replicas": 3, "Replicas": 9});
        let d = decode(&status, "", &status, &WRAPPED_DEPLOYMENT_STATUS, true).unwrap();
        assert_eq!(Value::Object(d), json!({"readyReplicas": 2, "replicas": 3}));
        let status = json!({"replicas": 2.0});
        assert!(decode(&status, "", &status, &WRAPPED_DEPLOYMENT_STATUS, true).is_err());
        assert!(decode(&status, "", &status, &WRAPPED_DEPLOYMENT_STATUS, false).is_ok());
    }

    #[test]
    fn status_item_errors_name_the_item_cluster_and_field() {
        let template =
            json!({"kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}});
        let status = json!({"conditions": [{"type": "Available", "lastUpdateTime": "soon"}]});
        let err = decode_item(&template, 1, "west", &status, &WRAPPED_DEPLOYMENT_STATUS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("Deployment shop/web"), "{err}");
        assert!(
            err.contains(r#"statusItems[1] (cluster "west").status.conditions[0].lastUpdateTime"#),
            "{err}"
        );
    }

    #[test]
    fn out_of_range_32_bit_values_are_errors() {
        let status = json!({"replicas": 4294967297u64});
        assert!(decode(&status, "", &status, &DEPLOYMENT_STATUS, false).is_err());
    }

    #[test]
    fn decoded_form_drops_zero_value_fields_but_keeps_empty_lists() {
        let status = json!({"replicas": 0, "conditions": [], "collisionCount": 0, "x": 1});
        let d = decode(&status, "", &status, &DEPLOYMENT_STATUS, false).unwrap();
        assert_eq!(
            Value::Object(d),
            json!({"conditions": [], "collisionCount": 0})
        );
    }
}
