//! `--profile`: which Karmada the answers follow, for every command.
//!
//! `karmada` (the default) is Karmada's released code; `karmada-next` adds
//! Karmada's open pull requests #7830 (`ReviseComponents`), #7846 and #7537
//! and needs a binary built with the cargo feature `karmada-next`
//! (docs/profiles.md).

use std::sync::OnceLock;

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::profile::Profile;

use crate::error::{Error, Result};

static PROFILE: OnceLock<Profile> = OnceLock::new();

/// Parses `--profile`'s value: a profile this build can follow.
pub fn parse(value: &str) -> std::result::Result<Profile, String> {
    value
        .parse::<Profile>()
        .and_then(Profile::available)
        .map_err(|e| e.to_string())
}

/// Records the command line's profile (once, before the command runs).
pub fn set(profile: Profile) {
    let _ = PROFILE.set(profile);
}

/// The command line's profile.
pub fn current() -> Profile {
    PROFILE.get().copied().unwrap_or_default()
}

/// `--operation NAME` under the current profile: an unknown name, or an
/// operation of a profile that is off or not compiled in, is a usage error
/// naming the profile.
pub fn operation(name: &str) -> Result<InterpreterOperation> {
    InterpreterOperation::parse_case_insensitive(name)
        .map_err(|e| Error::usage("--operation", e))
        .and_then(|op| {
            current()
                .admit(op)
                .map_err(|e| Error::usage("--operation", e))
        })
}
