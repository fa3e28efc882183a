//! [`Chain::interpret_json`]: the operations on inputs held as JSON text,
//! decoding of each object only what the handler serving it looks at.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use super::chain::Chain;
use super::layer::{Answer, Outcome, OwnedRequest};
use super::operation::Inputs;
#[cfg(feature = "karmada-next")]
use crate::api::TargetComponent;
use crate::api::{AggregatedStatusItem, InterpreterOperation};
use crate::error::{Error, InputError, JsonInput, ObjectInput, Result};
use crate::k8s::keep::{self, Keep, Text};
use crate::k8s::object::TypeRef;
use crate::k8s::written::Written;

/// The inputs of an operation as JSON text, for callers holding bytes (a
/// request body, a file): [`Inputs`] before decoding. Which inputs an
/// operation takes is [`Inputs::request`]'s rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonInputs<'a> {
    /// The desired object (resource template).
    pub desired: Option<&'a [u8]>,
    /// The observed (member-cluster) object.
    pub observed: Option<&'a [u8]>,
    /// `ReviseReplica`: the replica count to write.
    pub replicas: i64,
    /// `AggregateStatus`: the per-cluster statuses, a JSON list.
    pub status_items: Option<&'a [u8]>,
    /// `ReviseComponents` (the `karmada-next` profile): the per-component
    /// assignment, a JSON list.
    #[cfg(feature = "karmada-next")]
    pub components: Option<&'a [u8]>,
}

/// An editing operation's answer from [`Chain::edit_json`].
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    /// The edited object.
    pub object: Value,
    /// What the edit wrote ([`Written::unknown`] when the serving layer
    /// computed a new object).
    pub written: Written,
}

/// The error of JSON text of `input` that does not decode.
fn json_error(
    operation: InterpreterOperation,
    input: JsonInput,
) -> impl FnOnce(serde_json::Error) -> Error {
    move |source| Error::Json {
        operation,
        input,
        source,
    }
}

impl Chain {
    /// Runs `operation` on inputs held as JSON text.
    ///
    /// The answer is the one [`Chain::interpret`] gives for the decoded
    /// inputs, and bytes that do not decode are refused as a full decode
    /// refuses them ([`Error::Json`]). What differs is the cost: an object
    /// the operation only reads (the object of a reading operation, the
    /// observed object of `Retain`) is decoded only as far as the handler
    /// serving it looks ([`Layer::keeps`](super::Layer::keeps)), which for
    /// a few fields of a large object is most of the work saved.
    ///
    /// ```
    /// use karmada_interpreter::api::InterpreterOperation as Op;
    /// use karmada_interpreter::interpreter::{JsonInputs, Outcome};
    /// use karmada_interpreter::Interpreter;
    ///
    /// let chain = Interpreter::default();
    /// let desired = br#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{}}"#;
    /// let observed = br#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},
    ///                     "spec":{"clusterIP":"10.0.0.7","ports":[{"port":80}]}}"#;
    /// let inputs = JsonInputs { desired: Some(desired), observed: Some(observed), ..JsonInputs::default() };
    /// let Outcome::Retained(kept) = chain.interpret_json(Op::Retain, inputs).unwrap().value else {
    ///     unreachable!()
    /// };
    /// assert_eq!(kept["spec"]["clusterIP"], "10.0.0.7");
    ///
    /// let bad = JsonInputs { observed: Some(b"{\"kind\":"), ..JsonInputs::default() };
    /// let e = chain.interpret_json(Op::InterpretHealth, bad).unwrap_err();
    /// assert!(e.to_string().contains("observed object is not valid JSON"), "{e}");
    /// ```
    pub fn interpret_json(
        &self,
        operation: InterpreterOperation,
        inputs: JsonInputs<'_>,
    ) -> Result<Answer<Outcome>> {
        use InterpreterOperation as Op;
        if operation.is_edit() {
            let answer = self.edit_json(operation, inputs)?;
            return Ok(answer.map(|edited| match operation {
                Op::ReviseReplica => Outcome::Revised(edited.object),
                Op::Retain => Outcome::Retained(edited.object),
                #[cfg(feature = "karmada-next")]
                Op::ReviseComponents => Outcome::ComponentsRevised(edited.object),
                _ => Outcome::Aggregated(edited.object),
            }));
        }
        let read = |bytes: Option<&[u8]>, input| {
            bytes
                .map(|b| self.decode_read(b, operation))
                .transpose()
                .map_err(json_error(operation, JsonInput::Object(input)))
        };
        let desired = read(inputs.desired, ObjectInput::Desired)?;
        let observed = read(inputs.observed, ObjectInput::Observed)?;
        let request = Inputs {
            desired: desired.as_ref(),
            observed: observed.as_ref(),
            replicas: inputs.replicas,
            status_items: None,
            #[cfg(feature = "karmada-next")]
            components: None,
        }
        .request(operation)?;
        self.interpret(&request)
    }

    /// An editing operation (`ReviseReplica`, `Retain`, `AggregateStatus`)
    /// on inputs held as JSON text: the object decoded once and edited in
    /// place, handed back with what the edit wrote
    /// ([`Chain::edit_in_place`]). The observed object of `Retain`, which
    /// the edit only reads, is decoded only as far as the serving handler
    /// looks. A reading operation is refused ([`Error::InvalidInput`]).
    ///
    /// ```
    /// use karmada_interpreter::api::InterpreterOperation as Op;
    /// use karmada_interpreter::interpreter::JsonInputs;
    /// use karmada_interpreter::Interpreter;
    ///
    /// let chain = Interpreter::default();
    /// let deployment = br#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
    ///                       "spec":{"replicas":1}}"#;
    /// let inputs = JsonInputs { desired: Some(deployment), replicas: 4, ..JsonInputs::default() };
    /// let edited = chain.edit_json(Op::ReviseReplica, inputs).unwrap().value;
    /// assert_eq!(edited.object["spec"]["replicas"], 4);
    /// assert_eq!(edited.written.writes().unwrap()[0].pointer(), "/spec/replicas");
    /// ```
    pub fn edit_json(
        &self,
        operation: InterpreterOperation,
        inputs: JsonInputs<'_>,
    ) -> Result<Answer<Edited>> {
        use InterpreterOperation as Op;
        let full = |bytes: Option<&[u8]>, input: ObjectInput| {
            bytes
                .map(keep::from_bytes::<Value>)
                .transpose()
                .map_err(json_error(operation, JsonInput::Object(input)))
        };
        let desired = full(inputs.desired, ObjectInput::Desired)?;
        let observed = match operation {
            Op::Retain => {
                let keep = desired
                    .as_ref()
                    .and_then(|d| self.keeps(TypeRef::of(d), operation));
                inputs
                    .observed
                    .map(|b| keep::decode(b, keep.unwrap_or(Keep::All)))
                    .transpose()
                    .map_err(json_error(
                        operation,
                        JsonInput::Object(ObjectInput::Observed),
                    ))?
            }
            Op::ReviseReplica | Op::AggregateStatus => {
                full(inputs.observed, ObjectInput::Observed)?
            }
            #[cfg(feature = "karmada-next")]
            Op::ReviseComponents => full(inputs.observed, ObjectInput::Observed)?,
            _ => {
                return Err(Error::InvalidInput {
                    operation,
                    reason: "not an editing operation".to_owned(),
                })
            }
        };
        let items = inputs
            .status_items
            .map(keep::from_bytes::<Vec<AggregatedStatusItem>>)
            .transpose()
            .map_err(json_error(operation, JsonInput::StatusItems))?;
        #[cfg(feature = "karmada-next")]
        let components = inputs
            .components
            .map(keep::from_bytes::<Vec<TargetComponent>>)
            .transpose()
            .map_err(json_error(operation, JsonInput::Components))?;
        // The inputs' one rule (which are needed, which are extra).
        Inputs {
            desired: desired.as_ref(),
            observed: observed.as_ref(),
            replicas: inputs.replicas,
            status_items: items.as_deref(),
            #[cfg(feature = "karmada-next")]
            components: components.as_deref(),
        }
        .request(operation)?;
        // The object is handed over and edited in place (no copy).
        let missing = |input| InputError::Missing { operation, input };
        let request = match operation {
            Op::Retain => OwnedRequest::Retain {
                desired: desired.ok_or(missing(ObjectInput::Desired))?,
                observed: observed.as_ref().ok_or(missing(ObjectInput::Observed))?,
            },
            Op::ReviseReplica => OwnedRequest::ReviseReplica {
                object: desired
                    .or(observed)
                    .ok_or(InputError::NoObject { operation })?,
                replicas: inputs.replicas,
            },
            #[cfg(feature = "karmada-next")]
            Op::ReviseComponents => OwnedRequest::ReviseComponents {
                object: desired
                    .or(observed)
                    .ok_or(InputError::NoObject { operation })?,
                components: components.as_deref(),
            },
            _ => OwnedRequest::AggregateStatus {
                object: desired
                    .or(observed)
                    .ok_or(InputError::NoObject { operation })?,
                items: items.as_deref(),
            },
        };
        self.edit_owned_written(request)
    }

    /// Edits the object `request` hands over in place and hands it back
    /// with what the edit wrote.
    fn edit_owned_written(&self, mut request: OwnedRequest<'_>) -> Result<Answer<Edited>> {
        let answer = self.edit_in_place(request.lend())?;
        Ok(answer.map(|written| Edited {
            object: request.into_object(),
            written,
        }))
    }

    /// What the layer serving `operation` for `ty` looks at of the object
    /// it only reads; `None`: all of it (or no layer serves it).
    fn keeps(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Keep> {
        let (layer, route) = self.route(ty, operation)?;
        layer.keeps(route.entry)
    }

    /// The object of a reading operation, decoded as far as the handler
    /// serving it looks. The handler is chosen from the `apiVersion` and
    /// `kind` the text starts with, and checked against the decoded object:
    /// if the object turns out to be served otherwise (a member repeated
    /// further on, say), it is decoded whole.
    fn decode_read(
        &self,
        bytes: &[u8],
        operation: InterpreterOperation,
    ) -> serde_json::Result<Value> {
        let Some(keep) = leading_type(bytes).and_then(|(api_version, kind)| {
            self.keeps(TypeRef::new(&api_version, &kind), operation)
        }) else {
            return keep::from_bytes(bytes);
        };
        let object = keep::decode(bytes, keep)?;
        if self.keeps(TypeRef::of(&object), operation) == Some(keep) {
            Ok(object)
        } else {
            keep::from_bytes(bytes)
        }
    }
}

/// The `apiVersion` and `kind` of the object in `bytes`, read from its
/// members in order and no further than both (a guess, see
/// [`Chain::decode_read`]); `None` when the text does not start as an
/// object with both as strings.
fn leading_type(bytes: &[u8]) -> Option<(Cow<'_, str>, Cow<'_, str>)> {
    /// Collects both members, then stops the decoder with an error.
    struct Leading<'h, 'de>(&'h mut (Option<Cow<'de, str>>, Option<Cow<'de, str>>));

    impl<'de> Visitor<'de> for Leading<'_, 'de> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                match &*key {
                    "apiVersion" => self.0 .0 = Some(map.next_value::<Text<'de>>()?.0),
                    "kind" => self.0 .1 = Some(map.next_value::<Text<'de>>()?.0),
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                if self.0 .0.is_some() && self.0 .1.is_some() {
                    return Err(serde::de::Error::custom("both found"));
                }
            }
            Ok(())
        }
    }

    let mut found = (None, None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // The decoder is stopped once both are read: its error says nothing.
    let _ = (&mut de).deserialize_map(Leading(&mut found));
    match found {
        (Some(api_version), Some(kind)) => Some((api_version, kind)),
        _ => None,
    }
}
