//! The HTTPS client (feature `webhook`).
//!
//! The chain's [`crate::interpreter::Layer::interpret`] is synchronous, so
//! the client exposes a blocking `WebhookClient::call`. Inside, each client
//! owns a small current-thread tokio runtime (created on first use, never
//! global) that drives hyper's HTTP/1.1 connection over tokio-rustls. When
//! `call` is itself invoked from inside a tokio runtime (for example from a
//! server handler), the call runs on a scoped helper thread, because a
//! runtime cannot block inside another one. Each call opens its own
//! connection (no pooling): simple, and interpreter calls are infrequent.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;

use super::endpoint::Endpoint;
use super::error::WebhookError;
use super::wire;
use super::Hook;
use crate::api::ResourceInterpreterContext;
use crate::interpreter::{Outcome, Request};

/// Overall limit of one call when a webhook sets no `timeoutSeconds` (§2.6.5).
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
        }
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
                tokio::runtime::Builder::new_current_thread()
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

    /// Sends the body and returns the answer body of a 2xx response.
    async fn transport(&self, hook: &Hook, body: Vec<u8>) -> Result<Vec<u8>, String> {
        let cc = &hook.webhook.client_config;
        let endpoint = Endpoint::from_client_config(cc)
            .map_err(|e| format!("could not get REST client: {e}"))?;
        let ca = cc.ca_bundle.as_ref().map(|b| b.0.as_slice()).unwrap_or(&[]);
        let tls =
            super::tls::client_config(ca).map_err(|e| format!("could not get REST client: {e}"))?;
        let connector = tokio_rustls::TlsConnector::from(Arc::new(tls));
        let server_name = ServerName::try_from(endpoint.server_name.clone())
            .map_err(|e| format!("could not get REST client: invalid server name: {e}"))?;
        let timeout = hook
            .webhook
            .timeout_seconds
            .filter(|t| *t > 0)
            .map(|t| Duration::from_secs(t.unsigned_abs().into()))
            .unwrap_or(self.default_timeout);
        let query_secs = timeout.as_secs_f64().ceil().max(1.0) as u64;
        let target = format!("{}?timeout={query_secs}s", endpoint.path);
        let url = format!("{}?timeout={query_secs}s", endpoint.url());
        let deadline = Instant::now() + timeout;
        let body = Bytes::from(body);
        let attempt = async {
            let mut retries = 0;
            loop {
                let (status, retry_after, answer) = self
                    .once(&endpoint, &connector, &server_name, &target, body.clone())
                    .await?;
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
        match tokio::time::timeout(timeout, attempt).await {
            Err(_) => Err(format!(
                "failed to call webhook: Post {url:?}: context deadline exceeded (timeout {}s)",
                timeout.as_secs()
            )),
            Ok(Err(e)) => Err(format!("failed to call webhook: Post {url:?}: {e}")),
            Ok(Ok(answer)) => Ok(answer),
        }
    }

    async fn once(
        &self,
        endpoint: &Endpoint,
        connector: &tokio_rustls::TlsConnector,
        server_name: &ServerName<'static>,
        target: &str,
        body: Bytes,
    ) -> Result<(u16, Option<Duration>, Vec<u8>), String> {
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
            .map_err(|e| format!("tls: {e}"))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .map_err(|e| format!("http handshake: {e}"))?;
        let len = body.len();
        let req = hyper::Request::builder()
            .method("POST")
            .uri(target)
            .header("Host", &endpoint.host_header)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, */*")
            .header("User-Agent", "kube-apiserver-admission")
            .header("Content-Length", len)
            .body(Full::new(body))
            .map_err(|e| format!("cannot build the request: {e}"))?;
        let exchange = async {
            let res = sender
                .send_request(req)
                .await
                .map_err(|e| format!("sending the request: {e}"))?;
            let status = res.status().as_u16();
            let retry_after = res
                .headers()
                .get("Retry-After")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
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
            Ok((status, retry_after, collected.to_bytes().to_vec()))
        };
        // Drive the connection and the exchange together in this future (no
        // spawned task), so every call is self-contained on the runtime.
        let mut exchange = std::pin::pin!(exchange);
        let mut conn = std::pin::pin!(conn);
        let mut conn_done = false;
        loop {
            tokio::select! {
                result = &mut exchange => return result,
                _ = &mut conn, if !conn_done => conn_done = true,
            }
        }
    }
}
