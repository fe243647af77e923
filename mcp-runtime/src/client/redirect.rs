//! Redirects, followed by the client itself rather than by reqwest: reqwest drops only
//! `Authorization` and cookies when the host changes, so a header the user added (an
//! `X-Api-Key`) would follow a redirect anywhere. Here, once a request leaves the endpoint's
//! origin (scheme, host and port), it goes on without the user's headers, the bearer token and
//! cookies; the session id goes only to the origin of the server that gave it.

use super::http::SESSION_ID;
use reqwest::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, COOKIE, HeaderMap, LOCATION, PROXY_AUTHORIZATION};
use reqwest::{Method, Request, Response, StatusCode, Url};

/// The most redirects one request follows.
pub(crate) const MAX_REDIRECTS: usize = 10;

/// What stays within an origin: the user's headers and the token within the endpoint's, the
/// session id within that of the server that gave it.
pub(crate) struct Private<'a> {
    pub endpoint: &'a Url,
    /// The user's headers and the `Authorization` of the bearer token.
    pub headers: &'a HeaderMap,
    /// Where the session id came from (the endpoint, or where a redirect led).
    pub session_home: &'a Url,
}

impl Private<'_> {
    /// The request to send after `response`, the answer to `sent`, when it is a redirect to an
    /// `http(s)` URL; `None` otherwise (the response is then the answer).
    pub fn next(&self, response: &Response, mut sent: Request) -> Option<Request> {
        // As browsers do: 307 and 308 repeat the request; 303, and 301 or 302 after a POST, a GET.
        let becomes_get = match response.status() {
            StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT => false,
            StatusCode::SEE_OTHER => true,
            StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND => sent.method() == Method::POST,
            _ => return None,
        };
        let location = response.headers().get(LOCATION)?.to_str().ok()?;
        let target = response.url().join(location).ok()?;
        if !matches!(target.scheme(), "http" | "https") {
            return None;
        }
        let headers = sent.headers_mut();
        if becomes_get {
            headers.remove(CONTENT_TYPE);
            headers.remove(CONTENT_LENGTH);
        }
        if target.origin() != self.endpoint.origin() {
            for name in self.headers.keys() {
                headers.remove(name);
            }
            headers.remove(AUTHORIZATION);
            headers.remove(COOKIE);
            headers.remove(PROXY_AUTHORIZATION);
        }
        if target.origin() != self.session_home.origin() {
            headers.remove(SESSION_ID);
        }
        if becomes_get {
            *sent.method_mut() = Method::GET;
            *sent.body_mut() = None;
        }
        *sent.url_mut() = target;
        Some(sent)
    }
}
