//! Requests to the authorization server: one HTTP/1.1 client (reqwest over rustls with the ring
//! provider and the operating system's trust store), the URL rule (`https`, or `http` on a
//! loopback address), bounded response bodies, and OAuth client authentication
//! ([`ClientCredentials`]).

use crate::error::{Error, ErrorKind, Result};
use base64::Engine as _;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderMap, HeaderValue};
use reqwest::{StatusCode, Url};
use std::sync::OnceLock;
use std::time::Duration;

/// The largest response read from an authorization server (a JWKS, metadata, an introspection or
/// token response); a larger one is refused, whatever it says.
pub(crate) const MAX_RESPONSE_BYTES: usize = 256 * 1024;

/// How long one request to the authorization server may take, unless configured otherwise.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How an OAuth client (this server) authenticates to the authorization server's introspection
/// and token endpoints (RFC 6749 §2.3.1): `client_secret_basic` (an `Authorization: Basic`
/// header) or `client_secret_post` (`client_id` and `client_secret` in the form).
///
/// ```
/// use mcp_runtime::auth::ClientCredentials;
///
/// let credentials = ClientCredentials::basic("mcp-server", "the client secret");
/// assert_eq!(credentials.client_id(), "mcp-server");
/// // The secret stays out of logs.
/// assert!(!format!("{credentials:?}").contains("the client secret"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ClientCredentials {
    id: String,
    secret: String,
    method: Method,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Basic,
    Post,
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.id)
            .field("method", &self.method)
            .field("secret", &"<redacted>")
            .finish()
    }
}

impl ClientCredentials {
    /// `client_secret_basic`: the client id and secret in an `Authorization: Basic` header, each
    /// form-urlencoded first as RFC 6749 §2.3.1 says. Every authorization server supports it.
    pub fn basic(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self { id: client_id.into(), secret: client_secret.into(), method: Method::Basic }
    }

    /// `client_secret_post`: the client id and secret as `client_id` and `client_secret` form
    /// fields, for authorization servers that accept only that.
    pub fn post(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self { id: client_id.into(), secret: client_secret.into(), method: Method::Post }
    }

    /// The client id.
    pub fn client_id(&self) -> &str {
        &self.id
    }

    /// The `Authorization` header of `client_secret_basic`.
    fn basic_header(&self) -> Option<HeaderValue> {
        let encode = |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
        let pair = format!("{}:{}", encode(&self.id), encode(&self.secret));
        let value = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair));
        let mut value = HeaderValue::from_str(&value).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}

/// One configured URL of the authorization server, checked against the URL rule.
pub(crate) fn checked_url(what: &str, url: &str) -> Result<Url> {
    let parsed = Url::parse(url)
        .map_err(|err| Error::new(ErrorKind::Auth, format!("{what}: `{url}` is not a URL")).with_source(err))?;
    if !allowed(&parsed) {
        return Err(Error::new(
            ErrorKind::Auth,
            format!("{what}: `{url}` must be an https URL (plain http only to a loopback address, for development)"),
        ));
    }
    Ok(parsed)
}

/// The URL rule: `https`, or `http` to a loopback address (OAuth 2.1 requires TLS for every
/// endpoint; keys fetched in clear text could be swapped by anyone on the path).
pub(crate) fn allowed(url: &Url) -> bool {
    match url.scheme() {
        "https" => url.host().is_some(),
        "http" => url.host_str().is_some_and(|host| {
            let ip = host.trim_start_matches('[').trim_end_matches(']');
            host.eq_ignore_ascii_case("localhost") || ip.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }),
        _ => false,
    }
}

/// The client every call to an authorization server goes through: built once per process.
fn client() -> Result<reqwest::Client> {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    if let Some(client) = CLIENT.get() {
        return Ok(client.clone());
    }
    let client = build_client()?;
    Ok(CLIENT.get_or_init(|| client).clone())
}

fn build_client() -> Result<reqwest::Client> {
    let mut tls = crate::outbound_tls::client_config().map_err(|err| {
        Error::new(ErrorKind::Tls, "cannot set up TLS for the authorization server's endpoints").with_source(err)
    })?;
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    let redirects = reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() >= 3 || !allowed(attempt.url()) { attempt.stop() } else { attempt.follow() }
    });
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(redirects)
        .connect_timeout(Duration::from_secs(5))
        .user_agent(concat!("mcp-runtime/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|err| {
            Error::new(ErrorKind::Auth, "cannot build the HTTP client for the authorization server").with_source(err)
        })
}

/// A response read whole, within [`MAX_RESPONSE_BYTES`].
pub(crate) struct Response {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Response {
    /// The body as JSON of type `T`.
    pub fn json<T: serde::de::DeserializeOwned>(&self, what: &str) -> Result<T> {
        serde_json::from_slice(&self.body)
            .map_err(|err| Error::new(ErrorKind::Auth, format!("{what}: not the JSON expected")).with_source(err))
    }
}

/// `GET url`, accepting JSON.
pub(crate) async fn get(url: &Url, timeout: Duration) -> Result<Response> {
    let request = client()?.get(url.clone()).header(ACCEPT, "application/json").timeout(timeout);
    read(url, request).await
}

/// `GET url` with `Authorization: Bearer token`, accepting JSON.
#[cfg(feature = "oauth-proxy")]
pub(crate) async fn get_authorized(url: &Url, token: &str, timeout: Duration) -> Result<Response> {
    let request = client()?.get(url.clone()).header(ACCEPT, "application/json").bearer_auth(token).timeout(timeout);
    read(url, request).await
}

/// `POST url` with a form body, authenticated as `credentials`.
pub(crate) async fn post_form(
    url: &Url,
    credentials: &ClientCredentials,
    form: &[(&str, &str)],
    timeout: Duration,
) -> Result<Response> {
    let mut request = client()?.post(url.clone()).header(ACCEPT, "application/json").timeout(timeout);
    match credentials.method {
        Method::Basic => {
            let header = credentials.basic_header().ok_or_else(|| {
                Error::new(ErrorKind::Auth, "ClientCredentials: the client id or secret cannot go in a header")
            })?;
            request = request.header(AUTHORIZATION, header).form(form);
        }
        Method::Post => {
            let mut fields = form.to_vec();
            fields.push(("client_id", &credentials.id));
            fields.push(("client_secret", &credentials.secret));
            request = request.form(&fields);
        }
    }
    read(url, request).await
}

async fn read(url: &Url, request: reqwest::RequestBuilder) -> Result<Response> {
    let failed = |err: reqwest::Error| {
        Error::new(ErrorKind::Auth, format!("request to {} failed", without_query(url))).with_source(err.without_url())
    };
    let mut response = request.send().await.map_err(failed)?;
    let too_large = || {
        Error::new(
            ErrorKind::Auth,
            format!("the response of {} is over {MAX_RESPONSE_BYTES} bytes", without_query(url)),
        )
    };
    if response.content_length().is_some_and(|length| length > MAX_RESPONSE_BYTES as u64) {
        return Err(too_large());
    }
    let status = response.status();
    let headers = std::mem::take(response.headers_mut());
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(failed)? {
        if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Response { status, headers, body })
}

/// A URL fit for a log line: no query, no credentials.
pub(crate) fn without_query(url: &Url) -> String {
    let mut url = url.clone();
    url.set_query(None);
    url.set_fragment(None);
    let _ = url.set_password(None);
    let _ = url.set_username("");
    url.to_string()
}

/// The OAuth error of a refused request (`{"error": "...", "error_description": "..."}`), for a
/// message.
pub(crate) fn oauth_error(response: &Response) -> String {
    let value: serde_json::Value = serde_json::from_slice(&response.body).unwrap_or_default();
    let text = |name: &str| {
        value.get(name).and_then(serde_json::Value::as_str).map(|s| s.chars().take(200).collect::<String>())
    };
    match (text("error"), text("error_description")) {
        (Some(error), Some(description)) => format!("HTTP {}: {error}: {description}", response.status.as_u16()),
        (Some(error), None) => format!("HTTP {}: {error}", response.status.as_u16()),
        _ => format!("HTTP {}", response.status.as_u16()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_only_to_loopback() {
        for url in
            ["https://auth.example.com/jwks", "http://127.0.0.1:8080/jwks", "http://localhost/x", "http://[::1]:9/"]
        {
            assert!(checked_url("test", url).is_ok(), "{url}");
        }
        for url in
            ["http://auth.example.com/jwks", "http://10.0.0.1/", "ftp://127.0.0.1/", "file:///etc/passwd", "jwks"]
        {
            assert!(checked_url("test", url).is_err(), "{url}");
        }
    }

    #[test]
    fn basic_credentials_are_form_encoded_first() {
        let header = ClientCredentials::basic("my client", "s:cr%t").basic_header().unwrap();
        let encoded = header.to_str().unwrap().strip_prefix("Basic ").unwrap();
        let decoded = base64::engine::general_purpose::STANDARD.decode(encoded).unwrap();
        assert_eq!(String::from_utf8(decoded).unwrap(), "my+client:s%3Acr%25t");
    }
}
