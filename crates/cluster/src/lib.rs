//! Cluster integration: the chain's declarative and webhook layers follow the
//! `ResourceInterpreterCustomization` and
//! `ResourceInterpreterWebhookConfiguration` objects of a Karmada control
//! plane.
//!
//! [`ClusterConfig::start`] lists and watches both kinds with kube-runtime's
//! watcher (re-listing and re-watching with exponential back-off when the
//! connection is lost). Every accepted change is published as a fresh
//! immutable layer behind an atomic pointer: a call in flight keeps the
//! snapshot it started with and never waits for the watcher, the next call
//! sees the change.
//!
//! An object that does not decode, fails validation or holds a script that
//! does not compile is *rejected*: it is reported (a [`ClusterError`] passed
//! to [`ClusterOptions::on_error`], a `tracing` warning, and
//! [`KindStatus::rejected`] in [`ClusterStatus`]) and the last good version
//! of that object (if any) keeps serving; the other objects are not affected.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use karmada_interpreter_cluster::ClusterConfig;
//!
//! let client = kube::Client::try_default().await?;
//! let cluster = ClusterConfig::start(client);
//! cluster.wait_synced(std::time::Duration::from_secs(30)).await?;
//! let chain = cluster.interpreter()?;
//! let deployment = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!     "metadata": {"name": "web"}, "spec": {"replicas": 3}});
//! println!("{:?}", chain.get_replicas(&deployment)?.value.replicas);
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod capture;
mod client;
mod error;
mod live;
mod state;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use arc_swap::ArcSwap;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::watcher;

pub use client::{client_for, ClientSource};
pub use error::ClusterError;
use live::{LiveLayer, Snapshot};
use state::{KindState, Watched};

use karmada_interpreter::api::{
    ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
};
use karmada_interpreter::declarative::{Limits, LuaLayer};
use karmada_interpreter::interpreter::{InterpreterBuilder, Layer};
use karmada_interpreter::webhook::WebhookLayer;
use karmada_interpreter::Interpreter;

/// A callback that receives every [`ClusterError`] as it happens.
pub type ErrorCallback = Arc<dyn Fn(&ClusterError) + Send + Sync>;

/// How [`ClusterConfig`] watches.
#[derive(Clone)]
pub struct ClusterOptions {
    /// First delay before retrying a failed watch or list (doubles up to
    /// [`ClusterOptions::max_backoff`], with jitter). Default 800 ms.
    pub min_backoff: Duration,
    /// Longest delay between retries. Default 30 s.
    pub max_backoff: Duration,
    /// Limits for the customizations' Lua scripts.
    pub limits: Limits,
    /// Called with every rejection and watch error (besides the log line).
    pub on_error: Option<ErrorCallback>,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        Self {
            min_backoff: Duration::from_millis(800),
            max_backoff: Duration::from_secs(30),
            limits: Limits::default(),
            on_error: None,
        }
    }
}

impl std::fmt::Debug for ClusterOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterOptions")
            .field("min_backoff", &self.min_backoff)
            .field("max_backoff", &self.max_backoff)
            .field("limits", &self.limits)
            .field("on_error", &self.on_error.is_some())
            .finish()
    }
}

/// What one watched kind looks like now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KindStatus {
    /// The first complete list has been applied.
    pub synced: bool,
    /// The last thing the watch reported was an event, not an error.
    pub connected: bool,
    /// Names of the objects serving (accepted, or the last good version of
    /// a rejected update), sorted.
    pub serving: Vec<String>,
    /// Objects whose current version is rejected, with the reason, sorted by name.
    pub rejected: Vec<(String, String)>,
    /// Watch events and errors handled so far.
    pub events: u64,
}

/// [`ClusterConfig::status`]: both kinds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterStatus {
    /// `ResourceInterpreterCustomization`s.
    pub customizations: KindStatus,
    /// `ResourceInterpreterWebhookConfiguration`s.
    pub webhooks: KindStatus,
}

/// What the watcher tasks share with the layers and the handle.
pub(crate) struct Shared {
    customizations: Arc<ArcSwap<Snapshot<LuaLayer>>>,
    webhooks: Arc<ArcSwap<Snapshot<WebhookLayer>>>,
    /// The objects the two layers were built from.
    customization_objects: ArcSwap<Vec<ResourceInterpreterCustomization>>,
    webhook_objects: ArcSwap<Vec<ResourceInterpreterWebhookConfiguration>>,
    status: Mutex<ClusterStatus>,
    changed: tokio::sync::watch::Sender<u64>,
    options: ClusterOptions,
}

impl Shared {
    fn report(&self, error: &ClusterError) {
        tracing::warn!(error = %error, "interpreter configuration");
        if let Some(callback) = &self.options.on_error {
            callback(error);
        }
    }

    fn update_status(&self, kind: &str, f: impl FnOnce(&mut KindStatus)) {
        {
            let mut status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
            let entry = if kind == ResourceInterpreterCustomization::KIND {
                &mut status.customizations
            } else {
                &mut status.webhooks
            };
            entry.events += 1;
            f(entry);
        }
        self.changed.send_modify(|g| *g += 1);
    }
}

/// Aborts the watcher tasks when the last handle goes.
struct Tasks(Vec<tokio::task::JoinHandle<()>>);

impl Drop for Tasks {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

/// The cluster-backed configuration: live declarative and webhook layers.
///
/// Cloning is cheap; the watchers stop when the last clone is dropped (the
/// layers handed out keep serving the last state they saw).
#[derive(Clone)]
pub struct ClusterConfig {
    shared: Arc<Shared>,
    _tasks: Arc<Tasks>,
}

impl std::fmt::Debug for ClusterConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterConfig")
            .field("status", &self.status())
            .finish()
    }
}

impl ClusterConfig {
    /// Starts watching with default options. Must be called inside a Tokio
    /// runtime (the watchers are spawned on it).
    pub fn start(client: kube::Client) -> Self {
        Self::start_with(client, ClusterOptions::default())
    }

    /// Starts watching with `options`.
    pub fn start_with(client: kube::Client, options: ClusterOptions) -> Self {
        let limits = options.limits;
        let shared = Arc::new(Shared {
            customizations: Arc::new(ArcSwap::from_pointee(Snapshot::new(LuaLayer::empty(
                limits,
            )))),
            webhooks: Arc::new(ArcSwap::from_pointee(Snapshot::new(WebhookLayer::empty()))),
            customization_objects: ArcSwap::default(),
            webhook_objects: ArcSwap::default(),
            status: Mutex::new(ClusterStatus::default()),
            changed: tokio::sync::watch::channel(0).0,
            options,
        });
        let tasks = vec![
            tokio::spawn(watch::<ResourceInterpreterCustomization>(
                client.clone(),
                shared.clone(),
            )),
            tokio::spawn(watch::<ResourceInterpreterWebhookConfiguration>(
                client,
                shared.clone(),
            )),
        ];
        Self {
            shared,
            _tasks: Arc::new(Tasks(tasks)),
        }
    }

    /// The live declarative layer (for [`InterpreterBuilder::declarative_layer`]).
    pub fn declarative_layer(&self) -> Arc<dyn Layer> {
        Arc::new(LiveLayer::new(self.shared.customizations.clone()))
    }

    /// The live webhook layer (for [`InterpreterBuilder::webhook_layer`]).
    pub fn webhook_layer(&self) -> Arc<dyn Layer> {
        Arc::new(LiveLayer::new(self.shared.webhooks.clone()))
    }

    /// `builder` with its declarative and webhook layers following the cluster.
    pub fn attach(&self, builder: InterpreterBuilder) -> InterpreterBuilder {
        builder
            .declarative_layer(self.declarative_layer())
            .webhook_layer(self.webhook_layer())
    }

    /// The whole chain: the cluster's customizations and webhooks, then the
    /// bundled and native layers.
    pub fn interpreter(&self) -> karmada_interpreter::Result<Interpreter> {
        self.attach(Interpreter::builder()).build()
    }

    /// The customizations serving now (accepted, or the last good version
    /// of a rejected update), in name order.
    pub fn customizations(&self) -> Arc<Vec<ResourceInterpreterCustomization>> {
        self.shared.customization_objects.load_full()
    }

    /// The webhook configurations serving now, in name order.
    pub fn webhook_configurations(&self) -> Arc<Vec<ResourceInterpreterWebhookConfiguration>> {
        self.shared.webhook_objects.load_full()
    }

    /// Where both watchers are.
    pub fn status(&self) -> ClusterStatus {
        self.shared
            .status
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A counter bumped after every handled watch event or error.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.shared.changed.subscribe()
    }

    /// Waits until both kinds have been listed once (the state every later
    /// call starts from), or fails after `timeout`.
    pub async fn wait_synced(&self, timeout: Duration) -> Result<(), ClusterError> {
        self.wait_for(timeout, |s| s.customizations.synced && s.webhooks.synced)
            .await
            .map_err(|_| ClusterError::SyncTimeout(timeout))
    }

    /// Waits until `ready` holds for the status, or fails after `timeout`.
    pub async fn wait_for(
        &self,
        timeout: Duration,
        ready: impl Fn(&ClusterStatus) -> bool,
    ) -> Result<(), ClusterError> {
        let mut rx = self.subscribe();
        let wait = async {
            loop {
                if ready(&self.status()) {
                    return;
                }
                if rx.changed().await.is_err() {
                    // The sender lives in `shared`, which we hold.
                    std::future::pending::<()>().await;
                }
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .map_err(|_| ClusterError::Timeout(timeout))
    }
}

/// Lists every object of `K` once (no watch), for one-shot commands.
pub async fn list_raw<K>(client: kube::Client) -> Result<Vec<DynamicObject>, ClusterError>
where
    K: kube::Resource<DynamicType = ()>,
{
    let resource = ApiResource::erase::<K>(&());
    let api: Api<DynamicObject> = Api::all_with(client, &resource);
    let list = api
        .list(&Default::default())
        .await
        .map_err(|source| ClusterError::Api {
            what: format!("listing {}", resource.plural),
            source,
        })?;
    Ok(list
        .items
        .into_iter()
        .map(|mut o| {
            if o.types.is_none() {
                o.types = Some(kube::api::TypeMeta {
                    api_version: resource.api_version.clone(),
                    kind: resource.kind.clone(),
                });
            }
            o
        })
        .collect())
}

/// One watcher: decode, validate, keep the last good version per name, publish.
async fn watch<K: Watched>(client: kube::Client, shared: Arc<Shared>) {
    use futures::StreamExt;
    use kube::runtime::utils::ResetTimerBackoff;
    use kube::runtime::watcher::ExponentialBackoff;
    use kube::runtime::WatchStreamExt;

    let api: Api<DynamicObject> = Api::all_with(client, &ApiResource::erase::<K>(&()));
    let exponential = backon::ExponentialBuilder::default()
        .with_min_delay(shared.options.min_backoff)
        .with_max_delay(shared.options.max_backoff)
        .with_factor(2.0)
        .with_jitter()
        .without_max_times();
    // Back to the first delay after two minutes without errors.
    let backoff = ResetTimerBackoff::new(
        ExponentialBackoff::from(exponential),
        Duration::from_secs(120),
    );
    let mut events = watcher::watcher(api, watcher::Config::default())
        .backoff(backoff)
        .boxed();
    let mut state = KindState::<K>::default();
    while let Some(item) = events.next().await {
        match item {
            Ok(event) => state.handle(event, &shared),
            Err(source) => {
                shared.report(&ClusterError::Watch {
                    kind: K::KIND,
                    source,
                });
                shared.update_status(K::KIND, |s| s.connected = false);
            }
        }
    }
}
