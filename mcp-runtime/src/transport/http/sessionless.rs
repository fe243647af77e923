//! 2025-era `POST`s to a server without sessions (`HttpConfig::stateless`): each message is
//! served on an engine connection of its own, made for it and dropped with its answer, so
//! any instance of the server can take any request. `initialize` gets no session id.

use super::body::{self, Answer};
use super::headers::{Accepts, RequestHeaders};
use super::stateless::answer_alone;
use crate::core::ServerCore;
use crate::engine::Connection;
use crate::message::Message;
use crate::protocol::{Method, ProtocolVersion};
use hyper::StatusCode;
use std::sync::Arc;

/// Serves one 2025-era message alone. A notification or a client's answer changes nothing
/// (`202`): no session holds a request it could cancel or a question it could answer.
pub(super) async fn post(
    core: &Arc<ServerCore>,
    headers: &RequestHeaders<'_>,
    message: Message<'_>,
    accepts: Accepts,
) -> Answer {
    let version = match &message {
        Message::Request(request) if request.method == Some(Method::Initialize) => None,
        Message::Request(_) => {
            if let Err(failure) = headers.check_protocol_version() {
                return failure.answer();
            }
            // Checked above: absent, or a version this server speaks.
            let named = headers.protocol_version.text().and_then(ProtocolVersion::parse);
            Some(named.unwrap_or(ProtocolVersion::V2025_03_26))
        }
        Message::Notification { .. } | Message::Response { .. } => return body::empty(StatusCode::ACCEPTED),
    };
    // A session's errors are answered `200`, as JSON-RPC errors in the body.
    answer_alone(Connection::sessionless(Arc::clone(core), version), message, accepts, |_| StatusCode::OK).await
}
