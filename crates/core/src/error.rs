//! The crate's error type.

use std::path::PathBuf;

use crate::api::InterpreterOperation;

/// Everything that can go wrong interpreting an object or configuring the
/// layers that interpret it. Every variant names what failed and where. What
/// runs on top of the chain (the golden runner, the cluster integration, the
/// CLI) has error types of its own.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// What was asked for belongs to a profile that is off or not compiled
    /// in (the `karmada-next` profile's `ReviseComponents`).
    #[error(transparent)]
    Profile(#[from] crate::profile::ProfileError),

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
    Input(#[from] InputError),

    /// An input given as JSON text ([`Chain::interpret_json`]) does not
    /// decode.
    ///
    /// [`Chain::interpret_json`]: crate::interpreter::Chain::interpret_json
    #[error("{operation}: the {input} is not valid JSON: {source}")]
    Json {
        /// The operation.
        operation: InterpreterOperation,
        /// Which input.
        input: JsonInput,
        /// The decoder's error (with its line and column).
        #[source]
        source: serde_json::Error,
    },

    /// A layer failed to answer: a customization's script (declarative or
    /// thirdparty layer) or an interpreter webhook. The layer's own typed
    /// error is the `source` (the declarative crate's `ScriptFailure`, the
    /// webhook crate's `WebhookError`); [`Error::source_of`] finds it, and
    /// [`Error::deadline_exceeded`] tells a run that ran out of time.
    #[error("{what} {name:?}: {operation}{}: {source}", object.as_ref().map(|o| format!(" on {o}")).unwrap_or_default())]
    Layer {
        /// What in the layer failed, as people call it: `customization`,
        /// `webhook`, `health check`.
        what: &'static str,
        /// Its name: the customization's (or bundled kind's), the webhook's
        /// `<configuration>/<webhook>`.
        name: String,
        /// The operation.
        operation: InterpreterOperation,
        /// `Kind namespace/name` of the object, where the layer names it.
        object: Option<String>,
        /// The layer's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },

    /// A layer could not be set up from what it was given (a folder of
    /// health checks that cannot be read, ...): the layer's own error is the
    /// `source`.
    #[error("{what}: {source}")]
    Setup {
        /// What was being set up, e.g. `health checks`.
        what: &'static str,
        /// The layer's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },

    /// A configuration document (customization, webhook configuration) is invalid.
    #[error("{source_name}: {message}")]
    Config {
        /// The file or object the configuration came from.
        source_name: String,
        /// What is wrong with it.
        message: String,
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

impl Error {
    /// [`Error::NotServed`] for `object` (its own `apiVersion` and `kind`,
    /// empty when absent or not a string) and `operation`.
    pub fn not_served(object: &serde_json::Value, operation: InterpreterOperation) -> Self {
        let field = |key: &str| {
            object
                .get(key)
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Error::NotServed {
            api_version: field("apiVersion"),
            kind: field("kind"),
            operation,
        }
    }

    /// The first error of type `E` in this error's chain of sources: a
    /// layer's typed error behind [`Error::Layer`], an I/O error, ...
    ///
    /// ```
    /// use karmada_interpreter_core::{api::InterpreterOperation, Error};
    ///
    /// let io = std::io::Error::other("refused");
    /// let error = Error::Layer {
    ///     what: "webhook",
    ///     name: "a/b".into(),
    ///     operation: InterpreterOperation::InterpretHealth,
    ///     object: None,
    ///     source: Box::new(io),
    /// };
    /// assert!(error.source_of::<std::io::Error>().is_some());
    /// assert_eq!(error.to_string(), "webhook \"a/b\": InterpretHealth: refused");
    /// ```
    pub fn source_of<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.sources().find_map(|e| e.downcast_ref::<E>())
    }

    /// Whether a layer's run failed because it ran out of time (a script's
    /// deadline, which the layer marks with [`DeadlineExceeded`] among the
    /// error's sources).
    pub fn deadline_exceeded(&self) -> bool {
        self.source_of::<DeadlineExceeded>().is_some()
    }

    /// This error's chain of sources, nearest first.
    fn sources(&self) -> impl Iterator<Item = &(dyn std::error::Error + 'static)> {
        std::iter::successors(std::error::Error::source(self), |e| e.source())
    }
}

/// The mark of a run that ran out of time, found among an error's sources
/// ([`Error::deadline_exceeded`]); it reads as Karmada's text for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("context deadline exceeded")]
pub struct DeadlineExceeded;

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

/// An operation's inputs do not fit the operation. Worded neutrally: each
/// front end may render the variant in its own terms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// `Retain` needs both objects; this one is missing.
    #[error("{operation} needs the {input}, which is missing")]
    Missing {
        /// The operation.
        operation: crate::api::InterpreterOperation,
        /// The missing input.
        input: ObjectInput,
    },
    /// Every operation but `Retain` needs one object; none was given.
    #[error("{operation} needs a desired or an observed object; neither is given")]
    NoObject {
        /// The operation.
        operation: crate::api::InterpreterOperation,
    },
    /// Every operation but `Retain` takes exactly one object; both were given.
    #[error("{operation} takes exactly one of the desired and the observed object, not both")]
    BothObjects {
        /// The operation.
        operation: crate::api::InterpreterOperation,
    },
}

/// An input of [`Chain::interpret_json`](crate::interpreter::Chain::interpret_json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonInput {
    /// One of the objects.
    Object(ObjectInput),
    /// The status items of `AggregateStatus`.
    StatusItems,
    /// The component assignment of `ReviseComponents` (the `karmada-next` profile).
    #[cfg(feature = "karmada-next")]
    Components,
}

impl std::fmt::Display for JsonInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Object(input) => input.fmt(f),
            Self::StatusItems => f.write_str("status items list"),
            #[cfg(feature = "karmada-next")]
            Self::Components => f.write_str("components list"),
        }
    }
}

/// The two object inputs of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectInput {
    /// The resource template / the manifest about to be applied.
    Desired,
    /// The live object in the member cluster.
    Observed,
}

impl std::fmt::Display for ObjectInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Desired => "desired object",
            Self::Observed => "observed object",
        })
    }
}
