//! HTTPS (feature `tls`): [`TlsConfig`], and the TLS handshake in front of each connection,
//! with rustls and its `ring` provider.

use crate::error::{Error, ErrorKind, Result};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// How long a client may take to complete the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The server's certificate and key, for [`Server::serve_https`](crate::Server::serve_https)
/// and [`McpHttpService::serve_tls`](super::McpHttpService::serve_tls).
///
/// ```no_run
/// use mcp_runtime::http::TlsConfig;
///
/// # fn main() -> mcp_runtime::Result<()> {
/// let tls = TlsConfig::from_pem_files("/etc/mcp/fullchain.pem", "/etc/mcp/privkey.pem")?;
/// # let _ = tls;
/// # Ok(())
/// # }
/// ```
///
/// TLS 1.2 and 1.3 with rustls' safe defaults; HTTP/1.1 (ALPN `http/1.1`). For anything else
/// (client certificates, other protocol versions) build a `rustls::ServerConfig` yourself and
/// use [`from_rustls`](Self::from_rustls).
#[derive(Clone)]
pub struct TlsConfig {
    config: Arc<rustls::ServerConfig>,
}

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsConfig").finish_non_exhaustive()
    }
}

impl TlsConfig {
    /// A certificate chain (PEM, the server's certificate first) and its private key (PEM:
    /// PKCS#8, PKCS#1 or SEC1).
    pub fn from_pem(cert_chain: &[u8], key: &[u8]) -> Result<Self> {
        let certs = CertificateDer::pem_slice_iter(cert_chain)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|err| Error::new(ErrorKind::Tls, "TlsConfig: cannot read the certificates").with_source(err))?;
        if certs.is_empty() {
            return Err(Error::new(ErrorKind::Tls, "TlsConfig: no certificate in the PEM"));
        }
        let key = PrivateKeyDer::from_pem_slice(key)
            .map_err(|err| Error::new(ErrorKind::Tls, "TlsConfig: cannot read the private key").with_source(err))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|err| {
                Error::new(ErrorKind::Tls, "TlsConfig: no protocol version in common with the provider")
                    .with_source(err)
            })?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|err| {
                Error::new(ErrorKind::Tls, "TlsConfig: the certificate and key do not fit").with_source(err)
            })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self { config: Arc::new(config) })
    }

    /// [`from_pem`](Self::from_pem), reading the two files.
    pub fn from_pem_files(cert_chain: impl AsRef<Path>, key: impl AsRef<Path>) -> Result<Self> {
        let read = |path: &Path| {
            std::fs::read(path).map_err(|err| {
                Error::new(ErrorKind::Tls, format!("TlsConfig: cannot read {}", path.display())).with_source(err)
            })
        };
        Self::from_pem(&read(cert_chain.as_ref())?, &read(key.as_ref())?)
    }

    /// A rustls configuration of your own. Its ALPN protocols must include `http/1.1` or be
    /// empty.
    pub fn from_rustls(config: Arc<rustls::ServerConfig>) -> Self {
        Self { config }
    }

    pub(super) fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        tokio_rustls::TlsAcceptor::from(Arc::clone(&self.config))
    }
}

/// The TLS handshake of an accepted connection; `None` (logged) when it fails or times out.
pub(super) async fn handshake(
    acceptor: &tokio_rustls::TlsAcceptor,
    stream: TcpStream,
) -> Option<tokio_rustls::server::TlsStream<TcpStream>> {
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
        Ok(Ok(stream)) => Some(stream),
        Ok(Err(err)) => {
            tracing::debug!("TLS handshake failed: {err}");
            None
        }
        Err(_) => {
            tracing::debug!("TLS handshake timed out");
            None
        }
    }
}
