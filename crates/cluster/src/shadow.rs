//! Shadow runs: customizations annotated
//! [`SHADOW_ANNOTATION`](karmada_interpreter::api::SHADOW_ANNOTATION) do
//! not answer. A call the live customization layer answers for a kind and
//! operation a shadow defines is copied (only then) onto a bounded queue;
//! a thread of its own runs the shadow on the copy after the live answer is
//! given, compares answers and errors, and records the result. A full
//! queue drops the copy (counted): the live call never waits, and nothing
//! the shadow does reaches the live answer.

use std::collections::{BTreeMap, VecDeque};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde_json::Value;

use karmada_interpreter::api::{
    AggregatedStatusItem, InterpreterOperation, ResourceInterpreterCustomization,
};
use karmada_interpreter::declarative::{Limits, LuaLayer};
use karmada_interpreter::interpreter::{InterpreterBuilder, Layer, Outcome, Request, TypeRef};
use karmada_interpreter::Interpreter;

use crate::Shared;

/// The chain without the cluster's customizations (the same layers below
/// them as the chain it is attached to): it answers the calls of a kind and
/// operation only a shadow defines, so that they can be compared. Built at
/// the first such call.
pub(crate) struct Baseline {
    chain: std::sync::OnceLock<Option<Interpreter>>,
    builder: Mutex<Option<InterpreterBuilder>>,
}

impl Baseline {
    pub(crate) fn new(builder: InterpreterBuilder) -> Self {
        Self {
            chain: std::sync::OnceLock::new(),
            builder: Mutex::new(Some(builder)),
        }
    }

    /// The chain (`None` when it does not build: then nothing is compared).
    pub(crate) fn get(&self) -> Option<&Interpreter> {
        self.chain
            .get_or_init(|| {
                let builder = lock(&self.builder).take()?;
                builder
                    .build()
                    .map_err(|e| tracing::warn!(error = %e, "the shadow baseline chain"))
                    .ok()
            })
            .as_ref()
    }
}

/// Copies waiting for the shadow thread, at most.
pub(crate) const QUEUE: usize = 256;
/// Examples of differences kept (the oldest go first).
pub(crate) const EXAMPLES: usize = 32;

/// The shadow customizations, as a layer, and what they define.
pub(crate) struct ShadowSet {
    layer: LuaLayer,
    /// (target apiVersion, kind, operation, shadow name).
    targets: Vec<(String, String, InterpreterOperation, String)>,
}

impl ShadowSet {
    pub(crate) fn empty(limits: Limits) -> Self {
        Self {
            layer: LuaLayer::empty(limits),
            targets: Vec::new(),
        }
    }

    /// The set of `shadows` (already accepted; the first by name answers a
    /// rule two of them define).
    pub(crate) fn new(
        shadows: Vec<ResourceInterpreterCustomization>,
        limits: Limits,
    ) -> karmada_interpreter::Result<Self> {
        let mut targets = Vec::new();
        for c in &shadows {
            for op in InterpreterOperation::ALL {
                let t = &c.spec.target;
                let seen = targets.iter().any(|(a, k, o, _): &(String, String, _, _)| {
                    *a == t.api_version && *k == t.kind && *o == op
                });
                if c.script(op).is_some() && !seen {
                    targets.push((
                        t.api_version.clone(),
                        t.kind.clone(),
                        op,
                        c.name().to_owned(),
                    ));
                }
            }
        }
        Ok(Self {
            layer: LuaLayer::customizations_with_limits(shadows, limits)?,
            targets,
        })
    }

    /// Whether a shadow defines `ty` and `operation`.
    pub(crate) fn serves_type(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> bool {
        self.targets.iter().any(|(api_version, kind, op, _)| {
            let same_version = match api_version.split_once('/') {
                Some((group, version)) => group == ty.group && version == ty.version,
                None => ty.group.is_empty() && api_version == ty.version,
            };
            *op == operation && kind == ty.kind && same_version
        })
    }

    /// Whether a shadow defines `request`'s kind and operation.
    pub(crate) fn serves(&self, request: &Request<'_>) -> bool {
        self.shadow_for(request).is_some()
    }

    /// The shadow defining `request`'s kind and operation, if any.
    fn shadow_for(&self, request: &Request<'_>) -> Option<&str> {
        if self.targets.is_empty() {
            return None;
        }
        let object = request.object();
        let text = |k| object.get(k).and_then(Value::as_str).unwrap_or("");
        let (api_version, kind, op) = (text("apiVersion"), text("kind"), request.operation());
        self.targets
            .iter()
            .find(|(a, k, o, _)| *a == api_version && *k == kind && *o == op)
            .map(|(_, _, _, name)| name.as_str())
    }
}

/// A request's inputs, owned, for the queue.
pub(crate) struct Captured {
    op: InterpreterOperation,
    object: Value,
    observed: Value,
    replicas: i64,
    items: Option<Vec<AggregatedStatusItem>>,
    #[cfg(feature = "karmada-next")]
    components: Option<Vec<karmada_interpreter::api::TargetComponent>>,
}

impl Captured {
    fn of(request: &Request<'_>) -> Self {
        let mut c = Self {
            op: request.operation(),
            object: request.object().clone(),
            observed: Value::Null,
            replicas: 0,
            items: None,
            #[cfg(feature = "karmada-next")]
            components: None,
        };
        match *request {
            Request::ReviseReplica { replicas, .. } => c.replicas = replicas,
            Request::Retain { observed, .. } => c.observed = observed.clone(),
            Request::AggregateStatus { items, .. } => c.items = items.map(<[_]>::to_vec),
            #[cfg(feature = "karmada-next")]
            Request::ReviseComponents { components, .. } => {
                c.components = components.map(<[_]>::to_vec);
            }
            _ => {}
        }
        c
    }

    fn request(&self) -> Request<'_> {
        use InterpreterOperation as Op;
        let object = &self.object;
        match self.op {
            Op::InterpretReplica => Request::InterpretReplica { object },
            Op::InterpretComponent => Request::InterpretComponent { object },
            Op::ReviseReplica => Request::ReviseReplica {
                object,
                replicas: self.replicas,
            },
            #[cfg(feature = "karmada-next")]
            Op::ReviseComponents => Request::ReviseComponents {
                object,
                components: self.components.as_deref(),
            },
            Op::Retain => Request::Retain {
                desired: object,
                observed: &self.observed,
            },
            Op::AggregateStatus => Request::AggregateStatus {
                object,
                items: self.items.as_deref(),
            },
            Op::InterpretStatus => Request::InterpretStatus { object },
            Op::InterpretHealth => Request::InterpretHealth { object },
            Op::InterpretDependency => Request::InterpretDependency { object },
        }
    }
}

/// One live call for the shadow thread.
pub(crate) struct Job {
    shadow: String,
    request: Captured,
    live: Result<Outcome, String>,
}

/// How one comparison came out (a metric label: a fixed set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ShadowResult {
    /// Same answer (or both failed).
    Same,
    /// Both answered, differently.
    AnswerDiffers,
    /// The shadow failed where the live one answered.
    ShadowFailed,
    /// The shadow answered where the live one failed.
    LiveFailed,
}

impl ShadowResult {
    /// The label value: `same`, `answer_differs`, `shadow_failed`, `live_failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Same => "same",
            Self::AnswerDiffers => "answer_differs",
            Self::ShadowFailed => "shadow_failed",
            Self::LiveFailed => "live_failed",
        }
    }
}

/// One difference, kept for people.
#[derive(Debug, Clone, PartialEq)]
pub struct ShadowExample {
    /// The shadow customization.
    pub shadow: String,
    /// The operation.
    pub operation: InterpreterOperation,
    /// `namespace/name` of the object (or its name).
    pub object: String,
    /// How it differed.
    pub result: ShadowResult,
    /// The live answer (JSON) or error.
    pub live: String,
    /// The shadow's answer (JSON) or error.
    pub shadow_answer: String,
}

/// [`ClusterConfig::shadow_report`](crate::ClusterConfig::shadow_report).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShadowReport {
    /// Comparisons by shadow, operation and result.
    pub counts: BTreeMap<(String, InterpreterOperation, ShadowResult), u64>,
    /// The last differences (at most 32), oldest first.
    pub examples: Vec<ShadowExample>,
    /// Copies dropped because the queue was full.
    pub dropped: u64,
}

/// What the shadow thread has found.
#[derive(Default)]
pub(crate) struct Findings {
    counts: BTreeMap<(String, InterpreterOperation, ShadowResult), u64>,
    examples: VecDeque<ShadowExample>,
    dropped: u64,
}

/// The hot path's side: copies calls a shadow serves onto the queue.
pub(crate) struct Tap {
    queue: SyncSender<Job>,
}

impl Tap {
    /// The queue, and the thread that empties it (it ends when the last
    /// reference to `shared` goes).
    pub(crate) fn start() -> (Self, Receiver<Job>) {
        let (queue, rx) = std::sync::mpsc::sync_channel(QUEUE);
        (Self { queue }, rx)
    }

    /// Before a live call: the copy to run the shadow on, when one serves.
    pub(crate) fn before(
        &self,
        shared: &Shared,
        request: &Request<'_>,
    ) -> Option<(String, Captured)> {
        let set = shared.shadows.load();
        let name = set.shadow_for(request)?;
        Some((name.to_owned(), Captured::of(request)))
    }

    /// After it: queue the comparison (dropped, and counted, when full).
    pub(crate) fn after(
        &self,
        shared: &Shared,
        copy: (String, Captured),
        live: Result<&Outcome, &karmada_interpreter::Error>,
    ) {
        let job = Job {
            shadow: copy.0,
            request: copy.1,
            live: live.cloned().map_err(|e| e.to_string()),
        };
        if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = self.queue.try_send(job)
        {
            lock(&shared.findings).dropped += 1;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The shadow thread: runs each job's shadow, compares, records.
pub(crate) fn run(rx: Receiver<Job>, shared: Weak<Shared>) {
    while let Ok(job) = rx.recv() {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        compare(&shared, job);
    }
}

fn compare(shared: &Arc<Shared>, job: Job) {
    let set = shared.shadows.load_full();
    let request = job.request.request();
    let shadow = set.layer.interpret(&request).map_err(|e| e.to_string());
    let result = match (&job.live, &shadow) {
        (Ok(a), Ok(b)) if a == b => ShadowResult::Same,
        (Err(_), Err(_)) => ShadowResult::Same,
        (Ok(_), Ok(_)) => ShadowResult::AnswerDiffers,
        (Ok(_), Err(_)) => ShadowResult::ShadowFailed,
        (Err(_), Ok(_)) => ShadowResult::LiveFailed,
    };
    let show = |r: &Result<Outcome, String>| match r {
        Ok(o) => outcome_json(o),
        Err(e) => format!("error: {e}"),
    };
    let example = (result != ShadowResult::Same).then(|| ShadowExample {
        shadow: job.shadow.clone(),
        operation: job.request.op,
        object: object_name(&job.request.object),
        result,
        live: show(&job.live),
        shadow_answer: show(&shadow),
    });
    {
        let mut f = lock(&shared.findings);
        *f.counts
            .entry((job.shadow.clone(), job.request.op, result))
            .or_default() += 1;
        if let Some(e) = &example {
            if f.examples.len() == EXAMPLES {
                f.examples.pop_front();
            }
            f.examples.push_back(e.clone());
        }
    }
    shared.shadow_compared(&job.shadow, example.as_ref());
}

/// An outcome for people (its JSON, or its debug form).
fn outcome_json(o: &Outcome) -> String {
    let value = match o {
        Outcome::Revised(v) | Outcome::Retained(v) | Outcome::Aggregated(v) => Some(v.clone()),
        #[cfg(feature = "karmada-next")]
        Outcome::ComponentsRevised(v) => Some(v.clone()),
        Outcome::Status(v) => Some(v.clone().unwrap_or(Value::Null)),
        Outcome::Healthy(b) => Some(Value::Bool(*b)),
        _ => None,
    };
    let text = value.map_or_else(|| format!("{o:?}"), |v| v.to_string());
    cut(text)
}

/// At most 512 bytes (examples stay small).
fn cut(mut text: String) -> String {
    if text.len() > 512 {
        let mut at = 509;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
        text.push_str("...");
    }
    text
}

fn object_name(object: &Value) -> String {
    let meta = |k| object.pointer(k).and_then(Value::as_str).unwrap_or("");
    match meta("/metadata/namespace") {
        "" => meta("/metadata/name").to_owned(),
        ns => format!("{ns}/{}", meta("/metadata/name")),
    }
}

impl Findings {
    pub(crate) fn report(&self) -> ShadowReport {
        ShadowReport {
            counts: self.counts.clone(),
            examples: self.examples.iter().cloned().collect(),
            dropped: self.dropped,
        }
    }

    /// (compared, differing) for one shadow.
    pub(crate) fn totals(&self, shadow: &str) -> (u64, u64) {
        self.counts
            .iter()
            .filter(|((s, _, _), _)| s == shadow)
            .fold((0, 0), |(all, diff), ((_, _, r), n)| {
                (
                    all + n,
                    diff + if *r == ShadowResult::Same { 0 } else { *n },
                )
            })
    }
}
