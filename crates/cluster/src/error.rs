//! What can go wrong following a cluster.

use std::time::Duration;

use karmada_interpreter::declarative::validate::Denial;
use karmada_interpreter::webhook::ValidationErrors;
use kube::runtime::watcher;

/// What went wrong following the cluster.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// An object does not decode as its kind.
    #[error("{kind} {name:?} is rejected: it does not decode: {source}")]
    Decode {
        /// The object's kind.
        kind: &'static str,
        /// `metadata.name`.
        name: String,
        /// The decoding error (names the field).
        #[source]
        source: serde_json::Error,
    },
    /// A customization misses `spec.target.apiVersion` or `spec.target.kind`.
    #[error("ResourceInterpreterCustomization {name:?} is rejected: field `{field}` is required")]
    MissingTarget {
        /// `metadata.name`.
        name: String,
        /// The missing field.
        field: &'static str,
    },
    /// A customization's script does not compile.
    #[error("ResourceInterpreterCustomization {name:?} is rejected: {source}")]
    InvalidCustomization {
        /// `metadata.name`.
        name: String,
        /// Why admission would deny it.
        #[source]
        source: Denial,
    },
    /// An object fails the check `check` and admission make (each reason
    /// located at its script line).
    #[error("{kind} {name:?} is rejected: {}", reasons.join("; "))]
    Rejected {
        /// The object's kind.
        kind: &'static str,
        /// `metadata.name`.
        name: String,
        /// Each problem, for people.
        reasons: Vec<String>,
    },
    /// A webhook configuration fails validation.
    #[error("ResourceInterpreterWebhookConfiguration {name:?} is rejected: {source}")]
    InvalidWebhookConfiguration {
        /// `metadata.name`.
        name: String,
        /// The field errors.
        #[source]
        source: ValidationErrors,
    },
    /// Building a layer from the accepted objects failed.
    #[error("cannot build the {kind} layer: {source}")]
    Layer {
        /// The kind whose layer failed.
        kind: &'static str,
        /// The chain's error.
        #[source]
        source: karmada_interpreter::Error,
    },
    /// The watch failed (it is retried with back-off; the last good state serves).
    #[error("watching {kind}s: {source}")]
    Watch {
        /// The watched kind.
        kind: &'static str,
        /// The watcher's error.
        #[source]
        source: watcher::Error,
    },
    /// The first list of both kinds did not complete in time.
    #[error("the first list of interpreter configuration did not complete in {0:?}")]
    SyncTimeout(Duration),
    /// [`ClusterConfig::wait_for`](crate::ClusterConfig::wait_for)'s condition did not hold in time.
    #[error("the awaited cluster state was not reached in {0:?}")]
    Timeout(Duration),
    /// A kubeconfig could not be read or used.
    #[error("kubeconfig {}: {source}", path.as_ref().map_or_else(|| "(default)".to_owned(), |p| p.display().to_string()))]
    Kubeconfig {
        /// The file, when one was named.
        path: Option<std::path::PathBuf>,
        /// What is wrong with it.
        #[source]
        source: kube::config::KubeconfigError,
    },
    /// The in-cluster configuration (service account) could not be read.
    #[error("in-cluster configuration: {0}")]
    InCluster(#[source] kube::config::InClusterError),
    /// A call to the API server failed.
    #[error("{what}: {source}")]
    Api {
        /// What was asked.
        what: String,
        /// The client's error.
        #[source]
        source: kube::Error,
    },
}
