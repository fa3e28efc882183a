//! TLS pieces (feature `webhook`): PEM loading, rustls configurations with
//! the ring provider, and self-signed serving certificates for local use.

use super::error::WebhookError;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::{CertificateError, DigitallySignedStruct};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};

/// The crypto provider used everywhere: ring.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A serving certificate chain and its private key, PEM-encoded.
#[derive(Clone)]
pub struct TlsIdentity {
    /// Certificate chain, leaf first (PEM).
    pub cert_pem: String,
    /// Private key (PEM, PKCS#8, PKCS#1 or SEC1).
    pub key_pem: String,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsIdentity")
            .field("cert_pem", &self.cert_pem)
            .field("key_pem", &"<redacted>")
            .finish()
    }
}

impl TlsIdentity {
    /// Reads `cert` and `key` PEM files.
    pub fn from_files(cert: &Path, key: &Path) -> karmada_interpreter_core::Result<Self> {
        Ok(Self {
            cert_pem: karmada_interpreter_core::load::read(cert)?,
            key_pem: karmada_interpreter_core::load::read(key)?,
        })
    }

    /// A fresh self-signed certificate valid for `names` (DNS names or IP
    /// addresses). The certificate is its own CA: use [`TlsIdentity::cert_pem`]
    /// as the `caBundle`.
    ///
    /// ```
    /// let id = karmada_interpreter::webhook::tls::TlsIdentity::self_signed(&["localhost", "127.0.0.1"]).unwrap();
    /// assert!(id.cert_pem.starts_with("-----BEGIN CERTIFICATE-----"));
    /// assert!(id.server_config().is_ok());
    /// ```
    pub fn self_signed(names: &[&str]) -> Result<Self, WebhookError> {
        Self::self_signed_text(names).map_err(WebhookError::Tls)
    }

    fn self_signed_text(names: &[&str]) -> Result<Self, String> {
        let names: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        let key = rcgen::generate_simple_self_signed(names)
            .map_err(|e| format!("cannot generate a self-signed certificate: {e}"))?;
        Ok(Self {
            cert_pem: key.cert.pem(),
            key_pem: key.signing_key.serialize_pem(),
        })
    }

    /// A rustls server configuration (ring provider, no client certificates,
    /// ALPN `h2` then `http/1.1`).
    pub fn server_config(&self) -> Result<rustls::ServerConfig, WebhookError> {
        self.server_config_text().map_err(WebhookError::Tls)
    }

    fn server_config_text(&self) -> Result<rustls::ServerConfig, String> {
        let certs = certificates_text(self.cert_pem.as_bytes())?;
        let key = PrivateKeyDer::from_pem_slice(self.key_pem.as_bytes())
            .map_err(|e| format!("cannot read the private key: {e}"))?;
        let mut config = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|e| format!("invalid certificate or key: {e}"))?;
        config.alpn_protocols = ALPN.iter().map(|p| p.to_vec()).collect();
        Ok(config)
    }
}

/// Every certificate of a PEM bundle; an error when there is none.
pub fn certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, WebhookError> {
    certificates_text(pem).map_err(WebhookError::Tls)
}

fn certificates_text(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("unable to load root certificates: {e}"))?;
    if certs.is_empty() {
        return Err("unable to load root certificates: no certificate in the PEM bundle".into());
    }
    Ok(certs)
}

/// ALPN protocols offered by servers and clients, preferred first.
pub const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// A rustls client configuration trusting exactly the certificates of
/// `ca_bundle` (no system roots), ring provider, ALPN `h2` then `http/1.1`.
///
/// Like Go's `crypto/tls` (and so Karmada), a serving certificate that is
/// itself one of the `caBundle` certificates is trusted even when it is
/// marked as a CA (the usual `openssl req -x509` self-signed certificate),
/// after checking its validity dates and that it names the server; the
/// handshake signature is verified as for any certificate.
pub fn client_config(ca_bundle: &[u8]) -> Result<rustls::ClientConfig, WebhookError> {
    client_config_text(ca_bundle).map_err(WebhookError::Tls)
}

fn client_config_text(ca_bundle: &[u8]) -> Result<rustls::ClientConfig, String> {
    if ca_bundle.is_empty() {
        return Err(
            "clientConfig.caBundle is empty: this client trusts only the configuration's caBundle (no system roots)"
                .into(),
        );
    }
    let bundle = certificates_text(ca_bundle)?;
    let mut roots = rustls::RootCertStore::empty();
    for cert in &bundle {
        roots
            .add(cert.clone())
            .map_err(|e| format!("unable to load root certificates: {}", tls_error_words(&e)))?;
    }
    let provider = provider();
    let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .map_err(|e| format!("unable to load root certificates: {e}"))?;
    let verifier = BundleVerifier {
        webpki,
        bundle,
        provider: provider.clone(),
    };
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = ALPN.iter().map(|p| p.to_vec()).collect();
    Ok(config)
}

/// webpki's verification, plus Go's rule that a served certificate equal to
/// a trusted one is trusted as it is (CA flag or not).
#[derive(Debug)]
struct BundleVerifier {
    webpki: Arc<rustls::client::WebPkiServerVerifier>,
    bundle: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
}

impl BundleVerifier {
    /// The checks left for a certificate trusted by identity: validity dates
    /// and the server name.
    fn verify_pinned(
        &self,
        end_entity: &CertificateDer<'_>,
        server_name: &ServerName<'_>,
        now: UnixTime,
    ) -> Result<(), rustls::Error> {
        let bad = |e: CertificateError| rustls::Error::InvalidCertificate(e);
        let (_, parsed) = x509_parser::parse_x509_certificate(end_entity.as_ref())
            .map_err(|_| bad(CertificateError::BadEncoding))?;
        let validity = parsed.validity();
        let now_secs = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
        let not_before = validity.not_before.timestamp();
        let not_after = validity.not_after.timestamp();
        if now_secs < not_before {
            return Err(bad(CertificateError::NotValidYetContext {
                time: now,
                not_before: UnixTime::since_unix_epoch(Duration::from_secs(
                    not_before.max(0).unsigned_abs(),
                )),
            }));
        }
        if now_secs > not_after {
            return Err(bad(CertificateError::ExpiredContext {
                time: now,
                not_after: UnixTime::since_unix_epoch(Duration::from_secs(
                    not_after.max(0).unsigned_abs(),
                )),
            }));
        }
        let cert = webpki::EndEntityCert::try_from(end_entity)
            .map_err(|_| bad(CertificateError::BadEncoding))?;
        cert.verify_is_valid_for_subject_name(server_name)
            .map_err(|_| {
                bad(CertificateError::NotValidForNameContext {
                    expected: server_name.to_owned(),
                    presented: subject_alt_names(&parsed),
                })
            })
    }
}

/// The DNS names and IP addresses a certificate names, for messages.
fn subject_alt_names(cert: &x509_parser::certificate::X509Certificate<'_>) -> Vec<String> {
    use x509_parser::extensions::GeneralName;
    let Ok(Some(san)) = cert.subject_alternative_name() else {
        return Vec::new();
    };
    san.value
        .general_names
        .iter()
        .filter_map(|name| match name {
            GeneralName::DNSName(d) => Some((*d).to_owned()),
            GeneralName::IPAddress(b) => match b.len() {
                4 => <[u8; 4]>::try_from(*b)
                    .ok()
                    .map(|a| std::net::IpAddr::from(a).to_string()),
                16 => <[u8; 16]>::try_from(*b)
                    .ok()
                    .map(|a| std::net::IpAddr::from(a).to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

impl ServerCertVerifier for BundleVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.webpki.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Ok(verified) => Ok(verified),
            Err(e) => {
                if self
                    .bundle
                    .iter()
                    .any(|c| c.as_ref() == end_entity.as_ref())
                {
                    self.verify_pinned(end_entity, server_name, now)?;
                    Ok(ServerCertVerified::assertion())
                } else {
                    Err(e)
                }
            }
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

/// A TLS failure in words: what is wrong with the peer's certificate or
/// the handshake, rather than the library's debug form.
pub fn tls_error_words(error: &rustls::Error) -> String {
    use rustls::Error as E;
    match error {
        E::InvalidCertificate(c) => format!("the server's certificate {}", certificate_words(c)),
        E::NoApplicationProtocol => {
            "the server offers neither HTTP/2 (h2) nor HTTP/1.1 by ALPN".to_owned()
        }
        E::AlertReceived(alert) => format!("the server ended the handshake with alert {alert:?}"),
        E::PeerIncompatible(p) => format!("the server's TLS is incompatible: {p:?}"),
        other => other.to_string(),
    }
}

fn certificate_words(error: &CertificateError) -> String {
    use CertificateError as C;
    match error {
        C::BadEncoding => "cannot be decoded".to_owned(),
        C::Expired | C::ExpiredContext { .. } => "has expired".to_owned(),
        C::NotValidYet | C::NotValidYetContext { .. } => "is not valid yet".to_owned(),
        C::Revoked => "is revoked".to_owned(),
        C::UnknownIssuer => {
            "is not signed by a certificate in caBundle (unknown authority)".to_owned()
        }
        C::BadSignature => "is not signed by a certificate in caBundle (a caBundle certificate has its issuer's name, but not its key)".to_owned(),
        C::NotValidForName => "is not valid for the server name".to_owned(),
        C::NotValidForNameContext {
            expected,
            presented,
        } => format!(
            "is not valid for {:?} (it names {})",
            expected.to_str().as_ref(),
            if presented.is_empty() {
                "nothing".to_owned()
            } else {
                presented.join(", ")
            }
        ),
        C::InvalidPurpose | C::InvalidPurposeContext { .. } => {
            "is not meant for serving TLS (extended key usage)".to_owned()
        }
        C::Other(other) => match other.0.downcast_ref::<webpki::Error>() {
            Some(webpki::Error::CaUsedAsEndEntity) => {
                "is a CA certificate used as a serving certificate, and is not itself in caBundle"
                    .to_owned()
            }
            Some(e) => format!("is refused: {e}"),
            None => format!("is refused: {other}"),
        },
        other => format!("is refused: {other:?}"),
    }
}
