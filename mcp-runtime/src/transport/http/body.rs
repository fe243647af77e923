//! [`McpBody`], the body of every answer, and the answers themselves: JSON, SSE, empty, and
//! errors carrying a JSON-RPC error object.

use super::connections::InFlight;
use super::session::Reader;
use crate::jsonrpc::{self, ErrorObject};
use crate::session::outgoing::Outgoing;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt as _, Empty, Full, StreamBody};
use hyper::body::{Body, Bytes, Frame, SizeHint};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{Response, StatusCode};
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// The body of the MCP endpoint's answers: JSON, an SSE stream, or nothing. It implements
/// [`hyper::body::Body`] (`Data = Bytes`, no errors), so axum and other hyper-based stacks can
/// send it as it is.
pub struct McpBody {
    inner: UnsyncBoxBody<Bytes, Infallible>,
    /// Its request, in flight on its connection until the body is sent ([`serve`]'s head timeout).
    ///
    /// [`serve`]: super::McpHttpService::serve
    in_flight: Option<InFlight>,
}

impl std::fmt::Debug for McpBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpBody").finish_non_exhaustive()
    }
}

impl Body for McpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl McpBody {
    fn new(inner: UnsyncBoxBody<Bytes, Infallible>) -> Self {
        Self { inner, in_flight: None }
    }

    fn full(bytes: impl Into<Bytes>) -> Self {
        Self::new(Full::new(bytes.into()).boxed_unsync())
    }

    fn empty() -> Self {
        Self::new(Empty::new().boxed_unsync())
    }

    /// This body, keeping `in_flight` until it is dropped.
    pub(super) fn in_flight(mut self, in_flight: InFlight) -> Self {
        self.in_flight = Some(in_flight);
        self
    }

    fn events(reader: Reader) -> Self {
        let frames = futures_util::stream::unfold(reader, |mut reader| async move {
            let frame = reader.next().await?;
            Some((Ok::<_, Infallible>(Frame::data(frame)), reader))
        });
        Self::new(StreamBody::new(frames).boxed_unsync())
    }
}

pub(super) type Answer = Response<McpBody>;

const JSON: HeaderValue = HeaderValue::from_static("application/json");

/// A JSON-RPC message as `application/json`.
pub(super) fn json(status: StatusCode, bytes: Vec<u8>) -> Answer {
    let mut answer = Response::new(McpBody::full(bytes));
    *answer.status_mut() = status;
    answer.headers_mut().insert(CONTENT_TYPE, JSON);
    answer
}

/// An HTTP error whose body is a JSON-RPC error response without an id.
pub(super) fn error(status: StatusCode, code: i32, message: impl Into<String>) -> Answer {
    json(status, jsonrpc::encode_error(None, &ErrorObject::new(code, message)))
}

/// An answer made elsewhere whole (feature `oauth-proxy`: the façade's pages).
#[cfg(feature = "oauth-proxy")]
pub(super) fn bytes(response: Response<Bytes>) -> Answer {
    response.map(McpBody::full)
}

/// No body (202 Accepted, 204 No Content).
pub(super) fn empty(status: StatusCode) -> Answer {
    let mut answer = Response::new(McpBody::empty());
    *answer.status_mut() = status;
    answer
}

/// An SSE stream.
pub(super) fn event_stream(reader: Reader) -> Answer {
    sse(McpBody::events(reader))
}

/// An SSE stream of frames known up front.
pub(super) fn event_frames(frames: Bytes) -> Answer {
    sse(McpBody::full(frames))
}

/// An SSE stream of one stateless request's messages, ending after its response. `keep`
/// lives as long as the stream: dropping it (the client closed the stream) cancels the request.
pub(super) fn message_stream<K: Send + 'static>(
    first: Outgoing,
    messages: mpsc::Receiver<Outgoing>,
    keep: K,
) -> Answer {
    let frames = futures_util::stream::unfold((Some(first), messages, keep, false), |state| async move {
        let (pending, mut messages, keep, done) = state;
        if done {
            return None;
        }
        let message = match pending {
            Some(message) => message,
            None => messages.recv().await?,
        };
        let frame = Frame::data(super::sse::unnumbered_event(&message.bytes));
        let done = message.is_response();
        Some((Ok::<_, Infallible>(frame), (None, messages, keep, done)))
    });
    sse(McpBody::new(StreamBody::new(frames).boxed_unsync()))
}

fn sse(body: McpBody) -> Answer {
    let mut answer = Response::new(body);
    let headers = answer.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    answer
}

impl super::failure::Failure {
    /// The answer: the error, with `Retry-After` when the server is unavailable.
    pub fn answer(self) -> Answer {
        let unavailable = self.status == StatusCode::SERVICE_UNAVAILABLE;
        let mut answer = error(self.status, self.code, self.message);
        if unavailable {
            answer.headers_mut().insert(hyper::header::RETRY_AFTER, hyper::header::HeaderValue::from_static("1"));
        }
        answer
    }
}
