//! Authorization at the HTTP layer (feature `auth`): the bearer token of each request, the
//! `401`/`403` answers with their `WWW-Authenticate` challenge, the protected-resource metadata
//! (RFC 9728), the `insufficient_scope` refusal, and the subject a session is bound to.

use super::body::{self, Answer};
use super::code;
use crate::auth::{AuthConfig, AuthInfo, scopes};
use crate::jsonrpc::{self, ErrorObject, RequestId};
use hyper::header::{ALLOW, AUTHORIZATION, CACHE_CONTROL, HeaderValue, RETRY_AFTER, VARY, WWW_AUTHENTICATE};
use hyper::http::request::Parts;
use hyper::{Method, StatusCode};
use std::sync::Arc;

/// Where RFC 9728 puts the metadata, before the resource's path.
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// An [`AuthConfig`] ready to serve: the metadata document and its URL computed once.
pub(super) struct Guard {
    config: AuthConfig,
    resource: String,
    /// `resource_metadata` of the challenges.
    metadata_url: String,
    /// The paths the metadata is served at.
    metadata_paths: Vec<String>,
    metadata: Vec<u8>,
}

impl Guard {
    /// `config` was validated when the service was built.
    pub fn new(config: &AuthConfig, endpoint_path: &str) -> Self {
        let resource = config.resource.clone().unwrap_or_default();
        let uri: hyper::Uri = resource.parse().unwrap_or_default();
        let origin = match (uri.scheme_str(), uri.authority()) {
            (Some(scheme), Some(authority)) => format!("{scheme}://{authority}"),
            _ => String::new(),
        };
        let resource_path = uri.path().trim_end_matches('/');
        let metadata_url = format!("{origin}{METADATA_PATH}{resource_path}");
        let mut metadata_paths = vec![METADATA_PATH.to_owned(), format!("{METADATA_PATH}{resource_path}")];
        let endpoint = format!("{METADATA_PATH}{}", endpoint_path.trim_end_matches('/'));
        if !metadata_paths.contains(&endpoint) {
            metadata_paths.push(endpoint);
        }
        let mut document = serde_json::json!({
            "resource": resource,
            "authorization_servers": config.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !config.scopes_supported.is_empty() {
            document["scopes_supported"] = config.scopes_supported.clone().into();
        }
        if let Some(name) = &config.resource_name {
            document["resource_name"] = name.clone().into();
        }
        if let Some(url) = &config.resource_documentation {
            document["resource_documentation"] = url.clone().into();
        }
        let metadata = serde_json::to_vec(&document).unwrap_or_default();
        Self { config: config.clone(), resource, metadata_url, metadata_paths, metadata }
    }

    /// Whether the metadata is served at `path`.
    pub fn is_metadata_path(&self, path: &str) -> bool {
        self.metadata_paths.iter().any(|p| p == path)
    }

    /// The answer for a request to a metadata path, served without authentication; `None` for
    /// any other path.
    pub fn metadata(&self, method: &Method, path: &str) -> Option<Answer> {
        if !self.is_metadata_path(path) {
            return None;
        }
        if method != Method::GET && method != Method::HEAD {
            let message = "Method Not Allowed: the protected-resource metadata takes GET";
            let mut answer = body::error(StatusCode::METHOD_NOT_ALLOWED, code::BAD_REQUEST, message);
            answer.headers_mut().insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return Some(answer);
        }
        let mut answer = body::json(StatusCode::OK, self.metadata.clone());
        answer.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
        // Cached, and read by browser apps: a cache must not give one origin's copy to another.
        answer.headers_mut().insert(VARY, HeaderValue::from_static("Origin"));
        Some(answer)
    }

    /// The verified caller of a request to the MCP endpoint, or the `400`/`401`/`403` answer.
    pub async fn authenticate(&self, parts: &Parts) -> Result<Arc<AuthInfo>, Answer> {
        if parts.uri.query().is_some_and(|q| q.split('&').any(|pair| pair.starts_with("access_token="))) {
            // RFC 6750 §2.3 is not supported: a token in a URL ends up in logs.
            return Err(self.challenge(
                StatusCode::BAD_REQUEST,
                Some(("invalid_request", "send the token in the Authorization header, never in the URL")),
                &self.config.scopes_supported,
            ));
        }
        let mut values = parts.headers.get_all(AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return Err(self.challenge(StatusCode::UNAUTHORIZED, None, &self.config.scopes_supported));
        };
        let Some(token) = bearer_token(value) else {
            return Err(self.challenge(StatusCode::UNAUTHORIZED, None, &self.config.scopes_supported));
        };
        let caller = match self.config.verifier.verify_dyn(token, &self.resource).await {
            Ok(caller) => caller,
            Err(refused) if refused.is_unavailable() => {
                // The authorization server (or a store) is down: a 401 would send the client to
                // sign in again, into the same outage.
                tracing::warn!("could not check a bearer token: {refused}");
                let message = format!("Service Unavailable: {}", refused.message());
                let mut answer = body::error(StatusCode::SERVICE_UNAVAILABLE, code::BAD_REQUEST, message);
                answer.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("5"));
                return Err(answer);
            }
            Err(refused) => {
                tracing::debug!("refused a bearer token: {refused}");
                let error = Some(("invalid_token", refused.message()));
                return Err(self.challenge(StatusCode::UNAUTHORIZED, error, &self.config.scopes_supported));
            }
        };
        let required: Vec<&str> = self.config.required_scopes.iter().map(String::as_str).collect();
        let missing = scopes::missing(&required, &caller);
        if !missing.is_empty() {
            let description = format!("this server needs the scopes: {}", missing.join(" "));
            return Err(self.insufficient_scope(&caller, &required, &description, None));
        }
        Ok(Arc::new(caller))
    }

    /// `403 insufficient_scope`, asking for the scopes the caller has and those it lacks (the
    /// spec's recommended approach, so a step-up does not lose what was granted).
    pub fn insufficient_scope(
        &self,
        caller: &AuthInfo,
        required: &[&str],
        description: &str,
        id: Option<&RequestId>,
    ) -> Answer {
        let mut wanted: Vec<String> = caller.scopes().to_vec();
        for scope in required {
            if !wanted.iter().any(|s| s == scope) {
                wanted.push((*scope).to_owned());
            }
        }
        let mut answer = self.challenge(StatusCode::FORBIDDEN, Some(("insufficient_scope", description)), &wanted);
        let error = ErrorObject::new(code::BAD_REQUEST, format!("Forbidden: {description}"));
        *answer.body_mut() = body::json(StatusCode::FORBIDDEN, jsonrpc::encode_error(id, &error)).into_body();
        answer
    }

    /// An answer with a `WWW-Authenticate: Bearer ...` challenge.
    fn challenge(&self, status: StatusCode, error: Option<(&str, &str)>, scopes: &[String]) -> Answer {
        let mut parts = Vec::new();
        if let Some((error, description)) = error {
            parts.push(format!("error=\"{error}\""));
            parts.push(format!("error_description=\"{}\"", quotable(description)));
        }
        parts.push(format!("resource_metadata=\"{}\"", quotable(&self.metadata_url)));
        if !scopes.is_empty() {
            parts.push(format!("scope=\"{}\"", quotable(&scopes.join(" "))));
        }
        let message = match (status, error) {
            (StatusCode::UNAUTHORIZED, None) => "Unauthorized: this server needs a bearer token".to_owned(),
            (_, Some((_, description))) => format!("{}: {description}", status.canonical_reason().unwrap_or("Error")),
            (_, None) => status.to_string(),
        };
        let mut answer = body::error(status, code::BAD_REQUEST, message);
        if let Ok(value) = HeaderValue::from_str(&format!("Bearer {}", parts.join(", "))) {
            answer.headers_mut().insert(WWW_AUTHENTICATE, value);
        }
        answer
    }
}

/// The token of `Authorization: Bearer <token>` (RFC 6750 §2.1: the scheme is
/// case-insensitive; the token is a `b64token`).
fn bearer_token(value: &HeaderValue) -> Option<&str> {
    let value = value.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    let b64token = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/');
    let valid = !token.is_empty() && token.trim_end_matches('=').bytes().all(b64token);
    (scheme.eq_ignore_ascii_case("bearer") && valid).then_some(token)
}

/// Text safe inside a quoted header parameter.
fn quotable(text: &str) -> String {
    text.chars().map(|c| if c == '"' || c == '\\' || !(' '..='~').contains(&c) { '\'' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_are_parsed_strictly() {
        let token = |v: &str| bearer_token(&HeaderValue::from_str(v).unwrap()).map(str::to_owned);
        assert_eq!(token("Bearer abc.def-_~+/=="), Some("abc.def-_~+/==".into()));
        assert_eq!(token("bearer abc"), Some("abc".into()));
        assert_eq!(token("Basic dXNlcjpwYXNz"), None);
        assert_eq!(token("Bearer"), None);
        assert_eq!(token("Bearer a b"), None);
        assert_eq!(token("Bearer a\"b"), None);
    }

    #[test]
    fn quoted_values_stay_in_their_quotes() {
        assert_eq!(quotable("a \"b\" \\ é"), "a 'b' ' '");
    }
}
