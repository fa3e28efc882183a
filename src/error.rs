//! The crate's error type.

use std::path::PathBuf;

use crate::api::InterpreterOperation;

/// Everything that can go wrong interpreting an object, loading configuration
/// or running golden cases. Every variant names what failed and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No layer of the chain serves this (kind, operation).
    #[error("{operation} is not served for {api_version}, Kind={kind}")]
    NotServed {
        /// apiVersion of the object.
        api_version: String,
        /// kind of the object.
        kind: String,
        /// The operation asked for.
        operation: InterpreterOperation,
    },

    /// The object does not have the shape the operation reads.
    #[error("{object}: field `{field}`: {reason}")]
    InvalidField {
        /// `Kind namespace/name` of the object.
        object: String,
        /// Dotted path of the offending field, e.g. `spec.replicas`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },

    /// An input to the operation is missing or malformed (not a field of the object).
    #[error("{operation}: invalid input: {reason}")]
    InvalidInput {
        /// The operation.
        operation: InterpreterOperation,
        /// What is wrong.
        reason: String,
    },

    /// An operation's inputs do not fit the operation (missing or extra objects).
    #[error(transparent)]
    Input(#[from] crate::interpreter::InputError),

    /// A Lua customization (declarative or thirdparty) failed; the source
    /// tells a timeout, a memory-limit hit, a sandbox refusal, a compile
    /// error and a runtime error apart.
    #[error("customization {customization:?}: {operation}: {source}")]
    Lua {
        /// Name of the customization (or bundled kind) whose script failed.
        customization: String,
        /// The operation.
        operation: InterpreterOperation,
        /// What failed, with the Lua message.
        #[source]
        source: crate::lua::ScriptError,
    },

    /// An interpreter webhook failed or answered badly.
    #[error("webhook {webhook:?}: {operation} on {object}: {source}")]
    Webhook {
        /// `<configuration>/<webhook>` identity.
        webhook: String,
        /// The operation.
        operation: InterpreterOperation,
        /// `Kind namespace/name` of the object.
        object: String,
        /// What went wrong (Karmada's reason text).
        #[source]
        source: crate::webhook::WebhookError,
    },

    /// A configuration document (customization, webhook configuration) is invalid.
    #[error("{source_name}: {message}")]
    Config {
        /// The file or object the configuration came from.
        source_name: String,
        /// What is wrong with it.
        message: String,
    },

    /// A golden case file could not be read or parsed.
    #[error("{}: {message}", file.display())]
    CaseFile {
        /// The case file.
        file: PathBuf,
        /// What is wrong, naming the case (document) when known.
        message: String,
    },

    /// A golden-case run found no case: it would check nothing.
    #[error("no golden case found in {}: case files are `*.yaml`/`*.yml` files (other than `customizations.yaml`) holding documents with an `operation`", searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    NoCases {
        /// The files and directories searched.
        searched: Vec<PathBuf>,
    },

    /// A command found nothing to check where it searched: it would pass
    /// while checking nothing.
    #[error("no {what} found in {searched}{hint}")]
    NothingFound {
        /// What was looked for (`ResourceInterpreterCustomization document`, ...).
        what: String,
        /// The inputs searched, comma-separated.
        searched: String,
        /// How to give the command something to check (`: ...`), or empty.
        hint: String,
    },

    /// A command-line input (`-f`, `--desired-file`, ...) could not be
    /// found, read or decoded.
    #[error("{what}: {source}")]
    Load {
        /// What was being loaded, e.g. `fail to get desired object`.
        what: String,
        /// Why it failed.
        #[source]
        source: crate::load::LoadError,
    },

    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<crate::k8s::ObjectError> for Error {
    /// The floor's errors as [`Error::InvalidField`], same message.
    fn from(e: crate::k8s::ObjectError) -> Self {
        Error::InvalidField {
            object: e.object().to_owned(),
            field: e.field_path().to_owned(),
            reason: e.reason(),
        }
    }
}
