//! The webhook suites that need no cases (feature `webhook`):
//! `test --webhook-config FILE --suite protocol|robustness`.
//!
//! For every webhook of the configurations and every (kind, operation) its
//! rules declare, the **protocol** suite sends requests shaped as Karmada
//! sends them (its `replicas` 0 outside ReviseReplica, a typical object, an
//! object with every optional field absent, a request without `replicas`);
//! the **robustness** suite sends what a webhook meets in a cluster beside
//! those (operations and kinds it does not serve, an operation newer than
//! it, the largest object Karmada sends, a malformed body, concurrent
//! identical requests, a slow reader, envelopes it must refuse). Every
//! check says what Karmada needs from the answer and which Karmada
//! behaviour it protects.
//!
//! A check's **protocol violations** fail it: Karmada cannot use the
//! answer (no answer within `timeoutSeconds`, a dropped connection, a 500
//! without a message, an envelope that is not a `ResourceInterpreterContext`
//! echoing the uid, different answers to the same request). Its **semantic
//! doubts** (an answer that depends on `replicas` outside ReviseReplica, a
//! refusal of an object Karmada sends) are reported as findings and fail
//! the check only with [`Options::strict`].
//!
//! Checks come back as [`CaseReport`]s, so the text, JSON and JUnit
//! reports of golden cases ([`crate::report`]) show them as they are:
//! one `testsuite` per webhook and suite, one `testcase` per check.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use karmada_interpreter::api::{
    AggregatedStatusItem, InterpreterOperation, ResourceInterpreterWebhook,
    ResourceInterpreterWebhookConfiguration,
};
use karmada_interpreter::interpreter::Request;
use karmada_interpreter::webhook::client::{RawAnswer, WebhookClient};
use karmada_interpreter::webhook::{
    apply_patch, build_request, decode_response, interpret_response, protocol_violations,
};

use crate::backend::Exchange;
use crate::runner::{CaseReport, Verdict};

/// The largest object Karmada sends: it reads objects from its API server,
/// whose etcd stores at most 1.5 MiB per object (etcd's default
/// `--max-request-bytes`); Retain sends two of them (desired and observed),
/// about 3 MiB, the Kubernetes API server's own request limit.
pub const LARGEST_OBJECT_BYTES: usize = 1_500_000;

/// Which checks to run, and how strictly.
#[derive(Debug, Clone)]
pub struct Options {
    /// Karmada-shaped requests for every declared (kind, operation).
    pub protocol: bool,
    /// Unserved operations and kinds, an unknown operation, the largest
    /// object, a malformed body, concurrency, a slow reader, refusals.
    pub robustness: bool,
    /// Semantic doubts fail their check too.
    pub strict: bool,
    /// Identical requests sent at once by the concurrency check.
    pub concurrency: usize,
    /// How long the slow reader waits after an answer's headers before
    /// reading its body.
    pub slow_read: Duration,
    /// A reference interpreter (`test --cross-check`): the answers to the
    /// `karmada-shaped` and `minimal-object` requests are compared with its
    /// answers to the same requests, differences being semantic doubts of
    /// those checks.
    pub reference: Option<Reference>,
}

/// The interpreter a cross-check compares answers with, and its name in
/// reports (`builtin`, a customization file's path).
#[derive(Debug, Clone)]
pub struct Reference {
    /// Its name in reports.
    pub name: String,
    /// The chain.
    pub chain: std::sync::Arc<karmada_interpreter::Interpreter>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            protocol: true,
            robustness: true,
            strict: false,
            concurrency: 16,
            slow_read: Duration::from_secs(1),
            reference: None,
        }
    }
}

/// Runs the chosen suites against every webhook of `configs` through
/// `client` (the chain's own HTTPS client), one [`CaseReport`] per check.
pub fn run(
    configs: &[ResourceInterpreterWebhookConfiguration],
    client: &WebhookClient,
    options: &Options,
) -> Vec<CaseReport> {
    let mut out = Vec::new();
    for config in configs {
        let config_name = config.metadata.name.clone().unwrap_or_default();
        for hook in &config.webhooks {
            let suite = Suite {
                identity: format!("{config_name}/{}", hook.name),
                hook,
                client,
                options,
                targets: targets(hook),
            };
            if options.protocol {
                out.extend(suite.protocol());
            }
            if options.robustness {
                out.extend(suite.robustness());
            }
        }
    }
    out
}

/// A (group, version, kind) and an operation a webhook declares.
#[derive(Debug, Clone, PartialEq)]
struct Target {
    group: String,
    version: String,
    kind: String,
    op: InterpreterOperation,
}

impl Target {
    fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    fn label(&self) -> String {
        format!("{} {} {}", self.op, self.api_version(), self.kind)
    }
}

/// One concrete (kind, operation) for each operation of each rule: `*`
/// becomes `apps`/`v1`/`Deployment` (a kind every webhook of every group
/// may be asked about) or the rule's first named value.
fn targets(hook: &ResourceInterpreterWebhook) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for rule in &hook.rules {
        let first = |list: &[String], wild: &str| {
            list.iter()
                .find(|v| *v != "*")
                .cloned()
                .unwrap_or_else(|| wild.to_owned())
        };
        let group = first(&rule.api_groups, "apps");
        let version = first(&rule.api_versions, "v1");
        let kind = first(
            &rule.kinds,
            if group == "apps" {
                "Deployment"
            } else {
                "Sample"
            },
        );
        for op in InterpreterOperation::ALL {
            let target = Target {
                group: group.clone(),
                version: version.clone(),
                kind: kind.clone(),
                op,
            };
            if rule.matches(&group, &version, &kind, op) && !out.contains(&target) {
                out.push(target);
            }
        }
    }
    out
}

/// Whether any rule of `hook` covers `op` on `group/version, kind`.
fn served(
    hook: &ResourceInterpreterWebhook,
    group: &str,
    version: &str,
    kind: &str,
    op: InterpreterOperation,
) -> bool {
    hook.rules
        .iter()
        .any(|r| r.matches(group, version, kind, op))
}

/// What each check protects, in Karmada's terms.
mod protects {
    pub const SHAPED: &str = "Karmada's controllers call the webhook with this request for every object of the kind (detector, binding and status controllers); without a well-formed answer echoing the uid the operation fails and the object is not propagated, revised, retained or reflected";
    pub const MINIMAL: &str = "Karmada sends objects as users write them, with every optional field absent; a webhook that cannot answer them blocks those objects";
    pub const REPLICAS_ABSENT: &str = "the envelope's `replicas` is optional (a Go *int32): a webhook that dereferences it crashes on a request without it instead of answering";
    pub const REPLICAS_IGNORED: &str = "Karmada sets `replicas` (desiredReplicas) only for ReviseReplica and sends 0 with every other operation: an answer that depends on it is computed from 0 in a cluster (replica counts, readiness, aggregated status wrong)";
    pub const UNSERVED_OPERATION: &str = "a widened rule or a second configuration pointing at the same path sends operations the code does not handle; Karmada then waits up to timeoutSeconds per object unless the webhook refuses at once with a message";
    pub const UNSERVED_KIND: &str = "a rule matching more kinds than the code handles sends other kinds; the webhook must refuse with a message, not hang or crash";
    pub const UNKNOWN_OPERATION: &str = "newer Karmada versions add operations (InterpretComponent came after the example webhook was written); a webhook must refuse an operation it does not know with a message rather than answer it as something else";
    pub const LARGEST: &str = "Karmada sends objects up to etcd's 1.5 MiB (Retain: desired and observed, about 3 MiB); a webhook that truncates the body (Karmada's Go SDK reads 1 MiB) answers with an empty uid and Karmada fails the operation";
    pub const MALFORMED: &str = "a webhook must answer a body it cannot decode with a refusal and keep serving: a crash or hang takes down every later call from Karmada";
    pub const CONCURRENT: &str = "Karmada calls a webhook from several controller workers at once; answers must depend on the request only, or bindings and statuses flap between answers";
    pub const SLOW_READER: &str = "a busy karmada-controller-manager reads answers late; a webhook that gives up writing (a short write timeout) cuts the answer and Karmada fails the call";
    pub const REFUSE: &str = "Karmada negotiates the envelope from interpreterContextVersions; a webhook that accepts an envelope version or kind it does not know reads fields that mean something else instead of refusing";
}

/// How an answer is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// A Karmada-shaped request: HTTP 200 and an envelope Karmada accepts.
    Answer,
    /// A request the webhook may refuse or answer (unserved operation or kind).
    AnswerOrRefusal,
    /// A request to refuse: 4xx or `successful: false`, with a message.
    Refusal,
}

/// One check's outcome before it becomes a [`CaseReport`].
#[derive(Default)]
struct Check {
    violations: Vec<String>,
    doubts: Vec<String>,
    exchange: Option<Exchange>,
}

struct Suite<'a> {
    identity: String,
    hook: &'a ResourceInterpreterWebhook,
    client: &'a WebhookClient,
    options: &'a Options,
    targets: Vec<Target>,
}

impl Suite<'_> {
    fn timeout_seconds(&self) -> i32 {
        self.hook.timeout_seconds.filter(|t| *t > 0).unwrap_or(30)
    }

    fn report(
        &self,
        suite: &str,
        name: String,
        op: Option<InterpreterOperation>,
        protects: &str,
        started: Instant,
        check: Check,
    ) -> CaseReport {
        let mut lines: Vec<String> = check
            .violations
            .iter()
            .map(|v| format!("protocol violation: {v}"))
            .collect();
        if self.options.strict {
            lines.extend(
                check
                    .doubts
                    .iter()
                    .map(|d| format!("semantic doubt (--strict): {d}")),
            );
        }
        let verdict = if lines.is_empty() {
            Verdict::Passed
        } else {
            lines.push(format!("Karmada behaviour at stake: {protects}"));
            Verdict::Failed(lines)
        };
        let findings = if self.options.strict {
            Vec::new()
        } else {
            check
                .doubts
                .iter()
                .map(|d| format!("semantic doubt: {d} (Karmada behaviour at stake: {protects})"))
                .collect()
        };
        CaseReport {
            file: PathBuf::from(format!("{suite}: {}", self.identity)),
            name,
            operation: op,
            served_by: None,
            verdict,
            error: None,
            duration: started.elapsed(),
            findings,
            exchange: check.exchange,
            expected: None,
        }
    }

    /// The Karmada-shaped checks of every declared (kind, operation).
    fn protocol(&self) -> Vec<CaseReport> {
        let mut out = Vec::new();
        for t in &self.targets {
            let started = Instant::now();
            let shaped = envelope(t, &typical(t), 0);
            let (mut check, zero) = self.send_judged(&shaped, Expect::Answer, None);
            if let Some(reference) = &self.options.reference {
                let lines = cross_check(t, &typical(t), &shaped, &check, reference);
                check.doubts.extend(lines);
            }
            out.push(self.report(
                "protocol",
                format!("karmada-shaped {}", t.label()),
                Some(t.op),
                protects::SHAPED,
                started,
                check,
            ));

            let started = Instant::now();
            let sent = envelope(t, &minimal(t), 0);
            let (mut check, _) = self.send_judged(&sent, Expect::Answer, None);
            if let Some(reference) = &self.options.reference {
                let lines = cross_check(t, &minimal(t), &sent, &check, reference);
                check.doubts.extend(lines);
            }
            out.push(self.report(
                "protocol",
                format!("minimal-object {}", t.label()),
                Some(t.op),
                protects::MINIMAL,
                started,
                check,
            ));

            let started = Instant::now();
            let mut absent = shaped.clone();
            if let Some(r) = absent["request"].as_object_mut() {
                r.remove("replicas");
            }
            let (mut check, answer) = self.send_judged(&absent, Expect::Answer, None);
            if check.violations.is_empty() && succeeded(&zero) && !succeeded(&answer) {
                check.violations.push(format!(
                    "answers the request with `replicas: 0` but not the same request without `replicas`: {}",
                    show(&answer)
                ));
            } else if t.op != InterpreterOperation::ReviseReplica && check.violations.is_empty() {
                if let (Some(a), Some(b)) = (&zero, &answer) {
                    if a != b {
                        check.doubts.push(format!("answers a request without `replicas` differently than one with `replicas: 0` (with: {a}; without: {b})"));
                    }
                }
            }
            out.push(self.report(
                "protocol",
                format!("replicas-absent {}", t.label()),
                Some(t.op),
                protects::REPLICAS_ABSENT,
                started,
                check,
            ));

            if t.op != InterpreterOperation::ReviseReplica {
                let started = Instant::now();
                let (mut check, seven) =
                    self.send_judged(&envelope(t, &typical(t), 7), Expect::Answer, None);
                if let (Some(a), Some(b)) = (&zero, &seven) {
                    if a != b {
                        check.doubts.push(format!(
                            "the answer depends on `replicas` outside ReviseReplica: with replicas 0 (what Karmada sends) {a}, with replicas 7 {b}"
                        ));
                    }
                }
                out.push(self.report(
                    "protocol",
                    format!("replicas-ignored {}", t.label()),
                    Some(t.op),
                    protects::REPLICAS_IGNORED,
                    started,
                    check,
                ));
            }
        }
        out
    }

    /// The checks beyond Karmada's own requests.
    fn robustness(&self) -> Vec<CaseReport> {
        let mut out = Vec::new();
        let Some(first) = self.targets.first() else {
            return out;
        };
        // The requests below go as InterpretReplica when it is served: the
        // operation Karmada calls most (every binding sync).
        let probe = self
            .targets
            .iter()
            .find(|t| t.op == InterpreterOperation::InterpretReplica)
            .unwrap_or(first);
        // Operations the rules leave out for a declared kind.
        let mut kinds: Vec<&Target> = Vec::new();
        for t in &self.targets {
            if !kinds.iter().any(|k| k.kind == t.kind && k.group == t.group) {
                kinds.push(t);
            }
        }
        for k in &kinds {
            for op in InterpreterOperation::ALL {
                if served(self.hook, &k.group, &k.version, &k.kind, op) {
                    continue;
                }
                let t = Target { op, ..(*k).clone() };
                let started = Instant::now();
                let (check, _) = self.send_judged(
                    &envelope(&t, &typical(&t), 0),
                    Expect::AnswerOrRefusal,
                    None,
                );
                out.push(self.report(
                    "robustness",
                    format!("unserved-operation {}", t.label()),
                    Some(op),
                    protects::UNSERVED_OPERATION,
                    started,
                    check,
                ));
            }
        }
        // A kind no rule covers.
        let other = Target {
            group: "robustness.karmada-interpreter.io".into(),
            version: "v1".into(),
            kind: "Unserved".into(),
            op: first.op,
        };
        if !served(
            self.hook,
            &other.group,
            &other.version,
            &other.kind,
            other.op,
        ) {
            let started = Instant::now();
            let (check, _) = self.send_judged(
                &envelope(&other, &typical(&other), 0),
                Expect::AnswerOrRefusal,
                None,
            );
            out.push(self.report(
                "robustness",
                format!("unserved-kind {}", other.label()),
                Some(other.op),
                protects::UNSERVED_KIND,
                started,
                check,
            ));
        }
        // An operation newer than the webhook.
        let started = Instant::now();
        let mut unknown = envelope(probe, &typical(probe), 0);
        unknown["request"]["operation"] = json!("InterpretFuture");
        let (check, _) = self.send_judged(&unknown, Expect::Refusal, None);
        out.push(self.report(
            "robustness",
            format!(
                "unknown-operation InterpretFuture {} {}",
                probe.api_version(),
                probe.kind
            ),
            None,
            protects::UNKNOWN_OPERATION,
            started,
            check,
        ));
        // The largest object: Retain when served (two objects), else the probe operation.
        let big = self
            .targets
            .iter()
            .find(|t| t.op == InterpreterOperation::Retain)
            .unwrap_or(probe);
        let started = Instant::now();
        let (_, usual) = self.send_judged(&envelope(big, &typical(big), 0), Expect::Answer, None);
        let (mut check, answer) =
            self.send_judged(&envelope(big, &largest(big), 0), Expect::Answer, None);
        if check.violations.is_empty() && succeeded(&usual) && !succeeded(&answer) {
            check.violations.push(format!(
                "answers the usual object but refuses the same object grown to {LARGEST_OBJECT_BYTES} bytes: {}",
                show(&answer)
            ));
        }
        out.push(self.report(
            "robustness",
            format!(
                "largest-object {} ({LARGEST_OBJECT_BYTES} bytes per object)",
                big.label()
            ),
            Some(big.op),
            protects::LARGEST,
            started,
            check,
        ));
        // A malformed body, then a normal request: the webhook must still serve.
        let started = Instant::now();
        let shaped = envelope(probe, &typical(probe), 0);
        let body = encode(&shaped);
        let cut = body.get(..body.len() / 2).unwrap_or(&body).to_vec();
        let mut check = self.judge(&Value::Null, &cut, Expect::Refusal, None).0;
        let (after, _) = self.send_judged(&shaped, Expect::Answer, None);
        check.violations.extend(
            after
                .violations
                .into_iter()
                .map(|v| format!("after the malformed body, a normal request: {v}")),
        );
        out.push(self.report(
            "robustness",
            "malformed-body".into(),
            None,
            protects::MALFORMED,
            started,
            check,
        ));
        // Identical requests at once.
        let started = Instant::now();
        out.push(self.report(
            "robustness",
            format!("concurrent x{} {}", self.options.concurrency, probe.label()),
            Some(probe.op),
            protects::CONCURRENT,
            started,
            self.concurrent(&shaped),
        ));
        // A slow reader gets the whole answer, the same one.
        let started = Instant::now();
        let (_, normal) = self.send_judged(&shaped, Expect::Answer, None);
        let (mut check, slow) =
            self.send_judged(&shaped, Expect::Answer, Some(self.options.slow_read));
        if check.violations.is_empty() && normal != slow {
            check.violations.push(format!(
                "read {} ms after its headers, the answer differs: {} instead of {}",
                self.options.slow_read.as_millis(),
                show(&slow),
                show(&normal)
            ));
        }
        out.push(self.report(
            "robustness",
            format!("slow-reader {}", probe.label()),
            Some(probe.op),
            protects::SLOW_READER,
            started,
            check,
        ));
        // Envelopes to refuse.
        for (name, field, value) in [
            (
                "refuse-unknown-version",
                "apiVersion",
                "config.karmada.io/v1alpha9",
            ),
            ("refuse-wrong-kind", "kind", "AdmissionReview"),
        ] {
            let started = Instant::now();
            let mut wrong = shaped.clone();
            wrong[field] = json!(value);
            let (check, _) = self.send_judged(&wrong, Expect::Refusal, None);
            out.push(self.report(
                "robustness",
                format!("{name} ({field}: {value})"),
                None,
                protects::REFUSE,
                started,
                check,
            ));
        }
        out
    }

    /// `concurrency` identical requests at once: every answer well-formed
    /// and all the same.
    fn concurrent(&self, request: &Value) -> Check {
        let body = encode(request);
        let answers: Vec<(Check, Option<Value>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..self.options.concurrency.max(2))
                .map(|_| s.spawn(|| self.judge(request, &body, Expect::Answer, None)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| (Check::default(), None)))
                .collect()
        });
        let mut check = Check::default();
        let first = answers.first().and_then(|(_, a)| a.clone());
        for (i, (c, answer)) in answers.into_iter().enumerate() {
            check.violations.extend(
                c.violations
                    .into_iter()
                    .map(|v| format!("request {}: {v}", i + 1)),
            );
            if check.exchange.is_none() {
                check.exchange = c.exchange;
            }
            if answer != first && first.is_some() && answer.is_some() {
                check.violations.push(format!(
                    "request {} got a different answer than request 1: {} instead of {}",
                    i + 1,
                    show(&answer),
                    show(&first)
                ));
            }
        }
        check
    }

    fn send_judged(
        &self,
        request: &Value,
        expect: Expect,
        pause: Option<Duration>,
    ) -> (Check, Option<Value>) {
        self.judge(request, &encode(request), expect, pause)
    }

    /// Sends `body` (the encoding of `request`, or a malformed body with
    /// `request` null) and judges the answer. Also returns the answer's
    /// `response` without its uid, for comparisons.
    fn judge(
        &self,
        request: &Value,
        body: &[u8],
        expect: Expect,
        pause: Option<Duration>,
    ) -> (Check, Option<Value>) {
        let mut check = Check::default();
        let answer = self.client.post_raw(self.hook, body.to_vec(), pause);
        check.exchange = Some(Exchange {
            request: shown_request(request, body),
            answer: answer.as_ref().ok().map(|a| shown_answer(&a.body)),
        });
        let a: RawAnswer = match answer {
            Ok(a) => a,
            Err(e) => {
                check.violations.push(format!(
                    "no answer within timeoutSeconds ({}s) or the connection failed: {e}",
                    self.timeout_seconds()
                ));
                return (check, None);
            }
        };
        let text = String::from_utf8_lossy(&a.body).trim().to_owned();
        let parsed: Option<Value> = serde_json::from_slice(&a.body).ok();
        let response = parsed
            .as_ref()
            .and_then(|v| v.get("response"))
            .filter(|r| r.is_object());
        let message = response
            .and_then(|r| r.get("status"))
            .and_then(|s| s.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let successful = response
            .and_then(|r| r.get("successful"))
            .and_then(Value::as_bool);
        let comparable = response.map(|r| comparable(r, request));
        let sent = request.get("request");
        let uid = sent
            .and_then(|r| r.get("uid"))
            .and_then(Value::as_str)
            .unwrap_or("");
        match expect {
            Expect::Answer => {
                if a.status != 200 {
                    check.violations.push(format!(
                        "HTTP {} instead of 200: Karmada reads an answer only from a successful HTTP status{}",
                        a.status,
                        if text.is_empty() { ", and this one has no message".to_owned() } else { format!(" (body: {})", cut(&text)) }
                    ));
                    return (check, comparable);
                }
                // A refusal with a message is the webhook's right (the
                // object may be invalid for its kind): no doubt raised.
                check
                    .violations
                    .extend(self.karmada_verdict(request, &a.body));
            }
            Expect::AnswerOrRefusal | Expect::Refusal => {
                let refused_http = (400..500).contains(&a.status);
                if a.status >= 500 {
                    if text.is_empty() {
                        check.violations.push(format!(
                            "HTTP {} without a message: Karmada logs an empty reason",
                            a.status
                        ));
                    } else {
                        check.doubts.push(format!("answers HTTP {} (a server error) where a refusal (4xx or successful: false) says the request is at fault: {}", a.status, cut(&text)));
                    }
                } else if refused_http {
                    if text.is_empty() {
                        check
                            .violations
                            .push(format!("HTTP {} without a message", a.status));
                    }
                } else if a.status != 200 {
                    check.violations.push(format!(
                        "HTTP {}: neither an answer nor a refusal",
                        a.status
                    ));
                } else if response.is_none() {
                    check.violations.push(format!(
                        "HTTP 200 without a ResourceInterpreterContext `response`: {}",
                        cut(&text)
                    ));
                } else if successful == Some(false) {
                    if message.is_empty() {
                        check
                            .violations
                            .push("a refusal (successful: false) without status.message".into());
                    }
                    let echoed = response
                        .and_then(|r| r.get("uid"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    if !uid.is_empty() && echoed != uid && expect == Expect::AnswerOrRefusal {
                        check.violations.push(format!(
                            "response.uid must echo request.uid {uid:?}, got {echoed:?}"
                        ));
                    }
                } else if expect == Expect::Refusal {
                    let what = sent
                        .and_then(|r| r.get("operation"))
                        .cloned()
                        .unwrap_or(Value::Null);
                    if request.is_null()
                        || request.get("apiVersion") != Some(&json!("config.karmada.io/v1alpha1"))
                        || request.get("kind") != Some(&json!("ResourceInterpreterContext"))
                    {
                        check.violations.push(format!(
                            "accepted (successful: true) a request it must refuse: {}",
                            cut(&text)
                        ));
                    } else {
                        check.doubts.push(format!("answers operation {what} with successful: true; an operation it does not know should be refused with a message"));
                    }
                } else {
                    check
                        .violations
                        .extend(self.karmada_verdict(request, &a.body));
                }
            }
        }
        (check, comparable)
    }

    /// What Karmada's client says of a 200 answer to `request`: the
    /// protocol checks, then its own verification of the envelope.
    fn karmada_verdict(&self, request: &Value, body: &[u8]) -> Vec<String> {
        let Some(sent) = request
            .get("request")
            .and_then(|r| serde_json::from_value(r.clone()).ok())
        else {
            return Vec::new();
        };
        let mut out = protocol_violations(&sent, body);
        if out.is_empty() {
            if let Err(e) = decode_response(body).and_then(|ctx| interpret_response(ctx, &sent)) {
                let refused = serde_json::from_slice::<Value>(body)
                    .ok()
                    .and_then(|v| v["response"]["successful"].as_bool())
                    == Some(false);
                if !refused {
                    out.push(format!("Karmada rejects the answer: {e}"));
                }
            }
        }
        out
    }
}

/// The envelope Karmada's client builds for `t` on `object`, with
/// `replicas` as given (Karmada: 0 outside ReviseReplica).
fn envelope(t: &Target, object: &Value, replicas: i64) -> Value {
    let mut value = with_request(t, object, replicas, |request| {
        request
            .and_then(|r| build_request(r).ok())
            .and_then(|ctx| serde_json::to_value(ctx).ok())
            .unwrap_or(Value::Null)
    });
    if t.op != InterpreterOperation::ReviseReplica {
        value["request"]["replicas"] = json!(replicas);
    }
    value
}

/// Calls `f` with the request [`envelope`] sends for `t` on `object`
/// (`None` for an operation of a profile this crate is built without).
fn with_request<R>(
    t: &Target,
    object: &Value,
    replicas: i64,
    f: impl FnOnce(Option<&Request<'_>>) -> R,
) -> R {
    let items: Vec<AggregatedStatusItem> = serde_json::from_value(json!([
        {"clusterName": "member1", "applied": true, "health": "Healthy",
         "status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2, "updatedReplicas": 2, "observedGeneration": 1}},
        {"clusterName": "member2", "applied": true, "health": "Healthy",
         "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1, "updatedReplicas": 1, "observedGeneration": 1}},
    ]))
    .unwrap_or_default();
    let observed = observed_of(object);
    #[cfg(feature = "karmada-next")]
    let components = [karmada_interpreter::api::TargetComponent {
        name: "main".into(),
        replicas: 2,
    }];
    let request = match t.op {
        InterpreterOperation::InterpretReplica => Request::InterpretReplica { object },
        InterpreterOperation::InterpretComponent => Request::InterpretComponent { object },
        InterpreterOperation::ReviseReplica => Request::ReviseReplica {
            object,
            replicas: if replicas == 0 { 5 } else { replicas },
        },
        InterpreterOperation::Retain => Request::Retain {
            desired: object,
            observed: &observed,
        },
        InterpreterOperation::AggregateStatus => Request::AggregateStatus {
            object,
            items: (object.get("spec").is_some()).then_some(items.as_slice()),
        },
        InterpreterOperation::InterpretStatus => Request::InterpretStatus { object },
        InterpreterOperation::InterpretHealth => Request::InterpretHealth { object },
        InterpreterOperation::InterpretDependency => Request::InterpretDependency { object },
        #[cfg(feature = "karmada-next")]
        InterpreterOperation::ReviseComponents => Request::ReviseComponents {
            object,
            components: Some(&components),
        },
        // An operation of a profile this crate is built without.
        #[allow(unreachable_patterns)]
        _ => return f(None),
    };
    f(Some(&request))
}

/// The differences between the webhook's answer to `shaped` (the request
/// of `t` on `object`, judged in `check`) and the reference's answer to the
/// same request ([`crate::crosscheck::differences`]).
fn cross_check(
    t: &Target,
    object: &Value,
    shaped: &Value,
    check: &Check,
    reference: &Reference,
) -> Vec<String> {
    let Some(answer) = check.exchange.as_ref().and_then(|e| e.answer.as_ref()) else {
        return Vec::new();
    };
    let Some(sent) = shaped
        .get("request")
        .and_then(|r| serde_json::from_value(r.clone()).ok())
    else {
        return Vec::new();
    };
    let answer = serde_json::to_vec(answer)
        .map_err(|e| e.to_string())
        .and_then(|body| {
            decode_response(&body)
                .and_then(|ctx| interpret_response(ctx, &sent))
                .map_err(|e| e.to_string())
        })
        .map(karmada_interpreter::interpreter::results_map);
    let wanted = with_request(t, object, 0, |request| {
        request.map(|r| {
            reference
                .chain
                .interpret(r)
                .map(|a| karmada_interpreter::interpreter::results_map(a.value))
        })
    });
    let Some(wanted) = wanted else {
        return Vec::new();
    };
    crate::crosscheck::differences(
        t.op,
        answer.as_ref().map_err(Clone::clone),
        &wanted,
        &reference.name,
    )
    .into_iter()
    .map(|l| format!("cross-check: {l}"))
    .collect()
}

/// The member cluster's copy of `object`: its fields plus what a member
/// cluster adds (a resourceVersion, a controller's annotation, status).
fn observed_of(object: &Value) -> Value {
    let mut observed = object.clone();
    if let Some(meta) = observed.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), json!("4711"));
        meta.insert(
            "annotations".into(),
            json!({"member.example.io/observed": "true"}),
        );
    }
    observed
}

/// An object with every optional field absent.
fn minimal(t: &Target) -> Value {
    json!({"apiVersion": t.api_version(), "kind": t.kind,
           "metadata": {"name": "robustness-minimal", "namespace": "default"}})
}

/// An object as users and controllers write them: replicas, a pod
/// template with resource requests, a status.
fn typical(t: &Target) -> Value {
    json!({
        "apiVersion": t.api_version(), "kind": t.kind,
        "metadata": {"name": "robustness", "namespace": "default", "generation": 1,
                     "uid": "0f6a3c1e-2b7d-4c1a-9d3e-5a6b7c8d9e0f",
                     "annotations": {"resourcetemplate.karmada.io/generation": "1"},
                     "labels": {"app": "robustness"}},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "robustness"}},
            "template": {
                "metadata": {"labels": {"app": "robustness"}},
                "spec": {"containers": [{"name": "main", "image": "registry.example.io/app:1.0",
                                         "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}
            }
        },
        "status": {"replicas": 3, "readyReplicas": 3, "availableReplicas": 3,
                   "updatedReplicas": 3, "observedGeneration": 1}
    })
}

/// [`typical`] grown to [`LARGEST_OBJECT_BYTES`] with an annotation (a
/// last-applied-configuration, as `kubectl apply` writes, is the usual
/// large field).
fn largest(t: &Target) -> Value {
    let mut object = typical(t);
    let base = object.to_string().len();
    let pad = LARGEST_OBJECT_BYTES.saturating_sub(base + 64);
    object["metadata"]["annotations"] =
        json!({"kubectl.kubernetes.io/last-applied-configuration": "x".repeat(pad)});
    object
}

/// The body of `request` as Karmada's client writes it (compact JSON and
/// a newline), fields exactly as given (a removed `replicas` stays absent).
fn encode(request: &Value) -> Vec<u8> {
    let mut body = request.to_string().into_bytes();
    body.push(b'\n');
    body
}

/// Longest a request or answer is kept for the report.
const KEPT_CHARS: usize = 2000;

fn shown_request(request: &Value, body: &[u8]) -> Value {
    if request.is_null() {
        return json!(String::from_utf8_lossy(
            body.get(..KEPT_CHARS.min(body.len())).unwrap_or(body)
        ));
    }
    if body.len() > KEPT_CHARS {
        let mut small = request.clone();
        for field in ["object", "observedObject"] {
            if let Some(o) = small["request"].get_mut(field) {
                if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
                    meta.insert("annotations".into(), json!({"(elided)": format!("{} bytes of annotations", LARGEST_OBJECT_BYTES)}));
                }
            }
        }
        return small;
    }
    request.clone()
}

fn shown_answer(body: &[u8]) -> Value {
    if body.len() > KEPT_CHARS {
        return json!(format!(
            "{}… ({} bytes)",
            String::from_utf8_lossy(&body[..KEPT_CHARS]),
            body.len()
        ));
    }
    Exchange::answer_of(body)
}

/// An answer's `response` as compared between requests: without its uid,
/// and with its patch applied to the object sent (Karmada's Go SDK builds
/// patches from map iteration, so the same answer comes with its
/// operations in any order).
fn comparable(response: &Value, request: &Value) -> Value {
    let mut r = response.clone();
    if let Some(m) = r.as_object_mut() {
        m.remove("uid");
        // Base64 on the wire, as k8s-openapi's ByteString reads it.
        let patch = m
            .get("patch")
            .and_then(|p| serde_json::from_value::<k8s_openapi::ByteString>(p.clone()).ok())
            .map(|b| b.0);
        if let Some(patch) = patch {
            let object = request
                .get("request")
                .and_then(|q| q.get("object"))
                .cloned()
                .unwrap_or(Value::Null);
            let patched = apply_patch(&object, &patch).map_or_else(
                |e| json!({"patchError": e.to_string()}),
                |o| json!({"patched": o}),
            );
            m.insert("patch".into(), patched);
        }
    }
    r
}

/// Whether an answer's `response` says `successful: true`.
fn succeeded(response: &Option<Value>) -> bool {
    response
        .as_ref()
        .and_then(|r| r.get("successful"))
        .and_then(Value::as_bool)
        == Some(true)
}

fn show(v: &Option<Value>) -> String {
    v.as_ref()
        .map_or("no answer".to_owned(), |v| cut(&v.to_string()))
}

fn cut(s: &str) -> String {
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(rules: Value) -> ResourceInterpreterWebhook {
        serde_json::from_value(json!({
            "name": "h", "clientConfig": {"url": "https://127.0.0.1:1/x"},
            "interpreterContextVersions": ["v1alpha1"], "rules": rules,
        }))
        .unwrap()
    }

    #[test]
    fn targets_expand_wildcards_and_keep_declared_operations() {
        let all = targets(&hook(json!([{"operations": ["*"], "apiGroups": ["*"],
                                         "apiVersions": ["*"], "kinds": ["*"]}])));
        assert_eq!(all.len(), InterpreterOperation::ALL.len());
        assert!(all
            .iter()
            .all(|t| t.api_version() == "apps/v1" && t.kind == "Deployment"));
        let some = targets(&hook(json!([{"operations": ["InterpretHealth", "Retain"],
                                          "apiGroups": ["workload.example.io"],
                                          "apiVersions": ["v1alpha1"], "kinds": ["Workload"]}])));
        let ops: Vec<_> = some.iter().map(|t| t.op).collect();
        assert_eq!(
            ops,
            [
                InterpreterOperation::Retain,
                InterpreterOperation::InterpretHealth
            ]
        );
        assert_eq!(
            some[0].label(),
            "Retain workload.example.io/v1alpha1 Workload"
        );
    }

    #[test]
    fn answers_compare_with_their_patch_applied_and_without_uid() {
        let request = json!({"request": {"object": {"spec": {"a": 1, "b": 2}}}});
        let patch = |ops: Value| {
            json!({"uid": "u", "successful": true, "patchType": "JSONPatch",
                   "patch": k8s_openapi::ByteString(ops.to_string().into_bytes())})
        };
        let one = patch(json!([{"op": "replace", "path": "/spec/a", "value": 3},
                               {"op": "remove", "path": "/spec/b"}]));
        let other = patch(json!([{"op": "remove", "path": "/spec/b"},
                                 {"op": "replace", "path": "/spec/a", "value": 3}]));
        assert_eq!(comparable(&one, &request), comparable(&other, &request));
        assert_eq!(
            comparable(&one, &request)["patch"]["patched"],
            json!({"spec": {"a": 3}})
        );
        let third = patch(json!([{"op": "replace", "path": "/spec/a", "value": 4}]));
        assert_ne!(comparable(&one, &request), comparable(&third, &request));
    }

    #[test]
    fn the_largest_object_is_near_the_limit() {
        let t = Target {
            group: "apps".into(),
            version: "v1".into(),
            kind: "Deployment".into(),
            op: InterpreterOperation::Retain,
        };
        let size = largest(&t).to_string().len();
        assert!(
            (LARGEST_OBJECT_BYTES - 100..=LARGEST_OBJECT_BYTES).contains(&size),
            "{size}"
        );
    }
}
