//! What of an object an operation looks at ([`Keep`]), and decoding only
//! that from JSON bytes ([`decode`]).
//!
//! Building a `serde_json::Value` costs far more than reading past JSON
//! text: for a typical Deployment, allocating the strings and maps is most
//! of the decode. An operation that only reads a few members of an object
//! (the observed object of Retain, the live object of InterpretStatus)
//! needs only those. [`decode`] builds the members a [`Keep`] names and
//! reads past the others, still checking that they are well-formed JSON,
//! so the bytes are refused exactly when a full decode refuses them.
//!
//! The members that name the object in messages (`apiVersion`, `kind`,
//! `metadata.name`, `metadata.namespace`) are always kept, so an error
//! raised on the kept object reads as it would on the whole one.
//!
//! ```
//! use karmada_interpreter_core::k8s::keep::{decode, Keep};
//!
//! const CLUSTER_IP: Keep = Keep::Members(&[("spec", Keep::Members(&[("clusterIP", Keep::All)]))]);
//! let bytes = br#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","uid":"u"},
//!                  "spec":{"clusterIP":"10.0.0.1","ports":[{"port":80}]}}"#;
//! let kept = decode(bytes, CLUSTER_IP).unwrap();
//! assert_eq!(kept, serde_json::json!({"apiVersion": "v1", "kind": "Service",
//!     "metadata": {"name": "web"}, "spec": {"clusterIP": "10.0.0.1"}}));
//! // Text that is not JSON is refused wherever it is, kept or not.
//! assert!(decode(br#"{"spec":{"ports":[}}"#, CLUSTER_IP).is_err());
//! ```

use std::borrow::Cow;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};

/// The part of a JSON value an operation looks at: what [`decode`] builds
/// of the bytes, and what a native handler checks of the object it reads
/// ([`check_reads`](super::normalize::check_reads)), one description for
/// both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The whole value.
    All,
    /// These members of an object, each with what is kept below it (of
    /// every element when the value is an array). A value that is neither
    /// an object nor an array is kept whole. Checked against a schema type,
    /// the members are fields of a struct (of every element of a list, of
    /// every value of a map), and every name must be a field of the type
    /// at that place (a debug build checks each table on use).
    Members(&'static [(&'static str, Keep)]),
}

/// The members kept at the top of every object: those that name it.
const IDENTITY: &[(&str, Keep)] = &[
    ("apiVersion", Keep::All),
    ("kind", Keep::All),
    (
        "metadata",
        Keep::Members(&[("name", Keep::All), ("namespace", Keep::All)]),
    ),
];

/// Decodes the object in `bytes`, building only what `keep` names (and the
/// members that name the object). The bytes are refused exactly when
/// `serde_json::from_slice::<Value>` refuses them.
pub fn decode(bytes: &[u8], keep: Keep) -> serde_json::Result<Value> {
    let seed = match keep {
        Keep::All => Kept::ALL,
        Keep::Members(members) => Kept {
            all: false,
            members,
            also: IDENTITY,
        },
    };
    // A member read past may hold the fault a full decode finds at another
    // column: the error is the full decode's.
    on_text(bytes, |text| {
        let mut de = serde_json::Deserializer::from_str(text);
        let value = seed.deserialize(&mut de)?;
        de.end().map(|()| value)
    })
}

/// A `T` decoded from JSON text: what `serde_json::from_slice` gives, errors
/// included, but faster, the text being checked as UTF-8 once rather than
/// string by string.
pub fn from_bytes<T: DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<T> {
    on_text(bytes, |text| serde_json::from_str(text))
}

/// `decode` run on `bytes` checked as UTF-8 at once (much faster than
/// checking each string as it is read); on any failure, including text that
/// is not UTF-8 (never JSON), the answer is `serde_json::from_slice`'s, so
/// errors read as a full decode words them. (Inlined: without it the
/// Retain from-bytes bench cases were 3–4% slower.)
#[inline]
fn on_text<T: DeserializeOwned>(
    bytes: &[u8],
    decode: impl FnOnce(&str) -> serde_json::Result<T>,
) -> serde_json::Result<T> {
    match std::str::from_utf8(bytes).map(decode) {
        Ok(Ok(value)) => Ok(value),
        _ => serde_json::from_slice(bytes),
    }
}

/// What is kept of one value: the members named in either list (an object
/// member named in both keeps what both keep).
#[derive(Clone, Copy)]
struct Kept {
    /// The whole value (the lists are then empty).
    all: bool,
    members: &'static [(&'static str, Keep)],
    also: &'static [(&'static str, Keep)],
}

impl Kept {
    /// Everything (no member list).
    const ALL: Self = Self {
        all: true,
        members: &[],
        also: &[],
    };

    /// What is kept of member `key`; `None` when it is read past.
    fn member(self, key: &str) -> Option<Kept> {
        let find = |list: &'static [(&'static str, Keep)]| {
            list.iter().find(|(name, _)| *name == key).map(|(_, k)| *k)
        };
        match (find(self.members), find(self.also)) {
            (None, None) => None,
            (Some(Keep::All), _) | (_, Some(Keep::All)) => Some(Self::ALL),
            (Some(Keep::Members(members)), also) | (also, Some(Keep::Members(members))) => {
                Some(Kept {
                    all: false,
                    members,
                    also: match also {
                        Some(Keep::Members(also)) => also,
                        _ => &[],
                    },
                })
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Kept {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        if self.all {
            Value::deserialize(deserializer)
        } else {
            deserializer.deserialize_any(self)
        }
    }
}

/// A string, borrowed from the bytes unless it has escapes.
pub(crate) struct Text<'de>(pub(crate) Cow<'de, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// Builds the same values as `Value`'s own decoding, leaving out the
/// members not kept.
impl<'de> Visitor<'de> for Kept {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match self.member(&key) {
                Some(kept) => {
                    let value = map.next_value_seed(kept)?;
                    out.insert(key.into_owned(), value);
                }
                None => map.next_value_seed(Skip)?,
            }
        }
        Ok(Value::Object(out))
    }
}

/// Reads past a value, checking it as a full decode does (strings as
/// UTF-8 with valid escapes, numbers in range), building nothing.
/// (`serde::de::IgnoredAny` is not enough: serde_json reads past strings
/// and numbers it ignores without those checks.)
#[derive(Clone, Copy)]
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    const STATUS: Keep = Keep::Members(&[
        ("status", Keep::All),
        (
            "metadata",
            Keep::Members(&[("generation", Keep::All), ("annotations", Keep::All)]),
        ),
    ]);

    #[test]
    fn kept_members_are_whole_and_the_rest_is_left_out() {
        let object = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "generation": 3,
                         "labels": {"a": "b"}, "annotations": {"x": "y"}},
            "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c"}]}}},
            "status": {"replicas": 2, "conditions": [{"type": "Available"}]}
        });
        let kept = decode(object.to_string().as_bytes(), STATUS).unwrap();
        assert_eq!(
            kept,
            json!({
                "apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "shop", "generation": 3,
                             "annotations": {"x": "y"}},
                "status": {"replicas": 2, "conditions": [{"type": "Available"}]}
            })
        );
        assert_eq!(
            decode(object.to_string().as_bytes(), Keep::All).unwrap(),
            object
        );
    }

    #[rstest]
    // Values of any other type are kept whole where an object was expected.
    #[case(
        r#"{"metadata":"m","status":[1,{"a":{"b":2}}],"spec":1}"#,
        r#"{"metadata":"m","status":[1,{"a":{"b":2}}]}"#
    )]
    #[case(r#"[{"kind":"K","spec":{}},2]"#, r#"[{"kind":"K"},2]"#)]
    #[case(r#"null"#, r#"null"#)]
    #[case(r#"-1.5e3"#, r#"-1500.0"#)]
    // Escaped names are compared decoded; a repeated member keeps its last value.
    #[case(r#"{"st\u0061tus":{"x":1},"\u0073pec":{}}"#, r#"{"status":{"x":1}}"#)]
    #[case(r#"{"status":{"x":1},"status":{"y":2}}"#, r#"{"status":{"y":2}}"#)]
    #[case(
        r#"{"metadata":{"name":"n","uid":"u","namespace":null,"generation":1.0}}"#,
        r#"{"metadata":{"name":"n","namespace":null,"generation":1.0}}"#
    )]
    fn odd_shapes_are_kept_as_a_full_decode_reads_them(#[case] text: &str, #[case] want: &str) {
        let want: Value = serde_json::from_str(want).unwrap();
        assert_eq!(decode(text.as_bytes(), STATUS).unwrap(), want);
    }

    #[rstest]
    #[case(r#"{"spec":{"a":[1,}}"#)]
    #[case(r#"{"spec":"\x"}"#)]
    #[case(r#"{"status":{}} x"#)]
    #[case(r#"{"spec":{}"#)]
    #[case("{\"spec\":\"\u{1}\"}")]
    #[case(r#"{"spec":1e999}"#)]
    #[case(r#"{"spec":-}"#)]
    #[case(r#"{"spec":"\ud800"}"#)]
    #[case(r#"{"spec":01}"#)]
    #[case(r#"{"spec":tru}"#)]
    fn bad_json_is_refused_where_a_full_decode_refuses_it(#[case] text: &str) {
        let full = serde_json::from_slice::<Value>(text.as_bytes()).unwrap_err();
        let kept = decode(text.as_bytes(), STATUS).unwrap_err();
        assert_eq!(kept.to_string(), full.to_string());
        let whole = from_bytes::<Value>(text.as_bytes()).unwrap_err();
        assert_eq!(whole.to_string(), full.to_string());
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused_where_skipped() {
        let text = b"{\"spec\":\"\xff\"}";
        let full = serde_json::from_slice::<Value>(text).unwrap_err();
        let kept = decode(text, STATUS).unwrap_err();
        assert_eq!(kept.to_string(), full.to_string());
        let whole = from_bytes::<Value>(text).unwrap_err();
        assert_eq!(whole.to_string(), full.to_string());
    }
}
