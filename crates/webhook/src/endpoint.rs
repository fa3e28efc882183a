//! Where a webhook lives (its `clientConfig`): URL and service
//! references resolved to a scheme, a host to dial, a TLS server name, a
//! `Host` header and a request path. Free of HTTP.

use super::error::WebhookError;
use k8s_openapi::api::admissionregistration::v1::WebhookClientConfig;

/// A URL split the way Go's `net/url` splits it (enough for validation and dialing).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ParsedUrl {
    pub scheme: String,
    pub user: Option<String>,
    /// `host[:port]` as written (IPv6 in brackets).
    pub host: String,
    pub path: String,
    pub query: String,
    pub fragment: String,
}

impl ParsedUrl {
    pub fn parse(url: &str) -> Self {
        let (rest, fragment) = url.split_once('#').unwrap_or((url, ""));
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (scheme, rest) = match rest.split_once(':') {
            Some((s, r))
                if !s.is_empty()
                    && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
            {
                (s.to_ascii_lowercase(), r)
            }
            _ => (String::new(), rest),
        };
        let (authority, path) = match rest.strip_prefix("//") {
            Some(r) => match r.find('/') {
                Some(i) => (r.get(..i).unwrap_or(""), r.get(i..).unwrap_or("")),
                None => (r, ""),
            },
            None => ("", rest),
        };
        let (user, host) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u.to_owned()), h),
            None => (None, authority),
        };
        Self {
            scheme,
            user,
            host: host.to_owned(),
            path: path.to_owned(),
            query: query.to_owned(),
            fragment: fragment.to_owned(),
        }
    }
}

/// Go's `path.Clean` of a path rooted at `/`: `""` → `/`, trailing slash
/// dropped, duplicate slashes and `.`/`..` segments resolved.
///
/// ```
/// use karmada_interpreter::webhook::clean_path;
/// assert_eq!(clean_path(""), "/");
/// assert_eq!(clean_path("/a//b/"), "/a/b");
/// assert_eq!(clean_path("a/./b/../c"), "/a/c");
/// ```
pub fn clean_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// A resolved webhook endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Host to dial (DNS name or IP, IPv6 without brackets).
    pub dial_host: String,
    /// Port to dial.
    pub port: u16,
    /// TLS server name (SNI and certificate verification).
    pub server_name: String,
    /// `Host` header value.
    pub host_header: String,
    /// Request path (cleaned).
    pub path: String,
    /// Whether the host is `localhost` or a loopback IP.
    pub loopback: bool,
}

impl Endpoint {
    /// Resolves a client configuration. A service reference wins over a URL
    /// when both are set (as in the reference).
    ///
    /// ```
    /// use karmada_interpreter::webhook::Endpoint;
    /// use k8s_openapi::api::admissionregistration::v1::{ServiceReference, WebhookClientConfig};
    ///
    /// let cc = WebhookClientConfig {
    ///     service: Some(ServiceReference { name: "wl".into(), namespace: "interpreters".into(),
    ///                                      path: Some("/interpret/".into()), port: Some(8443) }),
    ///     ..Default::default()
    /// };
    /// let e = Endpoint::from_client_config(&cc).unwrap();
    /// assert_eq!(e.url(), "https://wl.interpreters.svc:8443/interpret");
    /// assert_eq!(e.server_name, "wl.interpreters.svc");
    /// ```
    pub fn from_client_config(cc: &WebhookClientConfig) -> Result<Self, WebhookError> {
        Self::from_client_config_text(cc).map_err(WebhookError::Config)
    }

    fn from_client_config_text(cc: &WebhookClientConfig) -> Result<Self, String> {
        if let Some(svc) = &cc.service {
            let port = svc.port.unwrap_or(443);
            let port = u16::try_from(port)
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| format!("invalid service port {port}"))?;
            let host = format!("{}.{}.svc", svc.name, svc.namespace);
            return Ok(Self {
                dial_host: host.clone(),
                port,
                host_header: format!("{host}:{port}"),
                server_name: host,
                path: clean_path(svc.path.as_deref().unwrap_or("")),
                loopback: false,
            });
        }
        let Some(url) = &cc.url else {
            return Err("exactly one of url or service is required".into());
        };
        let u = ParsedUrl::parse(url);
        if u.scheme != "https" {
            return Err(format!(
                "unsupported scheme {:?} in {url:?}: webhooks are called over https",
                u.scheme
            ));
        }
        let (host, port) = split_host_port(&u.host)
            .ok_or_else(|| format!("invalid host {:?} in {url:?}", u.host))?;
        if host.is_empty() {
            return Err(format!("no host in {url:?}"));
        }
        let loopback = host.eq_ignore_ascii_case("localhost")
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        Ok(Self {
            host_header: u.host.clone(),
            server_name: host.clone(),
            dial_host: host,
            port: port.unwrap_or(443),
            path: clean_path(&u.path),
            loopback,
        })
    }

    /// The logical URL (`https://host:port/path`).
    pub fn url(&self) -> String {
        format!("https://{}{}", self.host_header_with_port(), self.path)
    }

    fn host_header_with_port(&self) -> String {
        if self.host_header.contains(':') && !self.host_header.ends_with(']') {
            self.host_header.clone()
        } else {
            format!("{}:{}", self.host_header, self.port)
        }
    }
}

/// `host`, `host:port`, `[v6]`, `[v6]:port`.
fn split_host_port(authority: &str) -> Option<(String, Option<u16>)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?.parse().ok()?),
        };
        return Some((host.to_owned(), port));
    }
    match authority.rsplit_once(':') {
        Some((h, p)) => Some((h.to_owned(), Some(p.parse().ok()?))),
        None => Some((authority.to_owned(), None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_endpoints() {
        let cc = WebhookClientConfig {
            url: Some("https://127.0.0.1:9443/hooks//queue/".into()),
            ..Default::default()
        };
        let e = Endpoint::from_client_config(&cc).unwrap();
        assert_eq!(
            (e.dial_host.as_str(), e.port, e.path.as_str(), e.loopback),
            ("127.0.0.1", 9443, "/hooks/queue", true)
        );
        assert_eq!(e.url(), "https://127.0.0.1:9443/hooks/queue");
        let cc = WebhookClientConfig {
            url: Some("https://[::1]/x".into()),
            ..Default::default()
        };
        let e = Endpoint::from_client_config(&cc).unwrap();
        assert_eq!((e.dial_host.as_str(), e.port), ("::1", 443));
        let cc = WebhookClientConfig {
            url: Some("http://h/x".into()),
            ..Default::default()
        };
        assert!(Endpoint::from_client_config(&cc).is_err());
    }
}
