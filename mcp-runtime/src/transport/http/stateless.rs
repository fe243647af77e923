//! Stateless (2026-07-28) `POST`s: no session (their headers were checked against the body
//! by the policy); errors carry their HTTP status (400 for invalid requests, 404 for unknown
//! methods); and closing the response stream cancels the request.

use super::body::{self, Answer};
use super::headers::Accepts;
use crate::core::ServerCore;
use crate::engine::Connection;
use crate::jsonrpc;
use crate::message::Message;
use crate::session::outgoing::{Kind, Outgoing};
use hyper::StatusCode;
use std::sync::Arc;
use tokio::sync::mpsc;

/// The HTTP status of a stateless answer, from the code the engine marked it with.
fn status_of(kind: Kind) -> StatusCode {
    match kind {
        Kind::Error(jsonrpc::code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Kind::Error(-32602 | -32600 | -32700 | -32020 | -32021 | -32022) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Serves one stateless `POST`.
pub(super) async fn post(core: &Arc<ServerCore>, message: Message<'_>, accepts: Accepts) -> Answer {
    answer_alone(Connection::stateless(Arc::clone(core)), message, accepts, status_of).await
}

/// Runs one message on a connection of its own and answers it: `202` for a notification,
/// JSON for an answer ready before anything else (to a client that takes JSON), else a stream
/// that ends with the answer; `status` gives the HTTP status of an answer.
pub(super) async fn answer_alone(
    connection: Connection,
    message: Message<'_>,
    accepts: Accepts,
    status: fn(Kind) -> StatusCode,
) -> Answer {
    let (sink, mut messages) = mpsc::channel::<Outgoing>(64);
    connection.receive(message, &sink).await;
    drop(sink);
    let Some(first) = messages.recv().await else {
        return body::empty(StatusCode::ACCEPTED); // a notification: nothing to say
    };
    if first.is_response() && (accepts.json || !accepts.sse) {
        return body::json(status(first.kind), first.bytes);
    }
    if !accepts.sse {
        // JSON only: the request's notifications have nowhere to go; wait for the response.
        while let Some(message) = messages.recv().await {
            if message.is_response() {
                return body::json(status(message.kind), message.bytes);
            }
        }
        return body::empty(StatusCode::ACCEPTED);
    }
    // The stream owns the connection: when the client closes it, the request is cancelled.
    body::message_stream(first, messages, connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_map_to_their_status() {
        assert_eq!(status_of(Kind::Error(-32601)), StatusCode::NOT_FOUND);
        assert_eq!(status_of(Kind::Error(-32021)), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(Kind::Error(-32603)), StatusCode::OK);
        assert_eq!(status_of(Kind::Result), StatusCode::OK);
    }
}
