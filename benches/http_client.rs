//! A TLS client for `serve` and the SDK server, shared by the benches that
//! load them (included with `mod http_client;`): one connection speaking
//! HTTP/1.1 or HTTP/2, one request in flight at a time.

use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::{TokioExecutor, TokioIo};
use karmada_interpreter::webhook::tls;

/// One open connection.
pub enum Conn {
    /// HTTP/1.1 (ALPN `http/1.1`).
    H1(hyper::client::conn::http1::SendRequest<Full<Bytes>>),
    /// HTTP/2 (ALPN `h2`).
    H2(hyper::client::conn::http2::SendRequest<Full<Bytes>>),
}

/// A TLS connector trusting `ca` (PEM) and offering one protocol by ALPN.
pub fn connector(ca: &str, h2: bool) -> tokio_rustls::TlsConnector {
    let mut config = tls::client_config(ca.as_bytes()).expect("client TLS");
    config.alpn_protocols = vec![if h2 {
        b"h2".to_vec()
    } else {
        b"http/1.1".to_vec()
    }];
    tokio_rustls::TlsConnector::from(Arc::new(config))
}

/// The URI to post to: absolute for HTTP/2, the path for HTTP/1.1.
pub fn uri(addr: SocketAddr, path: &str, h2: bool) -> hyper::Uri {
    if h2 {
        format!("https://127.0.0.1:{}{path}", addr.port())
    } else {
        path.to_owned()
    }
    .parse()
    .expect("uri")
}

/// Opens a connection (its driver spawned on the current runtime).
pub async fn connect(
    addr: SocketAddr,
    connector: &tokio_rustls::TlsConnector,
    h2: bool,
) -> Result<Conn, String> {
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let _ = tcp.set_nodelay(true);
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").map_err(|e| e.to_string())?;
    let io = TokioIo::new(
        connector
            .connect(name, tcp)
            .await
            .map_err(|e| e.to_string())?,
    );
    if h2 {
        let (send, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        Ok(Conn::H2(send))
    } else {
        let (send, conn) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        Ok(Conn::H1(send))
    }
}

impl Conn {
    /// Posts `body` (JSON) to `uri` and reads the whole answer: whether it
    /// was a 200 whose body says `"successful":true`.
    pub async fn post(&mut self, uri: &hyper::Uri, body: &Bytes) -> bool {
        let req = hyper::Request::post(uri.clone())
            .header("content-type", "application/json")
            .header("host", "127.0.0.1")
            .body(Full::new(body.clone()))
            .expect("request");
        let res = match self {
            Conn::H1(s) => match s.ready().await {
                Ok(()) => s.send_request(req).await,
                Err(e) => Err(e),
            },
            Conn::H2(s) => match s.ready().await {
                Ok(()) => s.send_request(req).await,
                Err(e) => Err(e),
            },
        };
        match res {
            Ok(res) => {
                let ok = res.status() == 200;
                match res.into_body().collect().await {
                    Ok(b) => {
                        ok && b
                            .to_bytes()
                            .windows(17)
                            .any(|w| w == b"\"successful\":true")
                    }
                    Err(_) => false,
                }
            }
            Err(_) => false,
        }
    }
}
