//! [`ClientError`]: why a call from the client did not produce a result.

use crate::jsonrpc::ErrorObject;
use std::fmt;
use std::time::Duration;

/// Why a [`Client`](super::Client) call did not produce a result.
///
/// Not to be confused with [`crate::ClientError`], which a *server's* handler gets when its
/// request to the client fails.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error (unknown tool, invalid params...).
    Server(ErrorObject),
    /// The connection failed: the process could not be started or its pipes broke, the
    /// HTTP request could not be sent, or a stream broke and could not be resumed.
    Transport(String),
    /// The HTTP endpoint answered with a status that carries no JSON-RPC message.
    Http {
        /// The status code (401 without a token, 403, 404 for an expired session...).
        status: u16,
        /// The start of the body, for the message.
        body: String,
    },
    /// No answer within the time limit; the server was told to stop.
    Timeout(Duration),
    /// The call was cancelled through its [`CancellationToken`](crate::CancellationToken).
    Cancelled,
    /// The connection is closed (the server exited, or [`Client::close`](super::Client::close)).
    Closed,
    /// The server's answer does not have the shape the protocol gives it, or (a typed call,
    /// `add::call(&client, ..)`) not the shape of the function's return type.
    InvalidResponse(String),
    /// The tool ran and failed (`isError: true`), in a typed call (`add::call(&client, ..)`),
    /// which returns what the function returned: the result says why. (`Client::call_tool`
    /// returns such a result as `Ok`.)
    Tool(crate::CallToolResult),
    /// A typed call's argument could not be written as JSON.
    InvalidArguments(String),
    /// The negotiated protocol has no such operation (e.g. `resources/subscribe` in
    /// 2026-07-28, which replaced it with `subscriptions/listen`).
    Unsupported(&'static str),
    /// The server and this client share no protocol version.
    Incompatible {
        /// The versions the server named.
        supported: Vec<String>,
    },
    /// The server kept asking for input past the limit of rounds.
    TooManyInputRounds(u32),
    /// Signing in to the server failed (feature `oauth`): discovery, registration, the user's
    /// authorization or the token endpoint; or the server refused every token obtained. The
    /// message says which step and why; it never holds a token, a code or a secret.
    Auth(String),
    /// The server sent a message larger than the client accepts: reading stopped at the
    /// limit ([`ClientBuilder::max_message_size`](super::ClientBuilder::max_message_size)).
    /// A stdio connection or an SSE stream cannot be read past it and is closed.
    MessageTooLarge {
        /// The client's maximum message size, in bytes.
        limit: usize,
        /// What was too large: `"an HTTP body"`, `"an SSE line"`, `"an SSE event"`, `"a stdio line"`.
        what: &'static str,
    },
}

impl ClientError {
    /// The JSON-RPC error the server answered, if that is what this is.
    pub fn error_object(&self) -> Option<&ErrorObject> {
        match self {
            Self::Server(error) => Some(error),
            _ => None,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Server(error) => write!(f, "the server answered with error {}: {}", error.code, error.message),
            Self::Transport(why) => write!(f, "transport failure: {why}"),
            Self::Http { status, body } => write!(f, "HTTP {status}: {body}"),
            Self::Timeout(after) => write!(f, "no answer within {after:?}"),
            Self::Cancelled => f.write_str("the call was cancelled"),
            Self::Closed => f.write_str("the connection is closed"),
            Self::InvalidResponse(why) => write!(f, "malformed answer: {why}"),
            Self::Tool(result) => write!(f, "the tool failed: {}", result.text().unwrap_or("(no text)")),
            Self::InvalidArguments(why) => write!(f, "invalid arguments: {why}"),
            Self::Unsupported(what) => write!(f, "not available with the negotiated protocol: {what}"),
            Self::Incompatible { supported } => {
                write!(f, "no protocol version in common (the server speaks {})", supported.join(", "))
            }
            Self::TooManyInputRounds(rounds) => write!(f, "the server asked for input more than {rounds} times"),
            Self::Auth(why) => write!(f, "authorization failed: {why}"),
            Self::MessageTooLarge { limit, what } => write!(
                f,
                "the server sent {what} over the client's limit of {limit} bytes \
                 (raise it with ClientBuilder::max_message_size)"
            ),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<ErrorObject> for ClientError {
    fn from(error: ErrorObject) -> Self {
        Self::Server(error)
    }
}
