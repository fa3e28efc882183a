//! A TLS HTTP server hosting SDK handlers (feature `webhook`): hyper over
//! tokio-rustls (ring provider), HTTP/1.1, exact-match paths (unknown paths
//! get 404), `/readyz` answering `ok`, bodies limited to
//! [`sdk::MAX_REQUEST_BODY_BYTES`], graceful shutdown.
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
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::sdk::{self, Body, Handler};
use super::tls::TlsIdentity;

/// A webhook server: routes and TLS identity.
#[derive(Clone)]
pub struct Server {
    identity: TlsIdentity,
    routes: Vec<(String, Arc<dyn Handler>)>,
    max_body_bytes: usize,
    drain_timeout: Duration,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field(
                "routes",
                &self.routes.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            )
            .field("max_body_bytes", &self.max_body_bytes)
            .finish()
    }
}

impl Server {
    /// A server presenting `identity`, with no routes yet.
    pub fn new(identity: TlsIdentity) -> Self {
        Self {
            identity,
            routes: Vec::new(),
            max_body_bytes: sdk::MAX_REQUEST_BODY_BYTES,
            drain_timeout: Duration::from_secs(10),
        }
    }

    /// Serves `handler` at exactly `path`.
    pub fn route(mut self, path: &str, handler: impl Handler + 'static) -> Self {
        self.routes.push((path.to_owned(), Arc::new(handler)));
        self
    }

    /// Serves a shared handler at exactly `path`.
    pub fn route_arc(mut self, path: &str, handler: Arc<dyn Handler>) -> Self {
        self.routes.push((path.to_owned(), handler));
        self
    }

    /// Changes the request body limit (default 1 MiB).
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.max_body_bytes = limit;
        self
    }

    /// Serves connections from `listener` until `shutdown` completes, then
    /// stops accepting and waits (at most 10 s) for open connections.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), String> {
        let tls = Arc::new(self.identity.server_config().map_err(|e| e.to_string())?);
        let acceptor = tokio_rustls::TlsAcceptor::from(tls);
        let routes = Arc::new(self.routes);
        let max_body = self.max_body_bytes;
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let accepted = tokio::select! {
                a = listener.accept() => a,
                () = &mut shutdown => break,
            };
            let Ok((tcp, _peer)) = accepted else {
                // Transient accept errors (e.g. too many open files): back off.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let acceptor = acceptor.clone();
            let routes = routes.clone();
            let watcher = graceful.watcher();
            tokio::spawn(async move {
                let handshake =
                    tokio::time::timeout(Duration::from_secs(10), acceptor.accept(tcp)).await;
                let Ok(Ok(stream)) = handshake else { return };
                let service = service_fn(move |req| serve_one(req, routes.clone(), max_body));
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(32))
                    .serve_connection(TokioIo::new(stream), service);
                let _ = watcher.watch(conn).await;
            });
        }
        drop(listener);
        let _ = tokio::time::timeout(self.drain_timeout, graceful.shutdown()).await;
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
                })
            })
            .map_err(|e| e.to_string())?;
        Ok(RunningServer {
            addr: local,
            stop: Some(tx),
            thread: Some(thread),
        })
    }
}

/// A server started with [`Server::start`].
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl RunningServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, drains open connections and joins the thread.
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
    let mut buf: Vec<u8> = Vec::new();
    let mut total: usize = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| Some(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        total = total.saturating_add(data.len());
        if total > max {
            buf = Vec::new();
            if total > DRAIN_LIMIT {
                break;
            }
            continue;
        }
        buf.extend_from_slice(&data);
    }
    if total > max {
        Err(None)
    } else {
        Ok(Bytes::from(buf))
    }
}

/// How long a client may take to send a request body.
const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

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
    routes: Arc<Vec<(String, Arc<dyn Handler>)>>,
    max_body: usize,
) -> Result<Answer, Infallible> {
    let path = req.uri().path().to_owned();
    if path == "/readyz" || path == "/readyz/" || path == "/healthz" {
        return Ok(respond(200, "text/plain; charset=utf-8", b"ok".to_vec()));
    }
    let Some(handler) = routes
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, h)| h.clone())
    else {
        return Ok(respond(
            404,
            "text/plain; charset=utf-8",
            b"404 page not found\n".to_vec(),
        ));
    };
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
    let body = if declared.is_some_and(|n| n > DRAIN_LIMIT as u64) {
        Err(None)
    } else {
        match tokio::time::timeout(BODY_READ_TIMEOUT, read_body(req.into_body(), max_body)).await {
            Err(_) => Err(Some(format!(
                "timed out reading the request body after {}s",
                BODY_READ_TIMEOUT.as_secs()
            ))),
            Ok(r) => r,
        }
    };
    let answer = tokio::task::spawn_blocking(move || {
        let body = match &body {
            Ok(b) => Body::Bytes(b),
            Err(None) => Body::TooLarge(max_body),
            Err(Some(e)) => Body::ReadError(e),
        };
        sdk::handle_http(handler.as_ref(), &method, content_type.as_deref(), body)
    })
    .await
    .unwrap_or_else(|e| sdk::HttpAnswer {
        status: 200,
        body: sdk::encode_response(&sdk::errored(500, format!("the handler failed: {e}"))),
    });
    Ok(respond(answer.status, "application/json", answer.body))
}
