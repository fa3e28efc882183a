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
//! With [`ClusterOptions::reporting`], each object's observed status
//! ([`ObjectStatus`]: accepted or rejected with `check`'s located reasons,
//! the rules that answer, who answers the others) is written back as the
//! [`STATUS_ANNOTATION`] and `events.k8s.io/v1` Events. A customization
//! annotated [`SHADOW_ANNOTATION`] does not answer: it runs beside the live
//! answers, off the calling thread, and is compared
//! ([`ClusterConfig::shadow_report`]).
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
mod observe;
mod report;
mod shadow;
mod state;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::watcher;

pub use client::{client_for, ClientSource};
pub use error::ClusterError;
use live::{LiveLayer, Snapshot};
pub use observe::{Condition, ObjectStatus, Overridden, ShadowSummary, STATUS_ANNOTATION};
pub use report::Reporting;
use report::{Note, Severity, Write};
use shadow::{Findings, ShadowSet, Tap};
pub use shadow::{ShadowExample, ShadowReport, ShadowResult};
use state::{KindState, Watched};

pub use karmada_interpreter::api::SHADOW_ANNOTATION;
use karmada_interpreter::api::{
    InterpreterOperation, ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
};
use karmada_interpreter::declarative::{Limits, LuaLayer};
use karmada_interpreter::interpreter::{InterpreterBuilder, Layer};
use karmada_interpreter::profile::Profile;
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
    /// Which Karmada the followed customizations' scripts follow (default
    /// [`Profile::Karmada`]): with [`Profile::KarmadaNext`] they may use
    /// `kube.parseFlinkMemory` and their `componentRevision` rules serve
    /// `ReviseComponents`, as in a chain built with
    /// [`InterpreterBuilder::profile`].
    pub profile: Profile,
    /// Called with every rejection and watch error (besides the log line).
    pub on_error: Option<ErrorCallback>,
    /// Write each object's observed status and Events to the cluster
    /// (docs/cluster.md, "Status and Events"). Default `None`: nothing is
    /// written, only read.
    pub reporting: Option<Reporting>,
    /// Composition (`InterpreterBuilder::composition`; default off,
    /// Karmada's answers): the cluster's customizations are merged as
    /// `LuaLayer::composed` merges them.
    pub composition: bool,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        Self {
            min_backoff: Duration::from_millis(800),
            max_backoff: Duration::from_secs(30),
            limits: Limits::default(),
            profile: Profile::default(),
            on_error: None,
            reporting: None,
            composition: false,
        }
    }
}

impl std::fmt::Debug for ClusterOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterOptions")
            .field("min_backoff", &self.min_backoff)
            .field("max_backoff", &self.max_backoff)
            .field("limits", &self.limits)
            .field("profile", &self.profile)
            .field("on_error", &self.on_error.is_some())
            .field("reporting", &self.reporting)
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
    /// Status and Event writes dropped because the writer's queue was full.
    pub dropped_reports: u64,
}

/// Script failures at run time of one customization's rule
/// ([`ClusterConfig::failures`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFailures {
    /// The customization.
    pub customization: String,
    /// The rule.
    pub operation: InterpreterOperation,
    /// Failures so far.
    pub count: u64,
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
    /// The shadow customizations.
    shadows: ArcSwap<ShadowSet>,
    /// Copies calls a shadow serves for the shadow thread.
    tap: Tap,
    /// What the shadow thread found.
    findings: Mutex<Findings>,
    /// Script failures by customization and rule.
    failures: Mutex<BTreeMap<(String, InterpreterOperation), u64>>,
    /// Each object's observed status, by kind and name.
    statuses: Mutex<BTreeMap<(&'static str, String), Observed>>,
    /// The writer's queue, when reporting.
    writes: Option<tokio::sync::mpsc::Sender<Write>>,
}

/// What is known of one object for its status and Events.
#[derive(Debug, Clone, Default)]
pub(crate) struct Observed {
    pub(crate) status: ObjectStatus,
    pub(crate) uid: Option<String>,
    /// The last rate-limited Event, and what happened since that is not in one.
    pub(crate) last_event: Option<Instant>,
    pub(crate) unreported: u64,
}

impl Shared {
    fn report(&self, error: &ClusterError) {
        tracing::warn!(error = %error, "interpreter configuration");
        if let Some(callback) = &self.options.on_error {
            callback(error);
        }
    }

    /// Queues a write (dropped and counted when the queue is full).
    pub(crate) fn write(&self, write: Write) {
        let Some(queue) = &self.writes else { return };
        if queue.try_send(write).is_err() {
            lock(&self.status).dropped_reports += 1;
        }
    }

    /// Counts a script failure of a live call, and writes an Event about
    /// it (rate-limited per customization).
    pub(crate) fn failed(&self, error: &karmada_interpreter::Error) {
        let karmada_interpreter::Error::Layer {
            what: "customization",
            name,
            operation,
            ..
        } = error
        else {
            return;
        };
        *lock(&self.failures)
            .entry((name.clone(), *operation))
            .or_default() += 1;
        self.limited(name, |n| Note {
            severity: Severity::Warning,
            reason: "InterpretationFailed",
            message: format!("{error}{}", since(n)),
        });
    }

    /// After a shadow comparison: the shadow's status, and an Event about
    /// a difference (rate-limited per object).
    pub(crate) fn shadow_compared(&self, shadow: &str, difference: Option<&ShadowExample>) {
        let (compared, differing) = lock(&self.findings).totals(shadow);
        let key = (ResourceInterpreterCustomization::KIND, shadow.to_owned());
        {
            let mut statuses = lock(&self.statuses);
            let Some(observed) = statuses.get_mut(&key) else {
                return;
            };
            let summary = observed
                .status
                .shadow
                .get_or_insert_with(ShadowSummary::default);
            summary.compared = compared;
            summary.differing = differing;
            if let Some(d) = difference {
                summary.last_difference = Some(describe(d));
            }
        }
        if let Some(d) = difference {
            self.limited(shadow, |n| Note {
                severity: Severity::Warning,
                reason: "ShadowDiffers",
                message: format!("{}{}", describe(d), since(n)),
            });
        }
    }

    /// Writes the Event `note` (and the status) about customization `name`
    /// unless one was written less than the interval ago (then it is
    /// counted for the next).
    fn limited(&self, name: &str, note: impl FnOnce(u64) -> Note) {
        let Some(reporting) = &self.options.reporting else {
            return;
        };
        let key = (ResourceInterpreterCustomization::KIND, name.to_owned());
        let write = {
            let mut statuses = lock(&self.statuses);
            let observed = statuses.entry(key).or_default();
            let now = Instant::now();
            let due = observed
                .last_event
                .is_none_or(|t| now.duration_since(t) >= reporting.event_interval);
            if !due {
                observed.unreported += 1;
                return;
            }
            let note = note(observed.unreported);
            observed.last_event = Some(now);
            observed.unreported = 0;
            Write {
                kind: ResourceInterpreterCustomization::KIND,
                name: name.to_owned(),
                uid: observed.uid.clone(),
                // Not before the object's status is known.
                annotation: (!observed.status.conditions.is_empty())
                    .then(|| serde_json::to_string(&observed.status).ok())
                    .flatten(),
                event: Some(note),
            }
        };
        self.write(write);
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The tail of a rate-limited Event: how many were not written before it.
fn since(unreported: u64) -> String {
    if unreported == 0 {
        String::new()
    } else {
        format!(" ({unreported} more since the last Event)")
    }
}

/// A shadow difference for people.
fn describe(d: &ShadowExample) -> String {
    format!(
        "{} on {}: {}: live {}, shadow {}",
        d.operation,
        d.object,
        d.result.as_str(),
        d.live,
        d.shadow_answer
    )
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
        let (tap, jobs) = Tap::start();
        let (writes, written) = match &options.reporting {
            Some(_) => {
                let (tx, rx) = tokio::sync::mpsc::channel(report::QUEUE);
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let reporting = options.reporting.clone();
        let shared = Arc::new(Shared {
            customizations: Arc::new(ArcSwap::from_pointee(Snapshot::new(
                LuaLayer::empty(limits).with_profile(options.profile),
            ))),
            webhooks: Arc::new(ArcSwap::from_pointee(Snapshot::new(WebhookLayer::empty()))),
            customization_objects: ArcSwap::default(),
            webhook_objects: ArcSwap::default(),
            status: Mutex::new(ClusterStatus::default()),
            changed: tokio::sync::watch::channel(0).0,
            options,
            shadows: ArcSwap::from_pointee(ShadowSet::empty(limits)),
            tap,
            findings: Mutex::default(),
            failures: Mutex::default(),
            statuses: Mutex::default(),
            writes,
        });
        let weak = Arc::downgrade(&shared);
        // Ends when the last reference to `shared` goes (its queue closes).
        std::thread::Builder::new()
            .name("karmada-interpreter-shadow".into())
            .spawn(move || shadow::run(jobs, weak))
            .ok();
        let mut tasks = vec![
            tokio::spawn(watch::<ResourceInterpreterCustomization>(
                client.clone(),
                shared.clone(),
            )),
            tokio::spawn(watch::<ResourceInterpreterWebhookConfiguration>(
                client.clone(),
                shared.clone(),
            )),
        ];
        if let (Some(reporting), Some(rx)) = (reporting, written) {
            tasks.push(tokio::spawn(report::run(
                client,
                reporting,
                rx,
                Arc::downgrade(&shared),
            )));
        }
        Self {
            shared,
            _tasks: Arc::new(Tasks(tasks)),
        }
    }

    /// The live declarative layer (for [`InterpreterBuilder::declarative_layer`]).
    /// A shadow is compared only where a live customization answers; see
    /// [`ClusterConfig::attach_comparing`] for the others.
    pub fn declarative_layer(&self) -> Arc<dyn Layer> {
        Arc::new(LiveLayer::watched(
            self.shared.customizations.clone(),
            self.shared.clone(),
            None,
        ))
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

    /// [`ClusterConfig::attach`], and a shadow for a kind and operation no
    /// live customization defines is compared with the answer of the layers
    /// below: `baseline` must be built as `builder` is (same layers and
    /// options); the cluster's webhooks and no customization replace its
    /// first two layers, and it is built at the first call only a shadow
    /// serves, which it then answers (as the chain would have).
    pub fn attach_comparing(
        &self,
        builder: InterpreterBuilder,
        baseline: InterpreterBuilder,
    ) -> InterpreterBuilder {
        let empty = LuaLayer::empty(self.shared.options.limits);
        let baseline = baseline
            .declarative_layer(Arc::new(empty))
            .webhook_layer(self.webhook_layer());
        let layer = LiveLayer::watched(
            self.shared.customizations.clone(),
            self.shared.clone(),
            Some(Arc::new(shadow::Baseline::new(baseline))),
        );
        builder
            .declarative_layer(Arc::new(layer))
            .webhook_layer(self.webhook_layer())
    }

    /// The whole chain: the cluster's customizations and webhooks, then the
    /// bundled and native layers (shadows compared with them too).
    pub fn interpreter(&self) -> karmada_interpreter::Result<Interpreter> {
        self.attach_comparing(Interpreter::builder(), Interpreter::builder())
            .build()
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

    /// The observed status of the object `name` of `kind`
    /// (`ResourceInterpreterCustomization` or
    /// `ResourceInterpreterWebhookConfiguration`), as written to its
    /// [`STATUS_ANNOTATION`] when reporting.
    pub fn object_status(&self, kind: &str, name: &str) -> Option<ObjectStatus> {
        lock(&self.shared.statuses)
            .iter()
            .find(|((k, n), _)| *k == kind && n == name)
            .map(|(_, o)| o.status.clone())
    }

    /// Script failures at run time so far, by customization and rule.
    pub fn failures(&self) -> Vec<RuleFailures> {
        lock(&self.shared.failures)
            .iter()
            .map(|((customization, operation), count)| RuleFailures {
                customization: customization.clone(),
                operation: *operation,
                count: *count,
            })
            .collect()
    }

    /// How the shadow customizations compared with the live ones so far.
    pub fn shadow_report(&self) -> ShadowReport {
        lock(&self.shared.findings).report()
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
