//! TLS pieces (feature `webhook`): PEM loading, rustls configurations with
//! the ring provider, and self-signed serving certificates for local use.

use super::error::WebhookError;
use std::path::Path;
use std::sync::Arc;

use rustls::crypto::CryptoProvider;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

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
    pub fn from_files(cert: &Path, key: &Path) -> crate::Result<Self> {
        Ok(Self {
            cert_pem: crate::load::read(cert)?,
            key_pem: crate::load::read(key)?,
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
    /// ALPN `http/1.1`).
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
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
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

/// A rustls client configuration trusting exactly the certificates of
/// `ca_bundle` (no system roots), ring provider, ALPN `http/1.1`.
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
    let mut roots = rustls::RootCertStore::empty();
    for cert in certificates_text(ca_bundle)? {
        roots
            .add(cert)
            .map_err(|e| format!("unable to load root certificates: {e}"))?;
    }
    let mut config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}
