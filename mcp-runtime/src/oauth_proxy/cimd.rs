//! Client ID Metadata Documents: a client whose id is an https URL publishes its metadata
//! there, and the façade fetches it. The URL comes from whoever starts a sign-in, so the fetch
//! is guarded: `https` only, no address on a private, loopback or link-local network (each
//! name resolved once and the connection pinned to the address checked, so DNS cannot change
//! its answer in between), no redirects, 5 s, 16 KiB.

use reqwest::Url;
use serde_json::{Map, Value};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// The largest document read.
pub(super) const MAX_DOCUMENT_BYTES: usize = 16 * 1024;
const TIMEOUT: Duration = Duration::from_secs(5);

/// Why no document was had.
#[derive(Debug)]
pub(super) enum CimdError {
    /// The URL itself is refused (its scheme, its address): nothing was fetched.
    Refused(String),
    /// The fetch failed or its answer is unusable.
    Failed(String),
}

/// Whether `client_id` names a metadata document rather than a registered client.
pub(super) fn is_document_url(client_id: &str) -> bool {
    client_id.starts_with("https://") || client_id.starts_with("http://")
}

/// The metadata document at `client_id`; `allow_private` lifts the address rule (and allows
/// plain http from a loopback address), for development.
pub(super) async fn fetch(client_id: &str, allow_private: bool) -> Result<Map<String, Value>, CimdError> {
    let url = Url::parse(client_id).map_err(|_| CimdError::Refused(format!("`{client_id}` is not a URL")))?;
    let plain_ok = allow_private && crate::auth::outbound::allowed(&url);
    if url.scheme() != "https" && !plain_ok {
        return Err(CimdError::Refused(format!("the client id `{client_id}` must be an https URL")));
    }
    if matches!(url.path(), "" | "/") || url.fragment().is_some() || !url.username().is_empty() {
        return Err(CimdError::Refused(format!("the client id `{client_id}` must be an https URL with a path")));
    }
    let host = url.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = url.port_or_known_default().unwrap_or(443);
    let address = resolve(&host, port).await?;
    if !allow_private && !is_public(address.ip()) {
        return Err(CimdError::Refused(format!("the client id `{client_id}` is on a private address")));
    }
    let tls = crate::outbound_tls::client_config().map_err(|err| CimdError::Failed(err.to_string()))?;
    let client = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .resolve(&host, address)
        .timeout(TIMEOUT)
        .build()
        .map_err(|err| CimdError::Failed(err.to_string()))?;
    let failed = |err: reqwest::Error| CimdError::Failed(format!("fetching {client_id}: {}", err.without_url()));
    let mut response = client.get(url.clone()).header("accept", "application/json").send().await.map_err(failed)?;
    if !response.status().is_success() {
        return Err(CimdError::Failed(format!("fetching {client_id}: HTTP {}", response.status().as_u16())));
    }
    let too_large = || CimdError::Failed(format!("the document at {client_id} is over {MAX_DOCUMENT_BYTES} bytes"));
    if response.content_length().is_some_and(|length| length > MAX_DOCUMENT_BYTES as u64) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(failed)? {
        if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    let document: Map<String, Value> = serde_json::from_slice(&body)
        .map_err(|_| CimdError::Failed(format!("the document at {client_id} is not a JSON object")))?;
    if document.get("client_id").and_then(Value::as_str) != Some(client_id) {
        return Err(CimdError::Failed(format!("the document at {client_id} names another client_id")));
    }
    Ok(document)
}

/// The first address `host` resolves to, within the time limit.
async fn resolve(host: &str, port: u16) -> Result<SocketAddr, CimdError> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, port));
    }
    let lookup = tokio::time::timeout(TIMEOUT, tokio::net::lookup_host((host, port)));
    let mut addresses = match lookup.await {
        Ok(Ok(addresses)) => addresses,
        _ => return Err(CimdError::Failed(format!("cannot resolve `{host}`"))),
    };
    addresses.next().ok_or_else(|| CimdError::Failed(format!("`{host}` has no address")))
}

/// Whether `ip` is on the public internet: not loopback, private (RFC 1918, unique local),
/// link-local, shared (RFC 6598), documentation, unspecified or broadcast.
fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            let [a, b, ..] = ip.octets();
            !(ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.is_broadcast()
                || ip.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)))
        }
        IpAddr::V6(ip) => match ip.to_ipv4_mapped() {
            Some(v4) => is_public(IpAddr::V4(v4)),
            None => {
                let first = ip.segments()[0];
                !(ip.is_loopback() || ip.is_unspecified() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_not_public() {
        for internal in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!is_public(internal.parse().unwrap()), "{internal}");
        }
        for public in ["93.184.216.34", "2606:4700::1111"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[tokio::test]
    async fn refused_urls_are_never_fetched() {
        for url in [
            "http://example.com/client.json",
            "https://example.com",
            "https://127.0.0.1/client.json",
            "https://[::1]/c.json",
            "https://169.254.169.254/latest",
        ] {
            assert!(matches!(fetch(url, false).await, Err(CimdError::Refused(_))), "{url}");
        }
    }
}
