//! The HTTP request behind a call, for the handlers that ask for it: its headers, the peer's
//! address and the extensions an outer tower or axum layer put there (identity set by a
//! gateway, an API key's tenant...).
//!
//! Captured only for a handler whose parameters take [`HttpRequest`] (its
//! [`FromContext::required_state`](crate::FromContext::required_state) says so, read from the descriptor when the call is
//! routed): any other call costs nothing, since the request's parts are only borrowed while the
//! transport hands the message to the engine (which is also how middleware sees them).

use crate::required_state::RequiredState;
use hyper::http::request::Parts;
use hyper::http::{Extensions, HeaderMap, Method, Uri};
use std::net::SocketAddr;
use std::sync::Arc;

/// The HTTP request a tool, resource or prompt call arrived in. Take it as a parameter, like
/// [`Context`](crate::Context): it never appears in the input schema. Absent on stdio and in memory: an
/// `Option<HttpRequest>` parameter gets `None` there, a plain `HttpRequest` fails the call with
/// an error result. Cloning it is cheap.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::http::HttpRequest;
///
/// /// Which tenant the gateway said the caller belongs to.
/// #[mcp_tool]
/// fn tenant(request: HttpRequest) -> String {
///     request.headers().get("x-tenant").and_then(|v| v.to_str().ok()).unwrap_or("none").to_owned()
/// }
/// ```
///
/// A [`FromContext`](crate::FromContext) type of your own that reads it should return
/// `HttpRequest::required_state()` from its own `required_state`, so that its calls capture the
/// request too.
#[derive(Clone)]
pub struct HttpRequest(Arc<Captured>);

struct Captured {
    parts: Parts,
    peer: Option<SocketAddr>,
}

impl HttpRequest {
    /// The request's method (`POST` for every call).
    pub fn method(&self) -> &Method {
        &self.0.parts.method
    }

    /// The request's URI (the MCP endpoint, with any query).
    pub fn uri(&self) -> &Uri {
        &self.0.parts.uri
    }

    /// The request's headers, `Authorization` included.
    pub fn headers(&self) -> &HeaderMap {
        &self.0.parts.headers
    }

    /// What the layers in front of the service put into the request (an axum `Extension`,
    /// `ConnectInfo`, a tower layer's identity...).
    pub fn extensions(&self) -> &Extensions {
        &self.0.parts.extensions
    }

    /// The client's address: the connection's when the runtime serves it
    /// ([`Server::serve_http`](crate::Server::serve_http)); in a service you mount yourself,
    /// a [`SocketAddr`] you put into the request's extensions (axum's `ConnectInfo` is in
    /// [`extensions`](Self::extensions) as it is).
    pub fn peer(&self) -> Option<SocketAddr> {
        self.0.peer
    }
}

impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpRequest")
            .field("method", self.method())
            .field("uri", self.uri())
            .field("peer", &self.peer())
            .finish_non_exhaustive()
    }
}

/// Whether a handler needing `required` asks for the HTTP request.
pub(crate) fn asked(required: &[RequiredState]) -> bool {
    required.iter().any(RequiredState::is_http_mark)
}

/// The HTTP request a message arrived in, borrowed while the engine receives the message.
#[derive(Clone, Copy)]
pub(crate) struct Arrival<'a> {
    pub parts: &'a Parts,
    /// The connection's peer, when the runtime accepted it.
    pub peer: Option<SocketAddr>,
}

impl Arrival<'_> {
    /// The peer: the connection's, or one a host application put in the extensions.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer.or_else(|| self.parts.extensions.get::<SocketAddr>().copied())
    }

    /// An owned copy, for a handler that asked for it.
    pub fn capture(self) -> HttpRequest {
        HttpRequest(Arc::new(Captured { parts: self.parts.clone(), peer: self.peer() }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, decode};

    #[test]
    fn only_a_handler_that_asks_gets_the_request_and_its_mark_is_no_server_state() {
        let (mut parts, ()) = hyper::Request::new(()).into_parts();
        parts.headers.insert("x-tenant", "acme".parse().unwrap());
        let bytes = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}});
        let bytes = bytes.to_string();
        let Ok(Message::Request(mut request)) = decode(bytes.as_bytes()) else { panic!("a request") };
        let mark = RequiredState::http_mark();
        assert!(request.http_for(&[mark]).is_none(), "off HTTP");
        request.http = Some(Arrival { parts: &parts, peer: None });
        assert!(request.http_for(&[]).is_none(), "a handler that does not ask gets nothing");
        let captured = request.http_for(&[mark]).expect("a handler that asks gets the request");
        assert_eq!(captured.headers()["x-tenant"], "acme");
        let registered = crate::type_map::TypeMap::default();
        assert!(crate::required_state::check("tool", "t", &[mark], &registered).is_ok());
    }
}
