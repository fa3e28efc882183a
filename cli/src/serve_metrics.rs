//! `serve`'s operability: the request log (`tracing` events written as text
//! or JSON lines through a buffer a thread of its own flushes every 100 ms)
//! and the Prometheus metrics behind `/metrics` (`prometheus-client`).

use std::io::Write;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use karmada_interpreter::webhook::admission::{AdmissionHandler, AdmissionRequest, Ruling};
use karmada_interpreter::webhook::server::{KindLabel, Observer, RequestRecord};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// `--log-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `2026-01-01T00:00:00.000000Z  INFO request: path=... operation=...`
    Text,
    /// One JSON object a line: `{"timestamp":...,"level":"INFO","fields":{...}}`.
    Json,
}

/// `--log-level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogLevel {
    /// Nothing.
    Off,
    /// Failures of the cluster watchers.
    Warn,
    /// One line per request, and the above.
    Info,
    /// Everything the libraries say.
    Debug,
}

/// Log lines gathered between flushes; written to standard error.
#[derive(Clone, Default)]
pub struct LogBuffer(Arc<Mutex<Vec<u8>>>);

/// Lines beyond this much waiting (standard error not read) are dropped:
/// a request never waits for its log line.
const MAX_WAITING_BYTES: usize = 8 << 20;

impl LogBuffer {
    /// Writes what is waiting to standard error.
    pub fn flush(&self) {
        let taken = match self.0.lock() {
            Ok(mut b) if !b.is_empty() => std::mem::take(&mut *b),
            _ => return,
        };
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(&taken);
        let _ = err.flush();
        // Give the allocation back for the next batch.
        if let Ok(mut b) = self.0.lock() {
            if b.is_empty() {
                let mut taken = taken;
                taken.clear();
                *b = taken;
            }
        }
    }
}

/// One event's writer: appends to the buffer.
pub struct LogWriter(LogBuffer);

impl Write for LogWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut b) = (self.0).0.lock() {
            if b.len() + data.len() <= MAX_WAITING_BYTES {
                b.extend_from_slice(data);
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogBuffer {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> Self::Writer {
        LogWriter(self.clone())
    }
}

/// Installs the process's log subscriber; the returned buffer is to be
/// flushed periodically ([`flush_every`]) and at exit.
pub fn init_logging(format: LogFormat, level: LogLevel) -> LogBuffer {
    use tracing::level_filters::LevelFilter;
    let buffer = LogBuffer::default();
    let level = match level {
        LogLevel::Off => LevelFilter::OFF,
        LogLevel::Warn => LevelFilter::WARN,
        LogLevel::Info => LevelFilter::INFO,
        LogLevel::Debug => LevelFilter::DEBUG,
    };
    let builder = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(false)
        .with_writer(buffer.clone());
    // Another subscriber already installed (tests calling twice) is fine.
    let _ = match format {
        LogFormat::Text => tracing::subscriber::set_global_default(builder.finish()),
        LogFormat::Json => tracing::subscriber::set_global_default(builder.json().finish()),
    };
    buffer
}

/// Flushes `buffer` every 100 ms on a thread of its own (a standard error
/// nobody reads blocks that thread only, never the I/O threads).
pub fn flush_every(buffer: LogBuffer) {
    let _ = std::thread::Builder::new()
        .name("log-writer".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(100));
            buffer.flush();
        });
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Labels {
    operation: String,
    kind: String,
    layer: String,
    customization: String,
}

/// An unhealthy verdict's labels: the layer and its status word (a few per
/// layer), never the reason's text, so the label sets stay bounded.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct UnhealthyLabels {
    kind: String,
    layer: String,
    status: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    operation: String,
    kind: String,
    layer: String,
    customization: String,
    code: i32,
}

impl Labels {
    /// The labels of `record`, answered by `layer` with `customization`.
    fn of(record: &RequestRecord<'_>, layer: &str, customization: &str) -> Self {
        Self {
            operation: record.operation.to_owned(),
            kind: KindLabel(record.kind).to_string(),
            layer: layer.to_owned(),
            customization: customization.to_owned(),
        }
    }
}

/// The per-label-set metrics of one (operation, kind, layer,
/// customization): found in the families once, then reused.
struct Handles {
    operation: String,
    kind: kube::core::GroupVersionKind,
    layer: String,
    customization: String,
    requests: Counter,
    latency: Histogram,
}

impl Handles {
    fn matches(
        &self,
        operation: &str,
        kind: &kube::core::GroupVersionKind,
        layer: &str,
        customization: &str,
    ) -> bool {
        self.operation == operation
            && self.kind == *kind
            && self.layer == layer
            && self.customization == customization
    }
}

/// Label sets whose handles are kept (a server sees a handful: one per
/// kind and operation it serves); requests beyond them use the families.
const HANDLES_KEPT: usize = 64;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AdmissionLabels {
    /// `ResourceInterpreterCustomization`, `ResourceInterpreterWebhookConfiguration`, or `other`.
    kind: &'static str,
    /// `allowed`, `warned` (allowed with warnings) or `denied`.
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ShadowLabels {
    customization: String,
    operation: String,
    result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FailureLabels {
    customization: String,
    operation: String,
}

/// The metrics `serve` exports, and the registry they are encoded from.
pub struct Metrics {
    registry: Registry,
    /// The request counter and latency histogram of recent label sets, so
    /// a request builds no label strings and hashes nothing.
    handles: Mutex<Vec<Handles>>,
    requests: Family<Labels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    unhealthy: Family<UnhealthyLabels, Counter>,
    latency: Family<Labels, Histogram>,
    timeouts: Family<Labels, Counter>,
    in_flight: Gauge<i64, std::sync::atomic::AtomicI64>,
    on_pool: Counter<u64, AtomicU64>,
    admission: Family<AdmissionLabels, Counter>,
    shadow: Family<ShadowLabels, Counter>,
    shadow_dropped: Counter,
    failures: Family<FailureLabels, Counter>,
    /// The cluster followed, whose counts are copied in at each scrape.
    cluster: Mutex<Option<karmada_interpreter_cluster::ClusterConfig>>,
}

fn latency_histogram() -> Histogram {
    // 50 µs to about 1.6 s.
    Histogram::new(exponential_buckets(0.000_05, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("karmada_interpreter");
        let requests = Family::<Labels, Counter>::default();
        let errors = Family::<ErrorLabels, Counter>::default();
        let unhealthy = Family::<UnhealthyLabels, Counter>::default();
        let latency = Family::<Labels, Histogram>::new_with_constructor(
            latency_histogram as fn() -> Histogram,
        );
        let timeouts = Family::<Labels, Counter>::default();
        let in_flight = Gauge::<i64, std::sync::atomic::AtomicI64>::default();
        let on_pool = Counter::<u64, AtomicU64>::default();
        registry.register(
            "webhook_requests",
            "Interpretation requests answered, by operation, kind, layer and customization",
            requests.clone(),
        );
        registry.register(
            "webhook_request_errors",
            "Requests answered with successful: false, by operation, kind, layer, customization and status code",
            errors.clone(),
        );
        registry.register(
            "unhealthy_verdicts",
            "InterpretHealth answers of false from the health layers this project authors (cel, argocd, fallback), by kind, layer and the layer's status word",
            unhealthy.clone(),
        );
        registry.register(
            "webhook_request_duration_seconds",
            "Time from a request's arrival to its answer",
            latency.clone(),
        );
        registry.register(
            "script_timeouts",
            "Requests whose Lua script outlived its deadline",
            timeouts.clone(),
        );
        registry.register(
            "webhook_requests_in_flight",
            "Requests being answered",
            in_flight.clone(),
        );
        registry.register(
            "webhook_requests_on_blocking_pool",
            "Requests answered on the blocking pool (large bodies, webhook calls, scripts beyond the I/O thread's budget)",
            on_pool.clone(),
        );
        let admission = Family::<AdmissionLabels, Counter>::default();
        registry.register(
            "admission_reviews",
            "AdmissionReviews decided by the admission webhook, by kind and result (allowed, warned, denied)",
            admission.clone(),
        );
        let shadow = Family::<ShadowLabels, Counter>::default();
        registry.register(
            "shadow_comparisons",
            "Live calls a shadow customization was run on, by shadow, operation and result (same, answer_differs, shadow_failed, live_failed)",
            shadow.clone(),
        );
        let shadow_dropped = Counter::default();
        registry.register(
            "shadow_dropped",
            "Live calls not compared with a shadow because its queue was full",
            shadow_dropped.clone(),
        );
        let failures = Family::<FailureLabels, Counter>::default();
        registry.register(
            "customization_failures",
            "Script failures of the cluster's customizations at run time, by customization and rule (every caller of the chain, not only webhook requests)",
            failures.clone(),
        );
        Self {
            registry,
            handles: Mutex::new(Vec::new()),
            requests,
            errors,
            unhealthy,
            latency,
            timeouts,
            in_flight,
            on_pool,
            admission,
            shadow,
            shadow_dropped,
            failures,
            cluster: Mutex::new(None),
        }
    }
}

impl Metrics {
    /// Exports the shadow comparisons and script failures of `cluster`.
    pub fn follow(&self, cluster: karmada_interpreter_cluster::ClusterConfig) {
        if let Ok(mut c) = self.cluster.lock() {
            *c = Some(cluster);
        }
    }

    /// Counts one admission verdict.
    pub fn admission(&self, kind: &str, ruling: &Ruling) {
        let kind = match kind {
            "ResourceInterpreterCustomization" => "ResourceInterpreterCustomization",
            "ResourceInterpreterWebhookConfiguration" => "ResourceInterpreterWebhookConfiguration",
            _ => "other",
        };
        let result = match (ruling.allowed, ruling.warnings.is_empty()) {
            (false, _) => "denied",
            (true, false) => "warned",
            (true, true) => "allowed",
        };
        self.admission
            .get_or_create(&AdmissionLabels { kind, result })
            .inc();
    }

    /// Brings the cluster's counters up to its counts.
    fn copy_cluster(&self) {
        let Some(cluster) = self.cluster.lock().ok().and_then(|c| c.clone()) else {
            return;
        };
        let raise = |counter: &Counter, to: u64| {
            let now = counter.get();
            if to > now {
                counter.inc_by(to - now);
            }
        };
        let report = cluster.shadow_report();
        for ((customization, op, result), n) in &report.counts {
            let labels = ShadowLabels {
                customization: customization.clone(),
                operation: op.to_string(),
                result: result.as_str(),
            };
            raise(&self.shadow.get_or_create(&labels), *n);
        }
        raise(&self.shadow_dropped, report.dropped);
        for f in cluster.failures() {
            let labels = FailureLabels {
                customization: f.customization,
                operation: f.operation.to_string(),
            };
            raise(&self.failures.get_or_create(&labels), f.count);
        }
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> Vec<u8> {
        self.copy_cluster();
        let mut text = String::with_capacity(4096);
        if prometheus_client::encoding::text::encode(&mut text, &self.registry).is_err() {
            text.clear();
        }
        text.into_bytes()
    }
}

impl Observer for Metrics {
    fn started(&self) {
        self.in_flight.inc();
    }

    fn finished(&self, record: &RequestRecord<'_>) {
        self.in_flight.dec();
        let served = record.served;
        let layer = served.layer.map_or("", |l| l.as_str());
        let customization = served.name.as_deref().unwrap_or("");
        if let Some(reason) = &served.reason {
            self.unhealthy
                .get_or_create(&UnhealthyLabels {
                    kind: KindLabel(record.kind).to_string(),
                    layer: layer.to_owned(),
                    status: reason.status.to_owned(),
                })
                .inc();
        }
        if served.successful && !served.script_timeout && record.on_io_thread {
            // The common case: counted through the kept handles.
            if let Ok(mut kept) = self.handles.lock() {
                let found = kept
                    .iter()
                    .find(|h| h.matches(record.operation, record.kind, layer, customization));
                if let Some(h) = found {
                    h.latency.observe(record.duration.as_secs_f64());
                    h.requests.inc();
                    return;
                }
                if kept.len() < HANDLES_KEPT {
                    let labels = Labels::of(record, layer, customization);
                    let h = Handles {
                        operation: labels.operation.clone(),
                        kind: record.kind.clone(),
                        layer: labels.layer.clone(),
                        customization: labels.customization.clone(),
                        requests: self.requests.get_or_create(&labels).clone(),
                        latency: self.latency.get_or_create(&labels).clone(),
                    };
                    h.latency.observe(record.duration.as_secs_f64());
                    h.requests.inc();
                    kept.push(h);
                    return;
                }
            }
        }
        let labels = Labels::of(record, layer, customization);
        if !served.successful {
            self.errors
                .get_or_create(&ErrorLabels {
                    operation: labels.operation.clone(),
                    kind: labels.kind.clone(),
                    layer: labels.layer.clone(),
                    customization: labels.customization.clone(),
                    code: served.code,
                })
                .inc();
        }
        if served.script_timeout {
            self.timeouts.get_or_create(&labels).inc();
        }
        if !record.on_io_thread {
            self.on_pool.inc();
        }
        self.latency
            .get_or_create(&labels)
            .observe(record.duration.as_secs_f64());
        self.requests.get_or_create(&labels).inc();
    }
}

/// An admission handler whose verdicts are counted in the metrics.
pub struct Counted<H> {
    /// The handler.
    pub handler: H,
    /// Where they are counted.
    pub metrics: Arc<Metrics>,
}

impl<H: AdmissionHandler> AdmissionHandler for Counted<H> {
    fn review(&self, request: &AdmissionRequest) -> Ruling {
        let ruling = self.handler.review(request);
        self.metrics.admission(&request.kind.kind, &ruling);
        ruling
    }
}
