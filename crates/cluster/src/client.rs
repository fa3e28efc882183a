//! Building a `kube::Client` from a kubeconfig or the in-cluster environment.

use std::path::PathBuf;

use kube::config::{KubeConfigOptions, Kubeconfig};

use crate::ClusterError;

/// Where the client's configuration comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientSource {
    /// A kubeconfig: `path` (default: `$KUBECONFIG`, then `~/.kube/config`)
    /// and `context` (default: its current context).
    Kubeconfig {
        /// The kubeconfig file.
        path: Option<PathBuf>,
        /// The context to use.
        context: Option<String>,
    },
    /// The pod's service account (`KUBERNETES_SERVICE_HOST`/`_PORT` and the
    /// mounted token and CA).
    InCluster,
}

/// A client for `source`.
pub async fn client_for(source: &ClientSource) -> Result<kube::Client, ClusterError> {
    let config = match source {
        ClientSource::InCluster => kube::Config::incluster().map_err(ClusterError::InCluster)?,
        ClientSource::Kubeconfig { path, context } => {
            let options = KubeConfigOptions {
                context: context.clone(),
                ..Default::default()
            };
            let fail = |source| ClusterError::Kubeconfig {
                path: path.clone(),
                source,
            };
            match path {
                Some(file) => {
                    let kubeconfig = Kubeconfig::read_from(file).map_err(fail)?;
                    kube::Config::from_custom_kubeconfig(kubeconfig, &options).await
                }
                None => kube::Config::from_kubeconfig(&options).await,
            }
            .map_err(fail)?
        }
    };
    kube::Client::try_from(config).map_err(|source| ClusterError::Api {
        what: "creating the client".into(),
        source,
    })
}
