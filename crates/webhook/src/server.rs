//! A TLS HTTP server hosting SDK handlers (feature `webhook`): hyper over
//! tokio-rustls (ring provider), HTTP/2 and HTTP/1.1 chosen by ALPN,
//! exact-match paths (unknown paths get 404), probes (`/readyz`: `ok`, 503
//! once shutting down; `/livez`, `/healthz`: `ok`), GET pages such as
//! metrics ([`Server::page`]), an [`Observer`] of every request and a
//! `tracing` line per request (target `karmada_interpreter::webhook::request`),
//! short requests answered on the I/O thread within a budget
//! ([`Limits::inline_budget`]), graceful shutdown, and [`Limits`] against
//! hostile clients: a request body
//! limit (3 MiB, the API server's), TLS handshake, header and body read
//! timeouts, at most so many open connections (more wait in the listen
//! backlog) and so many requests handled at once (more wait their turn).
//!
//! ```no_run
//! use karmada_interpreter::webhook::{server::Server, sdk, tls::TlsIdentity};
//!
//! let identity = TlsIdentity::self_signed(&["localhost", "127.0.0.1"]).unwrap();
//! let handler = |_: &sdk::Request| sdk::errored(501, "not implemented");
//! let running = Server::new(identity)
//!     .route("/interpret", handler)
//!     .start("127.0.0.1:0".parse().unwrap())
//!     .unwrap();
//! println!("listening on {}", running.local_addr());
//! running.stop(); // or drop it
//! ```

use super::error::WebhookError;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::admission::{self, AdmissionHandler};
use super::sdk::{self, Body, Handler};
use super::tls::TlsIdentity;

/// What the server tolerates from its clients. Every limit protects the
/// others' requests from one slow, large or numerous client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body read (default 3 MiB, the Kubernetes API
    /// server's limit); a larger one is answered with code 413.
    pub max_body_bytes: usize,
    /// Time a client has to complete the TLS handshake (default 10 s).
    pub handshake_timeout: Duration,
    /// Time a client has to send a request's headers, HTTP/1.1 (default 10 s).
    /// An HTTP/2 connection that stops answering pings is closed after it too.
    pub header_read_timeout: Duration,
    /// Time a client has to send a request's body (default 30 s).
    pub body_read_timeout: Duration,
    /// Open connections at most (default 1024); further clients wait in the
    /// listen backlog until one closes.
    pub max_connections: usize,
    /// Requests handled at once at most (default 256); further requests wait
    /// for a slot.
    pub max_concurrent_requests: usize,
    /// On shutdown, how long in-flight requests may take to finish (default 10 s).
    pub drain_timeout: Duration,
    /// How long a request a handler [answers quickly](sdk::Handler::answers_quickly)
    /// may run on the I/O thread (default 1 ms; zero: never). Its Lua runs
    /// are cut off at the budget's end and the request is answered again on
    /// the blocking pool, so a slow script never holds up the requests that
    /// share its thread; short requests skip the hand-off to the pool.
    pub inline_budget: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: sdk::MAX_REQUEST_BODY_BYTES,
            handshake_timeout: Duration::from_secs(10),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_concurrent_requests: 256,
            drain_timeout: Duration::from_secs(10),
            inline_budget: Duration::from_millis(1),
        }
    }
}

/// A webhook server: routes, TLS identity and limits.
#[derive(Clone)]
pub struct Server {
    identity: TlsIdentity,
    routes: Vec<(String, Route)>,
    limits: Limits,
    http2: bool,
    accepted: Arc<AtomicU64>,
    pages: Vec<(String, Page)>,
    observer: Option<Arc<dyn Observer>>,
    ready: Option<Arc<dyn Fn() -> bool + Send + Sync>>,
}

/// What a path serves: interpretation requests or admission reviews.
#[derive(Clone)]
enum Route {
    Interpreter(Arc<dyn Handler>),
    Admission(Arc<dyn AdmissionHandler>),
}

/// A page served on GET: its content type and a function rendering it.
type Page = (&'static str, Arc<dyn Fn() -> Vec<u8> + Send + Sync>);

/// One answered request, as [`Observer::finished`] sees it (and as the
/// server logs it).
#[derive(Debug)]
pub struct RequestRecord<'a> {
    /// The request path.
    pub path: &'a str,
    /// The request's uid (empty when it could not be decoded).
    pub uid: &'a str,
    /// The operation as sent (empty when the request could not be decoded).
    pub operation: &'a str,
    /// Group, version and kind of the object (empty when not decoded).
    pub kind: &'a kube::core::GroupVersionKind,
    /// What served it, `status.code` and `successful`.
    pub served: &'a sdk::Served,
    /// The HTTP status written.
    pub http_status: u16,
    /// From the request's arrival to its answer.
    pub duration: Duration,
    /// Whether it was answered on the I/O thread (else on the blocking pool).
    pub on_io_thread: bool,
}

/// Watches the requests a [`Server`]'s handlers answer (metrics): one
/// [`Observer::started`] and one [`Observer::finished`] per request.
pub trait Observer: Send + Sync {
    /// A request for a handler arrived.
    fn started(&self) {}
    /// It was answered.
    fn finished(&self, record: &RequestRecord<'_>);
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field(
                "routes",
                &self.routes.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            )
            .field("limits", &self.limits)
            .field("http2", &self.http2)
            .finish()
    }
}

impl Server {
    /// A server presenting `identity`, with no routes yet, default
    /// [`Limits`], offering HTTP/2 and HTTP/1.1.
    pub fn new(identity: TlsIdentity) -> Self {
        Self {
            identity,
            routes: Vec::new(),
            limits: Limits::default(),
            http2: true,
            accepted: Arc::new(AtomicU64::new(0)),
            pages: Vec::new(),
            observer: None,
            ready: None,
        }
    }

    /// Serves the output of `render` on GET at exactly `path` (for
    /// example Prometheus metrics at `/metrics`).
    pub fn page(
        mut self,
        path: &str,
        content_type: &'static str,
        render: impl Fn() -> Vec<u8> + Send + Sync + 'static,
    ) -> Self {
        self.pages
            .push((path.to_owned(), (content_type, Arc::new(render))));
        self
    }

    /// Tells `observer` about every request a handler answers.
    pub fn observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// An extra readiness condition for `/readyz` (which also fails once
    /// the server shuts down).
    pub fn readiness(mut self, ready: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        self.ready = Some(Arc::new(ready));
        self
    }

    /// Serves `handler` at exactly `path`.
    pub fn route(mut self, path: &str, handler: impl Handler + 'static) -> Self {
        self.routes
            .push((path.to_owned(), Route::Interpreter(Arc::new(handler))));
        self
    }

    /// Serves a shared handler at exactly `path`.
    pub fn route_arc(mut self, path: &str, handler: Arc<dyn Handler>) -> Self {
        self.routes
            .push((path.to_owned(), Route::Interpreter(handler)));
        self
    }

    /// Serves a validating admission webhook at exactly `path`:
    /// `AdmissionReview` requests, decided by `handler` on the blocking
    /// pool (see [`crate::admission`]), one log line each. The
    /// [`Observer`] does not see them (it counts interpretation requests).
    pub fn admission(mut self, path: &str, handler: impl AdmissionHandler + 'static) -> Self {
        self.routes
            .push((path.to_owned(), Route::Admission(Arc::new(handler))));
        self
    }

    /// Changes the request body limit (default 3 MiB).
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.limits.max_body_bytes = limit;
        self
    }

    /// Replaces every limit.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Whether HTTP/2 is offered by ALPN (default: yes). Without it the
    /// server speaks HTTP/1.1 only.
    pub fn http2(mut self, enabled: bool) -> Self {
        self.http2 = enabled;
        self
    }

    /// TCP connections accepted so far (shared with the [`RunningServer`]).
    pub fn accepted_connections(&self) -> u64 {
        self.accepted.load(Ordering::Relaxed)
    }

    /// Serves connections from `listener` until `shutdown` completes, then
    /// stops accepting and waits (at most [`Limits::drain_timeout`]) for
    /// in-flight requests to finish.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), WebhookError> {
        let mut tls = self.identity.server_config()?;
        if !self.http2 {
            tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        }
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
        let limits = Arc::new(self.limits);
        let shared = Arc::new(Shared {
            routes: self.routes,
            requests: Semaphore::new(limits.max_concurrent_requests.max(1)),
            limits: limits.clone(),
            pages: self.pages,
            observer: self.observer,
            ready: self.ready,
            stopping: std::sync::atomic::AtomicBool::new(false),
        });
        let builder = Arc::new(connection_builder(&limits, self.http2));
        let connections = Arc::new(Semaphore::new(limits.max_connections.max(1)));
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            // Back-pressure: no accept while every connection slot is taken.
            let permit = tokio::select! {
                p = connections.clone().acquire_owned() => p,
                () = &mut shutdown => break,
            };
            let Ok(permit) = permit else { break };
            let accepted = tokio::select! {
                a = listener.accept() => a,
                () = &mut shutdown => break,
            };
            let Ok((tcp, _peer)) = accepted else {
                // Transient accept errors (e.g. too many open files): back off.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            self.accepted.fetch_add(1, Ordering::Relaxed);
            let _ = tcp.set_nodelay(true);
            let acceptor = acceptor.clone();
            let shared = shared.clone();
            let builder = builder.clone();
            let watcher = graceful.watcher();
            let handshake_timeout = limits.handshake_timeout;
            tokio::spawn(async move {
                let _permit = permit;
                let handshake = tokio::time::timeout(handshake_timeout, acceptor.accept(tcp)).await;
                let Ok(Ok(stream)) = handshake else { return };
                let service = service_fn(move |req| serve_one(req, shared.clone()));
                let conn = builder.serve_connection(TokioIo::new(stream), service);
                let _ = watcher.watch(conn).await;
            });
        }
        shared.stopping.store(true, Ordering::Relaxed);
        drop(listener);
        let _ = tokio::time::timeout(limits.drain_timeout, graceful.shutdown()).await;
        Ok(())
    }

    /// Starts the server on its own thread and runtime, bound to `addr`
    /// (port 0 picks a free port). Stops when the handle is stopped or dropped.
    pub fn start(self, addr: SocketAddr) -> Result<RunningServer, WebhookError> {
        self.start_text(addr).map_err(WebhookError::Server)
    }

    fn start_text(self, addr: SocketAddr) -> Result<RunningServer, String> {
        let std_listener = std::net::TcpListener::bind(addr)
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        std_listener
            .set_nonblocking(true)
            .map_err(|e| e.to_string())?;
        let local = std_listener.local_addr().map_err(|e| e.to_string())?;
        // Fail early on a bad certificate rather than in the thread.
        self.identity.server_config().map_err(|e| e.to_string())?;
        let accepted = self.accepted.clone();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("webhook-server-{local}"))
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => return Err(e.to_string()),
                };
                rt.block_on(async move {
                    let listener =
                        TcpListener::from_std(std_listener).map_err(|e| e.to_string())?;
                    self.run(listener, async {
                        let _ = rx.await;
                    })
                    .await
                    .map_err(|e| e.to_string())
                })
            })
            .map_err(|e| e.to_string())?;
        Ok(RunningServer {
            addr: local,
            accepted,
            stop: Some(tx),
            thread: Some(thread),
        })
    }
}

/// Concurrent HTTP/2 streams a client may open per connection (Go's
/// default); requests beyond [`Limits::max_concurrent_requests`] wait.
const MAX_STREAMS_PER_CONNECTION: u32 = 250;

/// The HTTP connection settings: HTTP/1.1 with a header read timeout, and
/// (when offered) HTTP/2 with a stream limit and keep-alive pings.
fn connection_builder(limits: &Limits, http2: bool) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    if http2 {
        builder
            .http2()
            .timer(TokioTimer::new())
            .max_concurrent_streams(MAX_STREAMS_PER_CONNECTION)
            .keep_alive_interval(Some(Duration::from_secs(30)))
            .keep_alive_timeout(limits.header_read_timeout);
        builder
    } else {
        builder.http1_only()
    }
}

struct Shared {
    routes: Vec<(String, Route)>,
    requests: Semaphore,
    limits: Arc<Limits>,
    pages: Vec<(String, Page)>,
    observer: Option<Arc<dyn Observer>>,
    ready: Option<Arc<dyn Fn() -> bool + Send + Sync>>,
    /// Set once shutdown begins: `/readyz` then fails.
    stopping: std::sync::atomic::AtomicBool,
}

/// A server started with [`Server::start`].
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    accepted: Arc<AtomicU64>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl RunningServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// TCP connections accepted so far: how a client's connection reuse is
    /// observed.
    pub fn accepted_connections(&self) -> u64 {
        self.accepted.load(Ordering::Relaxed)
    }

    /// Stops accepting, lets in-flight requests finish (at most
    /// [`Limits::drain_timeout`]) and joins the thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

type Answer = hyper::Response<Full<Bytes>>;

/// How much of an oversized body is read (and discarded) before answering.
const DRAIN_LIMIT: usize = 16 << 20;

/// Reads at most `max` bytes; `Err(None)` when the body is longer (the rest
/// is discarded up to [`DRAIN_LIMIT`]), `Err(Some(reason))` on read errors.
async fn read_body(mut body: Incoming, max: usize) -> Result<Bytes, Option<String>> {
    // A body that arrives in one frame (the usual case) is kept as it is;
    // the frames of a longer one are joined.
    let mut first: Option<Bytes> = None;
    let mut joined: Vec<u8> = Vec::new();
    let mut total: usize = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| Some(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total = total.saturating_add(data.len());
        if total > max {
            first = None;
            joined = Vec::new();
            if total > DRAIN_LIMIT {
                break;
            }
            continue;
        }
        match first.take() {
            None if joined.is_empty() => first = Some(data),
            None => joined.extend_from_slice(&data),
            Some(earlier) => {
                joined.extend_from_slice(&earlier);
                joined.extend_from_slice(&data);
            }
        }
    }
    if total > max {
        Err(None)
    } else {
        Ok(first.unwrap_or_else(|| Bytes::from(joined)))
    }
}

fn respond(status: u16, content_type: &str, body: Vec<u8>) -> Answer {
    let mut res = hyper::Response::new(Full::new(Bytes::from(body)));
    *res.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    if let Ok(v) = hyper::header::HeaderValue::from_str(content_type) {
        res.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
    }
    if status == 405 {
        res.headers_mut().insert(
            hyper::header::ALLOW,
            hyper::header::HeaderValue::from_static("POST"),
        );
    }
    res
}

async fn serve_one(
    req: hyper::Request<Incoming>,
    shared: Arc<Shared>,
) -> Result<Answer, Infallible> {
    let path = req.uri().path();
    if let Some(answer) = probe_or_page(path, &shared) {
        return Ok(answer);
    }
    let Some(route) = shared.routes.iter().position(|(p, _)| p == path) else {
        return Ok(respond(
            404,
            "text/plain; charset=utf-8",
            b"404 page not found\n".to_vec(),
        ));
    };
    let handler = shared.routes[route].1.clone();
    let started = std::time::Instant::now();
    if let (Some(observer), Route::Interpreter(_)) = (&shared.observer, &handler) {
        observer.started();
    }
    let limits = &shared.limits;
    let max_body = limits.max_body_bytes;
    let method = req.method().as_str().to_owned();
    let content_type = req
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let declared = req
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    // Far too large: answer at once (the connection is then closed).
    // Moderately too large: read and discard it first, so the client can
    // finish sending and read the answer.
    let body = if declared.is_some_and(|n| n > DRAIN_LIMIT.max(max_body) as u64) {
        Err(None)
    } else {
        let timeout = limits.body_read_timeout;
        match tokio::time::timeout(timeout, read_body(req.into_body(), max_body)).await {
            Err(_) => Err(Some(format!(
                "timed out reading the request body after {}s",
                timeout.as_secs_f64()
            ))),
            Ok(r) => r,
        }
    };
    // Back-pressure: wait for a handler slot (the semaphore is never closed).
    let Ok(_slot) = shared.requests.acquire().await else {
        return Ok(respond(
            503,
            "text/plain; charset=utf-8",
            b"shutting down\n".to_vec(),
        ));
    };
    let path = &shared.routes[route].0;
    let handler = match handler {
        Route::Interpreter(handler) => handler,
        Route::Admission(handler) => {
            let answer = review(handler, method, content_type, body, max_body, path, started).await;
            return Ok(respond(answer.status, "application/json", answer.body));
        }
    };
    let done = Exchange::answer(handler, method, content_type, body, limits).await;
    done.record(path, started, &shared);
    Ok(respond(
        done.answer.status,
        "application/json",
        done.answer.body,
    ))
}

/// Answers an admission review on the blocking pool (a customization's
/// scripts are compiled and run to check them) and logs it (`tracing`,
/// target `karmada_interpreter::webhook::admission`).
async fn review(
    handler: Arc<dyn AdmissionHandler>,
    method: String,
    content_type: Option<String>,
    body: ReadBody,
    max_body: usize,
    path: &str,
    started: std::time::Instant,
) -> sdk::HttpAnswer {
    let work = move || {
        let mut noted = admission::Reviewed::default();
        let answer = admission::handle_http_noting(
            handler.as_ref(),
            &method,
            content_type.as_deref(),
            as_body(&body, max_body),
            &mut noted,
        );
        (answer, noted)
    };
    let (answer, noted) = tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        let mut noted = admission::Reviewed::default();
        let message = format!("the admission handler failed: {e}");
        (admission::failed(500, message, &mut noted), noted)
    });
    tracing::info!(
        target: "karmada_interpreter::webhook::admission",
        path,
        uid = noted.uid.as_str(),
        operation = noted.operation.as_str(),
        kind = noted.kind.as_str(),
        name = noted.name.as_str(),
        allowed = noted.allowed,
        status = answer.status,
        code = noted.code,
        error = noted.message.as_str(),
        duration_ms = started.elapsed().as_secs_f64() * 1e3,
        "admission review"
    );
    answer
}

/// Probes and pages: `/readyz` (503 once shutting down or while the
/// readiness condition fails), `/livez` and `/healthz` (the server answers),
/// and the pages added with [`Server::page`] (GET).
fn probe_or_page(path: &str, shared: &Shared) -> Option<Answer> {
    const TEXT: &str = "text/plain; charset=utf-8";
    match path {
        "/readyz" | "/readyz/" => {
            let ready = !shared.stopping.load(Ordering::Relaxed)
                && shared.ready.as_ref().is_none_or(|r| r());
            Some(if ready {
                respond(200, TEXT, b"ok".to_vec())
            } else {
                respond(503, TEXT, b"not ready\n".to_vec())
            })
        }
        "/livez" | "/livez/" | "/healthz" | "/healthz/" => Some(respond(200, TEXT, b"ok".to_vec())),
        _ => shared
            .pages
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, (content_type, render))| respond(200, content_type, render())),
    }
}

/// Bodies up to this size are decoded on the I/O thread; larger ones (their
/// decoding alone takes a while) go to the blocking pool whole.
const INLINE_BODY_BYTES: usize = 64 << 10;

/// One request's way through the handler, and what to log about it.
struct Exchange {
    answer: sdk::HttpAnswer,
    request: Option<sdk::RawRequest>,
    served: sdk::Served,
    on_io_thread: bool,
}

type ReadBody = Result<Bytes, Option<String>>;

impl Exchange {
    /// Answers on the I/O thread when the body is small and the handler
    /// answers quickly, within [`Limits::inline_budget`]; otherwise (or
    /// when the budget ran out) on the blocking pool.
    async fn answer(
        handler: Arc<dyn Handler>,
        method: String,
        content_type: Option<String>,
        body: ReadBody,
        limits: &Limits,
    ) -> Self {
        let max_body = limits.max_body_bytes;
        let small = matches!(&body, Ok(b) if b.len() <= INLINE_BODY_BYTES);
        if !small || limits.inline_budget.is_zero() {
            return Self::on_pool(move || {
                let read = as_body(&body, max_body);
                match sdk::decode_http(&method, content_type.as_deref(), read) {
                    Ok(request) => Self::run(handler.as_ref(), request),
                    Err(answer) => Self::refused(answer),
                }
            })
            .await;
        }
        let request =
            match sdk::decode_http(&method, content_type.as_deref(), as_body(&body, max_body)) {
                Ok(request) => request,
                Err(answer) => return Self::refused(answer),
            };
        if handler.answers_quickly(&request) {
            let mut served = sdk::Served::default();
            let (answer, exhausted) =
                karmada_interpreter_core::budget::within(limits.inline_budget, || {
                    sdk::answer(handler.as_ref(), &request, &mut served)
                });
            if !exhausted {
                return Self {
                    answer,
                    request: Some(request),
                    served,
                    on_io_thread: true,
                };
            }
        }
        Self::on_pool(move || Self::run(handler.as_ref(), request)).await
    }

    fn run(handler: &dyn Handler, request: sdk::RawRequest) -> Self {
        let mut served = sdk::Served::default();
        let answer = sdk::answer(handler, &request, &mut served);
        Self {
            answer,
            request: Some(request),
            served,
            on_io_thread: false,
        }
    }

    fn refused(answer: sdk::HttpAnswer) -> Self {
        Self {
            answer,
            request: None,
            served: sdk::Served::default(),
            on_io_thread: true,
        }
    }

    async fn on_pool(work: impl FnOnce() -> Self + Send + 'static) -> Self {
        tokio::task::spawn_blocking(work)
            .await
            .unwrap_or_else(|e| Self {
                answer: sdk::HttpAnswer {
                    status: 200,
                    body: sdk::encode_response(&sdk::errored(
                        500,
                        format!("the handler failed: {e}"),
                    )),
                },
                request: None,
                served: sdk::Served::default(),
                on_io_thread: false,
            })
    }

    /// The request log line (`tracing`, target `karmada_interpreter::webhook::request`)
    /// and the observer's record.
    fn record(&self, path: &str, started: std::time::Instant, shared: &Shared) {
        let duration = started.elapsed();
        let empty_kind;
        let (uid, operation, kind) = match &self.request {
            Some(r) => (r.uid.as_str(), r.operation_name.as_str(), &r.kind),
            None => {
                empty_kind = kube::core::GroupVersionKind::gvk("", "", "");
                ("", "", &empty_kind)
            }
        };
        let served = &self.served;
        tracing::info!(
            target: "karmada_interpreter::webhook::request",
            path,
            uid,
            operation,
            kind = %KindLabel(kind),
            layer = served.layer.map_or("", |l| l.as_str()),
            customization = served.name.as_deref().unwrap_or(""),
            status = self.answer.status,
            code = served.code,
            successful = served.successful,
            script_timeout = served.script_timeout,
            error = served.error.as_deref().unwrap_or(""),
            health = served.reason.as_ref().map_or("", |r| r.status),
            reason = served.reason.as_ref().map_or("", |r| r.message.as_str()),
            duration_ms = duration.as_secs_f64() * 1e3,
            thread = if self.on_io_thread { "io" } else { "pool" },
            "request"
        );
        if let Some(observer) = &shared.observer {
            observer.finished(&RequestRecord {
                path,
                uid,
                operation,
                kind,
                served,
                http_status: self.answer.status,
                duration,
                on_io_thread: self.on_io_thread,
            });
        }
    }
}

/// `group/version/Kind` (`version/Kind` for the core group, empty when unknown).
pub struct KindLabel<'a>(pub &'a kube::core::GroupVersionKind);

impl std::fmt::Display for KindLabel<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let k = self.0;
        if k.kind.is_empty() && k.version.is_empty() {
            return Ok(());
        }
        if !k.group.is_empty() {
            write!(f, "{}/", k.group)?;
        }
        write!(f, "{}/{}", k.version, k.kind)
    }
}

fn as_body(body: &ReadBody, max_body: usize) -> Body<'_> {
    match body {
        Ok(b) => Body::Bytes(b),
        Err(None) => Body::TooLarge(max_body),
        Err(Some(e)) => Body::ReadError(e),
    }
}
