//! TLS for `https://` servers: rustls with the ring provider, trusting the operating
//! system's store (which honours `SSL_CERT_FILE` and `SSL_CERT_DIR`, as curl and Python do)
//! plus the CA certificates of [`HttpClientOptions::ca_file`](super::HttpClientOptions).
//! Hostname verification is always on; a refused certificate is explained in the error.

use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use std::io;
use std::path::Path;
use std::sync::Arc;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

/// What connecting to one TLS server needs.
#[derive(Clone)]
pub(super) struct Tls {
    connector: TlsConnector,
    name: ServerName<'static>,
    host: String,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").field("host", &self.host).finish()
    }
}

impl Tls {
    /// The configuration for `host`: the system's roots and those in `ca_file` (PEM).
    pub(super) fn new(host: &str, ca_file: Option<&Path>) -> Result<Tls, String> {
        let mut roots = RootCertStore::empty();
        let native = rustls_native_certs::load_native_certs();
        let (_, _) = roots.add_parsable_certificates(native.certs);
        if let Some(path) = ca_file {
            let pem = std::fs::read(path).map_err(|e| format!("cannot read the CA file {}: {e}", path.display()))?;
            let certs: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut pem.as_slice())
                .collect::<Result<_, _>>()
                .map_err(|e| format!("the CA file {} is not PEM: {e}", path.display()))?;
            if certs.is_empty() {
                return Err(format!("the CA file {} holds no certificate", path.display()));
            }
            for c in certs {
                roots.add(c).map_err(|e| format!("a certificate of the CA file {} is invalid: {e}", path.display()))?;
            }
        }
        if roots.is_empty() {
            return Err("no trusted CA certificates: the system store is empty and no CA file was given \
                        (set SSL_CERT_FILE, or the client's CA file option)"
                .to_string());
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS configuration: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let name =
            ServerName::try_from(host.to_string()).map_err(|_| format!("{host:?} is not a valid TLS server name"))?;
        Ok(Tls { connector: TlsConnector::from(Arc::new(config)), name, host: host.to_string() })
    }

    /// The TLS handshake over `tcp`; a refused certificate says why.
    pub(super) async fn handshake(&self, tcp: TcpStream) -> io::Result<TlsStream<TcpStream>> {
        self.connector.connect(self.name.clone(), tcp).await.map_err(|e| explain(e, &self.host))
    }
}

/// A TLS failure in words a user can act on.
fn explain(e: io::Error, host: &str) -> io::Error {
    use rustls::{CertificateError, Error as TlsError};
    let Some(tls) = e.get_ref().and_then(|inner| inner.downcast_ref::<TlsError>()) else { return e };
    let msg = match tls {
        TlsError::InvalidCertificate(CertificateError::UnknownIssuer) => format!(
            "the server's TLS certificate is not trusted (unknown issuer): add its CA with the client's CA file \
             option or SSL_CERT_FILE ({tls})"
        ),
        TlsError::InvalidCertificate(CertificateError::NotValidForName)
        | TlsError::InvalidCertificate(CertificateError::NotValidForNameContext { .. }) => {
            format!("the server's TLS certificate is not valid for {host:?} ({tls})")
        }
        TlsError::InvalidCertificate(CertificateError::Expired | CertificateError::ExpiredContext { .. }) => {
            format!("the server's TLS certificate has expired ({tls})")
        }
        other => format!("TLS handshake with {host} failed: {other}"),
    };
    io::Error::new(e.kind(), msg)
}
