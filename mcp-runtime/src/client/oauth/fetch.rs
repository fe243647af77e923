//! The requests of the authorization flow (metadata, registration, tokens): `https` only (`http`
//! on a loopback address, for development), no redirects followed, each within a time limit and
//! its answer within a size limit, so a hostile server can neither redirect the client's
//! secrets elsewhere nor hold it or fill its memory.

use super::super::bounded;
use super::super::error::ClientError;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::net::IpAddr;
use std::time::Duration;

/// How the flow's requests are sent.
#[derive(Clone)]
pub(crate) struct Fetch {
    pub client: reqwest::Client,
    pub timeout: Duration,
    pub max_response: usize,
}

/// An answer: its status and its body, parsed as JSON when it is JSON.
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub json: Option<Value>,
}

impl Answer {
    /// The body as `T`, when the status is a success and the body has that shape.
    pub fn parse<T: DeserializeOwned>(&self, what: &str) -> Result<T, ClientError> {
        if !self.status.is_success() {
            return Err(auth_error(format!("{what}: {}", self.oauth_error())));
        }
        let json = self.json.clone().ok_or_else(|| auth_error(format!("{what}: the answer is not JSON")))?;
        serde_json::from_value(json)
            .map_err(|e| auth_error(format!("{what}: malformed answer ({})", printable(&e.to_string()))))
    }

    /// The OAuth `error` (and its description) of an error answer, or its status: printable text
    /// only, cut short, so an error message can never carry what a server chose to put there.
    pub fn oauth_error(&self) -> String {
        let field = |name: &str| self.json.as_ref().and_then(|json| json.get(name)).and_then(Value::as_str);
        match (field("error"), field("error_description")) {
            (Some(error), Some(description)) => format!("{} ({})", printable(error), printable(description)),
            (Some(error), None) => printable(error),
            _ => format!("HTTP {}", self.status.as_u16()),
        }
    }

    /// The OAuth `error` code of an error answer.
    pub fn error_code(&self) -> Option<&str> {
        self.json.as_ref()?.get("error")?.as_str()
    }
}

impl Fetch {
    /// `GET url`, asking for JSON.
    pub async fn get(&self, url: &Url) -> Result<Answer, ClientError> {
        self.send(self.client.request(Method::GET, url.clone()), url).await
    }

    /// `POST url` with a form body, and the extra headers (`Authorization: Basic`).
    pub async fn post_form(
        &self,
        url: &Url,
        form: &[(&str, &str)],
        headers: &[(&str, String)],
    ) -> Result<Answer, ClientError> {
        let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let mut request = self
            .client
            .request(Method::POST, url.clone())
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        self.send(request, url).await
    }

    /// `POST url` with a JSON body.
    pub async fn post_json(&self, url: &Url, body: &Value) -> Result<Answer, ClientError> {
        let request = self
            .client
            .request(Method::POST, url.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        self.send(request, url).await
    }

    async fn send(&self, request: reqwest::RequestBuilder, url: &Url) -> Result<Answer, ClientError> {
        require_secure(url)?;
        let exchange = async {
            let response = request.header(ACCEPT, "application/json").send().await.map_err(|e| {
                auth_error(format!("{} could not be reached: {}", redact(url), with_causes(&e.without_url())))
            })?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = bounded::body(response, self.max_response).await.map_err(|error| match error {
                ClientError::MessageTooLarge { limit, .. } => {
                    auth_error(format!("{} answered with more than {limit} bytes", redact(url)))
                }
                other => other,
            })?;
            Ok(Answer { status, headers, json: serde_json::from_slice(&body).ok() })
        };
        tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| auth_error(format!("{} did not answer within {:?}", redact(url), self.timeout)))?
    }
}

/// An error and what caused it (`error sending request: connection refused`).
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

/// Refuses a URL the flow must not send anything to: not `https`, unless `http` to a loopback
/// address (a server on the same machine, in development).
pub(crate) fn require_secure(url: &Url) -> Result<(), ClientError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        _ => Err(auth_error(format!("{} is neither https nor a loopback address", redact(url)))),
    }
}

pub(crate) fn is_loopback(url: &Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A URL for a message: its origin and path, never its query (which may hold a code).
pub(crate) fn redact(url: &Url) -> String {
    format!("{}{}", url.origin().ascii_serialization(), url.path())
}

/// `text` with anything but printable ASCII replaced, and cut at 200 characters.
pub(crate) fn printable(text: &str) -> String {
    text.chars().take(200).map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '?' }).collect()
}

pub(crate) fn auth_error(why: impl Into<String>) -> ClientError {
    ClientError::Auth(why.into())
}

/// Parses a URL a server sent, for the message when it is not one.
pub(crate) fn parse_url(text: &str, what: &str) -> Result<Url, ClientError> {
    Url::parse(text).map_err(|_| auth_error(format!("{what} is not a URL: {:?}", printable(text))))
}
