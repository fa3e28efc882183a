//! `--kubeconfig`, `--context`, `--in-cluster`: read the configuration
//! objects from a Karmada control plane.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::error::Error;
use karmada_interpreter_cluster::{
    client_for, ClientSource, ClusterConfig, ClusterError, ClusterOptions, Reporting,
};

/// Where to read ResourceInterpreterCustomizations and
/// ResourceInterpreterWebhookConfigurations from, besides files.
#[derive(Debug, Clone, clap::Args)]
pub struct ClusterArgs {
    /// Read the customizations and webhook configurations of the Karmada
    /// control plane this kubeconfig points at.
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use (with the default kubeconfig —
    /// $KUBECONFIG or ~/.kube/config — when --kubeconfig is not given).
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// Use the pod's service account to reach the control plane.
    #[arg(long, conflicts_with_all = ["kubeconfig", "context"])]
    in_cluster: bool,
    /// How long to wait for the first list of both kinds.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    sync_timeout: u64,
    /// Limits of the cluster's customization scripts (`serve --timeout`).
    #[arg(skip)]
    pub lua_limits: Option<karmada_interpreter::declarative::Limits>,
    /// What to write back to the cluster (`serve --report`).
    #[arg(skip)]
    pub reporting: Option<Reporting>,
}

/// `serve --report`: what is written to the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Report {
    /// The status annotation and Events (RBAC: patch on both kinds, create events).
    All,
    /// Events only (RBAC: create events).
    Events,
}

impl Report {
    /// The cluster crate's options for it.
    pub fn reporting(self, event_interval: Duration) -> Reporting {
        Reporting {
            annotate: self == Self::All,
            events: true,
            instance: std::env::var("POD_NAME").ok(),
            event_interval,
            ..Reporting::default()
        }
    }
}

pub fn runtime() -> crate::error::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Start {
            what: "the runtime",
            source: Box::new(e),
        })
}

impl ClusterArgs {
    /// The client source, when a cluster was asked for.
    pub fn source(&self) -> Option<ClientSource> {
        if self.in_cluster {
            return Some(ClientSource::InCluster);
        }
        if self.kubeconfig.is_none() && self.context.is_none() {
            return None;
        }
        Some(ClientSource::Kubeconfig {
            path: self.kubeconfig.clone(),
            context: self.context.clone(),
        })
    }

    /// A client, when a cluster was asked for.
    pub async fn client(&self) -> crate::error::Result<Option<kube::Client>> {
        match self.source() {
            None => Ok(None),
            Some(source) => client_for(&source).await.map(Some).map_err(Error::from),
        }
    }

    /// Starts following the cluster (on `runtime`) and waits for the first
    /// list; rejected objects are reported on stderr.
    pub fn start(
        &self,
        runtime: &tokio::runtime::Runtime,
    ) -> crate::error::Result<Option<ClusterConfig>> {
        runtime.block_on(async {
            let Some(client) = self.client().await? else {
                return Ok(None);
            };
            // Every rejection and watch error, as it happens.
            let options = ClusterOptions {
                on_error: Some(Arc::new(|e: &ClusterError| eprintln!("cluster: {e}"))),
                limits: self.lua_limits.unwrap_or_default(),
                reporting: self.reporting.clone(),
                profile: crate::profile::current(),
                composition: crate::composition::on(),
                ..ClusterOptions::default()
            };
            let cluster = ClusterConfig::start_with(client, options);
            cluster
                .wait_synced(Duration::from_secs(self.sync_timeout))
                .await
                .map_err(Error::from)?;
            let status = cluster.status();
            for (kind, s) in [
                ("ResourceInterpreterCustomization", &status.customizations),
                ("ResourceInterpreterWebhookConfiguration", &status.webhooks),
            ] {
                eprintln!(
                    "cluster: {} {kind}(s) serving, {} rejected",
                    s.serving.len(),
                    s.rejected.len()
                );
            }
            Ok(Some(cluster))
        })
    }
}

/// `serve`'s `/debug/shadow` page: the comparisons by shadow, operation and
/// result, the last differences (oldest first) and the copies dropped.
pub fn shadow_json(report: &karmada_interpreter_cluster::ShadowReport) -> Vec<u8> {
    let counts: Vec<serde_json::Value> = report
        .counts
        .iter()
        .map(|((customization, operation, result), count)| {
            serde_json::json!({"customization": customization, "operation": operation.to_string(),
                               "result": result.as_str(), "count": count})
        })
        .collect();
    let examples: Vec<serde_json::Value> = report
        .examples
        .iter()
        .map(|e| {
            serde_json::json!({"customization": e.shadow, "operation": e.operation.to_string(),
                               "object": e.object, "result": e.result.as_str(),
                               "live": e.live, "shadow": e.shadow_answer})
        })
        .collect();
    let page =
        serde_json::json!({"counts": counts, "examples": examples, "dropped": report.dropped});
    serde_json::to_vec_pretty(&page).unwrap_or_default()
}
