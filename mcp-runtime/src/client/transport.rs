//! What the client's transports and its connection say to each other: a message to send,
//! and what comes back (a message, a request that failed below JSON-RPC, the end).

use super::error::ClientError;
use crate::jsonrpc::RequestId;
use tokio::sync::mpsc;

/// What a transport hands the connection.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// One JSON-RPC message, as received; over HTTP, the request whose stream carried it
    /// (a server's request there is made on behalf of that request).
    Message(Vec<u8>, Option<RequestId>),
    /// The request with this id cannot be answered (its stream broke and could not be resumed).
    Failed { id: RequestId, error: ClientError },
    /// The connection ended (the process exited, its output closed).
    Closed,
    /// The connection cannot be read on (a stdio line over the maximum message size): every
    /// request waiting fails with this error, and the connection is closed.
    Broken(ClientError),
}

/// Where a transport puts what it receives.
pub(crate) type Inbox = mpsc::UnboundedSender<Inbound>;

/// One message to send.
pub(crate) struct Outbound<'a> {
    /// The JSON-RPC message.
    pub body: Vec<u8>,
    /// For a request, its id: the answer comes back through the inbox.
    pub request: Option<&'a RequestId>,
    /// The method of a request or notification (`None` for a response).
    pub method: Option<&'a str>,
    /// What the request names (`params.name` or `params.uri`), mirrored in 2026-07-28's
    /// `Mcp-Name` header.
    pub name: Option<&'a str>,
    /// 2026-07-28 `Mcp-Param-{Name}` headers mirroring a tool call's arguments.
    pub param_headers: &'a [(String, String)],
}
