//! The TLS configuration of the runtime's outgoing HTTPS (the client's Streamable HTTP, the
//! authorization server's endpoints): rustls on the ring provider, named here rather than taken
//! from the process default, so another crate enabling aws-lc-rs cannot change or break it, and
//! the platform's certificate verifier (the system's trust store).

use rustls_platform_verifier::BuilderVerifierExt as _;
use std::sync::Arc;

pub(crate) fn client_config() -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_platform_verifier()?
        .with_no_client_auth())
}
