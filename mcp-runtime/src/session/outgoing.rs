//! Messages on their way to the client, and where they go.

use tokio::sync::mpsc;

/// One serialized message, with what a transport needs to know about it without reading it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Outgoing {
    pub bytes: Vec<u8>,
    pub kind: Kind,
}

/// What an outgoing message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A notification or a request to the client.
    Message,
    /// A response carrying a result.
    Result,
    /// A response carrying an error with this code (HTTP maps some to a status).
    Error(i32),
}

impl Outgoing {
    /// A notification or a request to the client.
    pub fn message(bytes: Vec<u8>) -> Self {
        Self { bytes, kind: Kind::Message }
    }

    /// Whether it answers a request (transports with a stream per request close it then).
    #[cfg(feature = "http")]
    pub fn is_response(&self) -> bool {
        self.kind != Kind::Message
    }

    /// Whether it is a tool's error result (`"isError":true` at its top level).
    pub fn is_tool_error(&self) -> bool {
        #[derive(serde::Deserialize)]
        struct Answer {
            result: Flag,
        }
        #[derive(serde::Deserialize)]
        struct Flag {
            #[serde(default, rename = "isError")]
            is_error: bool,
        }
        memchr::memmem::find(&self.bytes, b"\"isError\":true").is_some()
            && serde_json::from_slice::<Answer>(&self.bytes).is_ok_and(|answer| answer.result.is_error)
    }
}

/// Where messages for one request (its response, progress, logs, requests to the client) go.
/// On stdio every request shares one sink; on HTTP each POST has its own.
pub(crate) type Sink = mpsc::Sender<Outgoing>;

/// Queues a message, waiting while the queue is full (backpressure from a slow client). A
/// closed sink drops it: nobody is left to read it.
pub(crate) async fn send(sink: &Sink, message: Outgoing) {
    let _ = sink.send(message).await;
}

/// Queues a notification without waiting; drops it when the queue is full.
pub(crate) fn try_send(sink: &Sink, bytes: Vec<u8>) {
    if sink.try_send(Outgoing::message(bytes)).is_err() {
        tracing::debug!("outbound queue full or closed: a message was dropped");
    }
}
