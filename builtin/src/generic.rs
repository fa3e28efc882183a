//! Handlers shared by every kind: whole-status reflection.

use super::status::reflected_status;
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{Outcome, Request};

/// `status` absent → nothing reflected; present but not an object → error;
/// otherwise the whole status, verbatim.
pub(crate) fn reflect_whole_status(request: &Request<'_>) -> Result<Outcome> {
    let status = reflected_status(request.object())?;
    Ok(Outcome::Status(status.cloned()))
}
