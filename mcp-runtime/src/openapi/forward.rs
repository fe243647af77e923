//! The headers of the MCP client's HTTP request passed on to the service
//! ([`OpenApi::forward_header`](super::OpenApi::forward_header)): over Streamable HTTP (feature
//! `http`) only; a call over stdio, or a runtime without HTTP, has none to pass.

use crate::context::Context;
use crate::tool::ToolDescriptor;
use reqwest::header::{HeaderMap, HeaderName};
use std::sync::Arc;

/// The names of the headers forwarded, shared by the tools of one document.
#[derive(Clone)]
pub(super) struct Forwarded(Arc<[HeaderName]>);

impl Forwarded {
    pub fn new(names: Vec<HeaderName>) -> Self {
        Self(names.into())
    }

    /// Marks `tool` as taking the HTTP request (which the router then captures for its calls),
    /// when headers are forwarded.
    pub fn mark(&self, tool: &mut ToolDescriptor) {
        #[cfg(feature = "http")]
        if !self.0.is_empty() {
            tool.required_state.push(crate::required_state::RequiredState::http_mark());
        }
        #[cfg(not(feature = "http"))]
        let _ = tool;
    }

    /// The forwarded headers of the request `ctx` answers.
    pub fn headers(&self, ctx: &Context) -> HeaderMap {
        #[cfg(feature = "http")]
        if let Some(request) = ctx.http_request() {
            let mut headers = HeaderMap::new();
            for name in self.0.iter() {
                for value in request.headers().get_all(name) {
                    headers.append(name.clone(), value.clone());
                }
            }
            return headers;
        }
        #[cfg(not(feature = "http"))]
        let _ = (ctx, &self.0);
        HeaderMap::new()
    }
}
