//! Handlers shared by every kind: whole-status reflection (`native-builtins.md` §8.10).

use crate::error::{Error, Result};
use crate::interpreter::{describe, Outcome, Request};
use serde_json::Value;

/// `status` absent → nothing reflected; present but not an object → error;
/// otherwise the whole status, verbatim.
pub(crate) fn reflect_whole_status(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    match object.get("status") {
        None => Ok(Outcome::Status(None)),
        Some(status @ Value::Object(_)) => Ok(Outcome::Status(Some(status.clone()))),
        Some(other) => Err(Error::InvalidField {
            object: describe(object),
            field: "status".to_owned(),
            reason: format!("expected an object, got {other}"),
        }),
    }
}
