//! The webhook concern's errors: [`WebhookError`] for the client, the wire
//! format, TLS and the server, [`SdkError`] for what a handler decodes.
//! Each variant carries the text Karmada (or the reference SDK) uses, so
//! messages stay as the reference words them while callers match on the kind.

/// How talking to (or hosting) an interpreter webhook failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// The webhook's client settings cannot be used: its endpoint, its CA
    /// bundle, or no envelope version this client knows.
    #[error("{0}")]
    Config(String),
    /// Certificates or keys cannot be read or combined.
    #[error("{0}")]
    Tls(String),
    /// The request envelope cannot be built or encoded.
    #[error("{0}")]
    Request(String),
    /// The call failed: connection, TLS handshake, timeout, HTTP status or
    /// an oversized answer (Karmada's `failed calling webhook` reasons).
    #[error("{0}")]
    Call(String),
    /// The answer cannot be decoded or breaks the protocol (uid, status,
    /// result members, a patch that does not apply).
    #[error("{0}")]
    Response(String),
    /// The server cannot listen or stopped with an error.
    #[error("{0}")]
    Server(String),
    /// The build has no HTTPS client (feature `webhook` is off).
    #[error("this build has no HTTPS client: enable the `webhook` feature")]
    NoClient,
}

impl WebhookError {
    /// This failure as the chain reports it: [`karmada_interpreter_core::Error::Layer`] naming
    /// the webhook (`<configuration>/<webhook>`), the operation and the object.
    pub fn into_error(
        self,
        identity: &str,
        operation: karmada_interpreter_core::api::InterpreterOperation,
        object: &serde_json::Value,
    ) -> karmada_interpreter_core::Error {
        karmada_interpreter_core::Error::Layer {
            what: "webhook",
            name: identity.to_owned(),
            operation,
            object: Some(karmada_interpreter_core::interpreter::describe(object)),
            source: Box::new(self),
        }
    }
}

/// What a webhook handler cannot decode from a request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SdkError {
    /// The operation is not one of the eight.
    #[error("unsupported operation {0:?}")]
    UnsupportedOperation(String),
    /// The member to decode is absent or null.
    #[error("there is no content to decode")]
    NoContent,
    /// The member does not have the shape of the target type.
    #[error("{0}")]
    Decode(#[source] serde_json::Error),
}
