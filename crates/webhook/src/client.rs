//! The HTTPS client (feature `webhook`).
//!
//! The chain's [`karmada_interpreter_core::interpreter::Layer::interpret`] is synchronous, so
//! the client exposes a blocking `WebhookClient::call`. Inside, each client
//! owns a small current-thread tokio runtime (created on first use, never
//! global) that drives hyper's HTTP/1.1 connection over tokio-rustls. When
//! `call` is itself invoked from inside a tokio runtime (for example from a
//! server handler), the call runs on a scoped helper thread, because a
//! runtime cannot block inside another one.
//!
//! Connections are reused, as Go's client does: per endpoint (dialled
//! address, TLS server name and caBundle) the client keeps one multiplexed
//! HTTP/2 connection when the server offers `h2` by ALPN, otherwise a pool
//! of idle keep-alive HTTP/1.1 connections. Calls from any thread share
//! them; each call's timeout covers waiting for, or opening, a connection.
//! The runtime has one worker thread, which drives open connections between
//! calls.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;

use super::endpoint::Endpoint;
use super::error::WebhookError;
use super::wire;
use super::Hook;
use karmada_interpreter_core::api::{ResourceInterpreterContext, ResourceInterpreterWebhook};
use karmada_interpreter_core::interpreter::{Outcome, Request};

/// Overall limit of one call when a webhook sets no `timeoutSeconds` (Karmada's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default limit on an answer's body size.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 << 20;
const MAX_RETRIES: usize = 10;

/// One request/answer exchange with a webhook, kept for inspection
/// (the conformance suite's protocol checks).
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The envelope sent.
    pub request: ResourceInterpreterContext,
    /// The raw answer body, when one was received.
    pub response_body: Option<Vec<u8>>,
    /// The verified result, or Karmada's reason text for the failure.
    pub result: Result<Outcome, WebhookError>,
}

/// Calls interpreter webhooks over HTTPS. Cheap to share (`&self` methods).
#[derive(Debug)]
pub struct WebhookClient {
    runtime: OnceLock<Result<tokio::runtime::Runtime, String>>,
    max_response_bytes: usize,
    default_timeout: Duration,
    overrides: Vec<(String, u16, SocketAddr)>,
    http2: bool,
    pool: Mutex<HashMap<PoolKey, Pooled>>,
}

/// What makes two calls able to share a connection.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PoolKey {
    dial_host: String,
    port: u16,
    server_name: String,
    ca_bundle: Vec<u8>,
}

/// The connections of one endpoint.
#[derive(Debug, Default)]
struct Pooled {
    /// TLS settings, built once per endpoint.
    tls: Option<Arc<rustls::ClientConfig>>,
    /// The shared HTTP/2 connection, once the server chose `h2`.
    h2: Option<hyper::client::conn::http2::SendRequest<Full<Bytes>>>,
    /// Idle HTTP/1.1 connections.
    h1: Vec<hyper::client::conn::http1::SendRequest<Full<Bytes>>>,
}

/// Idle HTTP/1.1 connections kept per endpoint (Go's default is 2; the
/// chain may call from many threads at once).
const MAX_IDLE_PER_ENDPOINT: usize = 32;

/// A connection ready for one request.
enum Sender {
    H1(hyper::client::conn::http1::SendRequest<Full<Bytes>>),
    H2(hyper::client::conn::http2::SendRequest<Full<Bytes>>),
}

impl Drop for WebhookClient {
    fn drop(&mut self) {
        // Dropping a runtime inside an asynchronous context panics (a layer
        // replaced by a cluster watcher, or released by an async caller).
        // This one runs nothing between calls: shut it down without waiting.
        if let Some(Ok(runtime)) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Default for WebhookClient {
    fn default() -> Self {
        Self::new()
    }
}

impl WebhookClient {
    /// A client with the reference's defaults (30 s without `timeoutSeconds`)
    /// and a 16 MiB answer limit.
    pub fn new() -> Self {
        Self {
            runtime: OnceLock::new(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            default_timeout: DEFAULT_TIMEOUT,
            overrides: Vec::new(),
            http2: true,
            pool: Mutex::new(HashMap::new()),
        }
    }

    /// Whether HTTP/2 is offered by ALPN (default: yes). Without it every
    /// call uses HTTP/1.1.
    pub fn http2(mut self, enabled: bool) -> Self {
        self.http2 = enabled;
        self
    }

    /// Limits the size of an answer body; a larger answer is an error.
    pub fn max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// The limit for webhooks without `timeoutSeconds` (default 30 s).
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// Dials `addr` whenever a webhook's host is `host:port` (like curl's
    /// `--resolve`): how service references (`<name>.<namespace>.svc`) reach
    /// a server outside a cluster. TLS still verifies the configured name.
    pub fn resolve(mut self, host: &str, port: u16, addr: SocketAddr) -> Self {
        self.overrides.push((host.to_owned(), port, addr));
        self
    }

    fn runtime(&self) -> Result<&tokio::runtime::Runtime, String> {
        self.runtime
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("webhook-client")
                    .enable_all()
                    .build()
                    .map_err(|e| format!("cannot start the webhook client runtime: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Calls `hook` for `request`, blocking until the answer or the timeout.
    /// `Exchange::result` holds the outcome or the reason (Karmada's text).
    pub(crate) fn call(&self, hook: &Hook, request: &Request<'_>) -> Exchange {
        let sent = match wire::negotiate_version(&hook.webhook.interpreter_context_versions)
            .and_then(|_| wire::build_request(request))
        {
            Ok(ctx) => ctx,
            Err(reason) => {
                return Exchange {
                    request: ResourceInterpreterContext::default(),
                    response_body: None,
                    result: Err(reason),
                }
            }
        };
        let runtime = match self.runtime() {
            Ok(rt) => rt,
            Err(e) => {
                return Exchange {
                    request: sent,
                    response_body: None,
                    result: Err(WebhookError::Call(e)),
                }
            }
        };
        let run = || runtime.block_on(self.exchange(hook, sent.clone()));
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|s| match s.spawn(run).join() {
                Ok(x) => x,
                Err(_) => Exchange {
                    request: sent.clone(),
                    response_body: None,
                    result: Err(WebhookError::Call(
                        "the webhook client thread panicked".to_owned(),
                    )),
                },
            })
        } else {
            run()
        }
    }

    async fn exchange(&self, hook: &Hook, sent: ResourceInterpreterContext) -> Exchange {
        let mut ex = Exchange {
            request: sent,
            response_body: None,
            result: Err(WebhookError::Call(String::new())),
        };
        let Some(req) = ex.request.request.clone() else {
            ex.result = Err(WebhookError::Request(
                "internal error: no request to send".into(),
            ));
            return ex;
        };
        let body = match wire::encode_request(&ex.request) {
            Ok(b) => b,
            Err(e) => {
                ex.result = Err(e);
                return ex;
            }
        };
        match self.transport(hook, body).await {
            Err(reason) => ex.result = Err(WebhookError::Call(reason)),
            Ok(answer) => {
                ex.result = wire::decode_response(&answer)
                    .map_err(|e| WebhookError::Response(format!("failed to call webhook: {e}")))
                    .and_then(|ctx| wire::interpret_response(ctx, &req));
                ex.response_body = Some(answer);
            }
        }
        ex
    }

    /// Where and how a call to `webhook` goes: endpoint, pool key, TLS,
    /// timeout and request target.
    fn prepare(&self, webhook: &ResourceInterpreterWebhook) -> Result<Target, String> {
        let cc = &webhook.client_config;
        let endpoint = Endpoint::from_client_config(cc)
            .map_err(|e| format!("could not get REST client: {e}"))?;
        let key = PoolKey {
            dial_host: endpoint.dial_host.clone(),
            port: endpoint.port,
            server_name: endpoint.server_name.clone(),
            ca_bundle: cc
                .ca_bundle
                .as_ref()
                .map(|b| b.0.clone())
                .unwrap_or_default(),
        };
        let connector = self
            .connector(&key)
            .map_err(|e| format!("could not get REST client: {e}"))?;
        let server_name = ServerName::try_from(endpoint.server_name.clone())
            .map_err(|e| format!("could not get REST client: invalid server name: {e}"))?;
        let timeout = webhook
            .timeout_seconds
            .filter(|t| *t > 0)
            .map(|t| Duration::from_secs(t.unsigned_abs().into()))
            .unwrap_or(self.default_timeout);
        let query_secs = timeout.as_secs_f64().ceil().max(1.0) as u64;
        let target = format!("{}?timeout={query_secs}s", endpoint.path);
        let url = format!("{}?timeout={query_secs}s", endpoint.url());
        Ok(Target {
            endpoint,
            key,
            connector,
            server_name,
            timeout,
            target,
            url,
        })
    }

    /// Sends the body and returns the answer body of a 2xx response.
    async fn transport(&self, hook: &Hook, body: Vec<u8>) -> Result<Vec<u8>, String> {
        let t = self.prepare(&hook.webhook)?;
        let deadline = Instant::now() + t.timeout;
        let body = Bytes::from(body);
        let attempt = async {
            let mut retries = 0;
            loop {
                let (status, retry_after, answer) = self.once(&t, body.clone(), None).await?;
                if (status == 429 || status >= 500) && retries < MAX_RETRIES {
                    if let Some(wait) = retry_after {
                        if Instant::now() + wait < deadline {
                            retries += 1;
                            tokio::time::sleep(wait).await;
                            continue;
                        }
                    }
                }
                if !(200..=206).contains(&status) {
                    let text = String::from_utf8_lossy(&answer);
                    return Err(format!(
                        "an error on the server ({:?}) has prevented the request from succeeding (HTTP status {status})",
                        wire::short(text.trim())
                    ));
                }
                return Ok(answer);
            }
        };
        match tokio::time::timeout(t.timeout, attempt).await {
            Err(_) => Err(timed_out(&t)),
            Ok(Err(e)) => Err(format!("failed to call webhook: Post {:?}: {e}", t.url)),
            Ok(Ok(answer)) => Ok(answer),
        }
    }

    /// Posts `body` as it is (no envelope built, no retry, no status or
    /// answer check) to `webhook`, within its timeout, on the client's
    /// pooled connections: the robustness suite sends bodies Karmada's
    /// client would not build (a malformed body, an unknown envelope
    /// version, a request without `replicas`) this way. With `read_pause`,
    /// the answer's body is read only that long after its headers arrived
    /// (a slow reader). `Err` holds the reason no answer came (timeout,
    /// refused or dropped connection), in Karmada's words.
    pub fn post_raw(
        &self,
        webhook: &ResourceInterpreterWebhook,
        body: Vec<u8>,
        read_pause: Option<Duration>,
    ) -> Result<RawAnswer, WebhookError> {
        let runtime = self.runtime().map_err(WebhookError::Call)?;
        let run = || {
            runtime.block_on(async {
                let started = Instant::now();
                let t = self.prepare(webhook).map_err(WebhookError::Call)?;
                match tokio::time::timeout(t.timeout, self.once(&t, Bytes::from(body), read_pause))
                    .await
                {
                    Err(_) => Err(WebhookError::Call(timed_out(&t))),
                    Ok(Err(e)) => Err(WebhookError::Call(format!(
                        "failed to call webhook: Post {:?}: {e}",
                        t.url
                    ))),
                    Ok(Ok((status, _, body))) => Ok(RawAnswer {
                        status,
                        body,
                        elapsed: started.elapsed(),
                    }),
                }
            })
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|s| {
                s.spawn(run).join().unwrap_or_else(|_| {
                    Err(WebhookError::Call(
                        "the webhook client thread panicked".to_owned(),
                    ))
                })
            })
        } else {
            run()
        }
    }

    /// The endpoint's TLS connector, built on first use.
    fn connector(&self, key: &PoolKey) -> Result<tokio_rustls::TlsConnector, String> {
        if let Some(c) = self.lock_pool().get(key).and_then(|p| p.tls.clone()) {
            return Ok(tokio_rustls::TlsConnector::from(c));
        }
        let mut tls = super::tls::client_config(&key.ca_bundle).map_err(|e| e.to_string())?;
        if !self.http2 {
            tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        }
        let tls = Arc::new(tls);
        self.lock_pool().entry(key.clone()).or_default().tls = Some(tls.clone());
        Ok(tokio_rustls::TlsConnector::from(tls))
    }

    fn lock_pool(&self) -> std::sync::MutexGuard<'_, HashMap<PoolKey, Pooled>> {
        // A panic while holding the lock leaves the map consistent.
        self.pool
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// An open connection from the pool: the shared HTTP/2 one, or an idle
    /// HTTP/1.1 one.
    fn pooled(&self, key: &PoolKey) -> Option<Sender> {
        let mut pool = self.lock_pool();
        let entry = pool.get_mut(key)?;
        if let Some(h2) = &entry.h2 {
            if !h2.is_closed() {
                return Some(Sender::H2(h2.clone()));
            }
            entry.h2 = None;
        }
        // Released connections may still be finishing the last exchange
        // (`ready` waits for that); closed ones are dropped.
        while let Some(h1) = entry.h1.pop() {
            if !h1.is_closed() {
                return Some(Sender::H1(h1));
            }
        }
        None
    }

    /// Puts an HTTP/1.1 connection whose exchange completed back in the pool.
    fn release(&self, key: &PoolKey, sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>) {
        let mut pool = self.lock_pool();
        let entry = pool.entry(key.clone()).or_default();
        if entry.h1.len() < MAX_IDLE_PER_ENDPOINT {
            entry.h1.push(sender);
        }
    }

    /// Opens a connection (TCP, TLS, then HTTP/2 or HTTP/1.1 as the server
    /// chose by ALPN); its driver runs on the client's runtime.
    async fn connect(
        &self,
        key: &PoolKey,
        endpoint: &Endpoint,
        connector: &tokio_rustls::TlsConnector,
        server_name: &ServerName<'static>,
    ) -> Result<Sender, String> {
        let overridden = self
            .overrides
            .iter()
            .find(|(h, p, _)| *h == endpoint.dial_host && *p == endpoint.port)
            .map(|(_, _, a)| *a);
        let tcp = match overridden {
            Some(addr) => tokio::net::TcpStream::connect(addr).await,
            None => {
                tokio::net::TcpStream::connect((endpoint.dial_host.as_str(), endpoint.port)).await
            }
        }
        .map_err(|e| format!("dial tcp {}:{}: {e}", endpoint.dial_host, endpoint.port))?;
        let _ = tcp.set_nodelay(true);
        let tls = connector
            .connect(server_name.clone(), tcp)
            .await
            .map_err(|e| format!("tls: {}", io_error_words(&e)))?;
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
        let io = TokioIo::new(tls);
        if h2 {
            let (sender, conn) =
                hyper::client::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                    .timer(hyper_util::rt::TokioTimer::new())
                    .keep_alive_interval(Some(Duration::from_secs(30)))
                    .handshake(io)
                    .await
                    .map_err(|e| format!("http2 handshake: {e}"))?;
            tokio::spawn(conn);
            // Another call may have connected meanwhile: keep one of them.
            let mut pool = self.lock_pool();
            let entry = pool.entry(key.clone()).or_default();
            match &entry.h2 {
                Some(existing) if !existing.is_closed() => {}
                _ => entry.h2 = Some(sender.clone()),
            }
            Ok(Sender::H2(sender))
        } else {
            let (sender, conn) = hyper::client::conn::http1::handshake(io)
                .await
                .map_err(|e| format!("http handshake: {e}"))?;
            tokio::spawn(conn);
            Ok(Sender::H1(sender))
        }
    }

    /// One request, on a pooled connection when there is one. A pooled
    /// connection the server closed before taking the request is replaced
    /// by a new one once (the request was not sent, so it is safe to resend).
    async fn once(
        &self,
        t: &Target,
        body: Bytes,
        read_pause: Option<Duration>,
    ) -> Result<(u16, Option<Duration>, Vec<u8>), String> {
        let (key, endpoint, connector, server_name, target) = (
            &t.key,
            &t.endpoint,
            &t.connector,
            &t.server_name,
            t.target.as_str(),
        );
        let len = body.len();
        let mut req = hyper::Request::builder()
            .method("POST")
            .uri(target)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, */*")
            .header("User-Agent", "kube-apiserver-admission")
            .header("Content-Length", len)
            .body(Full::new(body))
            .map_err(|e| format!("cannot build the request: {e}"))?;
        let mut fresh = false;
        let mut sender = match self.pooled(key) {
            Some(s) => s,
            None => {
                fresh = true;
                self.connect(key, endpoint, connector, server_name).await?
            }
        };
        let res = loop {
            let ready = match &mut sender {
                Sender::H2(s) => s.ready().await,
                Sender::H1(s) => s.ready().await,
            };
            if let Err(e) = ready {
                if fresh {
                    return Err(format!("connection: {e}"));
                }
                // A pooled connection the server closed meanwhile (it
                // answered `Connection: close`, or its idle timeout ran
                // out) before anything of this request was written: a new
                // connection, as Go's transport retries such a request.
                fresh = true;
                sender = self.connect(key, endpoint, connector, server_name).await?;
                continue;
            }
            let sent = match &mut sender {
                Sender::H2(s) => {
                    // HTTP/2 takes the authority from the URI, not `Host`.
                    *req.uri_mut() = format!("https://{}{target}", endpoint.host_header)
                        .parse()
                        .map_err(|e| format!("cannot build the request: {e}"))?;
                    req.headers_mut().remove(hyper::header::HOST);
                    s.try_send_request(req).await
                }
                Sender::H1(s) => {
                    if let Ok(v) = hyper::header::HeaderValue::from_str(&endpoint.host_header) {
                        req.headers_mut().insert(hyper::header::HOST, v);
                    }
                    s.try_send_request(req).await
                }
            };
            match sent {
                Ok(res) => break res,
                Err(mut e) => match e.take_message() {
                    Some(unsent) if !fresh => {
                        req = unsent;
                        fresh = true;
                        sender = self.connect(key, endpoint, connector, server_name).await?;
                    }
                    _ => return Err(format!("sending the request: {}", e.error())),
                },
            }
        };
        let status = res.status().as_u16();
        // The server ends the connection after this answer: not pooled.
        let closing = res
            .headers()
            .get_all(hyper::header::CONNECTION)
            .iter()
            .any(|v| {
                v.to_str()
                    .is_ok_and(|v| v.to_ascii_lowercase().contains("close"))
            });
        let retry_after = res
            .headers()
            .get("Retry-After")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        if let Some(pause) = read_pause {
            tokio::time::sleep(pause).await;
        }
        let limit = self.max_response_bytes;
        let collected = Limited::new(res.into_body(), limit)
            .collect()
            .await
            .map_err(|e| {
                if e.downcast_ref::<http_body_util::LengthLimitError>()
                    .is_some()
                {
                    format!("the answer is larger than the limit of {limit} bytes")
                } else {
                    format!("reading the answer: {e}")
                }
            })?;
        // The exchange completed: an HTTP/1.1 connection may serve the next
        // call, unless the server said it closes it.
        if let (Sender::H1(s), false) = (sender, closing) {
            self.release(key, s);
        }
        Ok((status, retry_after, collected.to_bytes().to_vec()))
    }
}

/// Everything a call to one webhook needs, worked out once per call.
struct Target {
    endpoint: Endpoint,
    key: PoolKey,
    connector: tokio_rustls::TlsConnector,
    server_name: ServerName<'static>,
    timeout: Duration,
    /// Path and query sent.
    target: String,
    /// The whole URL, for messages.
    url: String,
}

/// Karmada's words for a call that ran out of time.
fn timed_out(t: &Target) -> String {
    format!(
        "failed to call webhook: Post {:?}: context deadline exceeded (timeout {}s)",
        t.url,
        t.timeout.as_secs()
    )
}

/// What a webhook answered to [`WebhookClient::post_raw`].
#[derive(Debug, Clone)]
pub struct RawAnswer {
    /// The HTTP status.
    pub status: u16,
    /// The answer body as received.
    pub body: Vec<u8>,
    /// From sending to the last byte of the answer.
    pub elapsed: Duration,
}

/// An I/O error from the TLS handshake, with rustls errors in words.
fn io_error_words(e: &std::io::Error) -> String {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        Some(tls) => super::tls::tls_error_words(tls),
        None => e.to_string(),
    }
}
