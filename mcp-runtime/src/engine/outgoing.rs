//! Messages on their way to the client, and where they go.

use tokio::sync::mpsc;

/// One serialized message. Transports that keep a stream per request (HTTP) close it after
/// the response; stdio just writes the bytes.
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub bytes: Vec<u8>,
    #[allow(dead_code)] // read by transports with a stream per request (HTTP)
    pub is_response: bool,
}

/// Where messages for one request (its response, progress, logs, requests to the client) go.
/// On stdio every request shares one sink; on HTTP each POST has its own.
pub(crate) type Sink = mpsc::Sender<Outgoing>;

/// Queues `bytes`, waiting while the queue is full (backpressure from a slow client). A closed
/// sink drops the message: nobody is left to read it.
pub(crate) async fn send(sink: &Sink, bytes: Vec<u8>, is_response: bool) {
    let _ = sink.send(Outgoing { bytes, is_response }).await;
}

/// Queues without waiting; drops the message when the queue is full.
pub(crate) fn try_send(sink: &Sink, bytes: Vec<u8>) {
    if sink.try_send(Outgoing { bytes, is_response: false }).is_err() {
        tracing::debug!("outbound queue full or closed: a message was dropped");
    }
}
