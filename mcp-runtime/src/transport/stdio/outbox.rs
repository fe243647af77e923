//! What the server has for the client, on its way to stdout.
//!
//! Two threads write. The connection's thread writes the answers of handlers that finish at
//! once, after each burst of input. The writer thread writes what handlers queue from their
//! own tasks (progress, logs, requests to the client, the answers of handlers that waited)
//! while the connection's thread waits for input, and sleeps while nothing is queued, so a call
//! answered at once never wakes it. Both move queued messages into the pending ones and write
//! under one lock: an answer never overtakes what its own handler queued before it, and a
//! client that stops reading blocks both (the connection's thread then reads no more input).

use super::streams::Output;
use crate::jsonrpc;
use crate::session::outgoing::Outgoing;
use crate::sync::lock;
use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// Chunks handed to one `writev` (small messages are batched, so a chunk often holds many).
const CHUNKS_PER_WRITE: usize = 16;

/// Messages up to this size are copied into a shared buffer next to their neighbours, and their
/// own allocation freed at once: with dozens of answers waiting for one write, keeping each
/// `Vec` alive overflowed glibc's per-thread cache and made every allocation take the slow path.
const BATCHED_UP_TO: usize = 4096;

/// An emptied batch buffer up to this capacity is kept for the next batch.
const SPARE_UP_TO: usize = 64 * 1024;

/// One or more messages joined by newlines, without the last newline (the write adds it).
struct Chunk {
    bytes: Vec<u8>,
    /// A buffer of small messages that later small ones may join, rather than one message's.
    batch: bool,
}

/// The connection's handle on the outbox; [`Writer`] is the writer thread's.
pub(super) struct Outbox {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Serving ended: the writer thread writes what is left and stops.
    closing: AtomicBool,
}

struct State {
    /// Messages from handlers' tasks, not yet pending.
    queued: mpsc::Receiver<Outgoing>,
    /// Messages not yet written, oldest first: large ones as they came, small ones batched.
    pending: VecDeque<Chunk>,
    /// How much of the first pending chunk (counting its newline) is written.
    written: usize,
    /// The buffer of the last batch written, for the next one.
    spare: Vec<u8>,
    /// stdout failed: what is left is dropped.
    broken: bool,
    output: Output,
}

impl Outbox {
    pub fn new(queued: mpsc::Receiver<Outgoing>, output: Output) -> Self {
        let state = State { queued, pending: VecDeque::new(), written: 0, spare: Vec::new(), broken: false, output };
        Self { shared: Arc::new(Shared { state: Mutex::new(state), closing: AtomicBool::new(false) }) }
    }

    /// Adds a message after everything queued before it: an answer returned at once must not
    /// overtake what its own handler queued (progress, logs).
    pub fn push(&self, message: Vec<u8>) {
        let mut state = self.shared.lock();
        state.collect();
        state.append(message);
    }

    /// Writes everything pending and queued, waiting for the client to take it. An error
    /// means stdout is gone.
    pub fn write(&self) -> io::Result<()> {
        let mut state = self.shared.lock();
        state.collect();
        state.write_pending()
    }

    /// Starts the writer thread; `stop` is cancelled if stdout fails.
    pub fn spawn_writer(&self, stop: CancellationToken) -> io::Result<Writer> {
        let shared = Arc::clone(&self.shared);
        let (finished, done) = oneshot::channel();
        let thread = std::thread::Builder::new().name("mcp-stdout".into()).spawn(move || {
            shared.write_until_closed(&stop);
            let _ = finished.send(());
        })?;
        Ok(Writer { shared: Arc::clone(&self.shared), thread: thread.thread().clone(), done })
    }
}

/// The writer thread, to stop once serving ends.
pub(super) struct Writer {
    shared: Arc<Shared>,
    thread: Thread,
    done: oneshot::Receiver<()>,
}

impl Writer {
    /// Has the writer write everything queued so far and stop, giving up after `timeout`.
    pub async fn close(self, timeout: Duration) {
        self.shared.closing.store(true, Ordering::SeqCst);
        self.thread.unpark();
        if tokio::time::timeout(timeout, self.done).await.is_err() {
            tracing::warn!("the client did not read the last messages in time; they were dropped");
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while locked (an allocation failure) leaves the state consistent enough to write.
        lock(&self.state)
    }

    /// The writer thread's loop: sleeps until a handler queues a message, then writes.
    fn write_until_closed(&self, stop: &CancellationToken) {
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        loop {
            // Read before collecting, so nothing queued before `close` is left behind.
            let closing = self.closing.load(Ordering::SeqCst);
            let mut state = self.lock();
            let open = state.receive(&mut cx);
            if let Err(err) = state.write_pending() {
                tracing::debug!("stdout closed: {err}");
                stop.cancel();
                return;
            }
            drop(state);
            if closing || !open {
                return;
            }
            std::thread::park(); // until `cx`'s waker or `close` unparks it
        }
    }
}

/// Wakes the writer thread.
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

impl State {
    /// Moves every queued message into the pending ones. (It registers no waker: the channel
    /// keeps only one, and the writer thread's must stay.)
    fn collect(&mut self) {
        while let Ok(message) = self.queued.try_recv() {
            self.append(message.bytes);
        }
    }

    /// Like [`collect`](Self::collect), and has `cx` woken when a message is queued next.
    /// False once every sender is gone.
    fn receive(&mut self, cx: &mut Context<'_>) -> bool {
        loop {
            match self.queued.poll_recv(cx) {
                Poll::Ready(Some(message)) => self.append(message.bytes),
                Poll::Ready(None) => return false,
                Poll::Pending => return true,
            }
        }
    }

    fn append(&mut self, message: Vec<u8>) {
        if self.broken {
            return;
        }
        if message.len() > BATCHED_UP_TO {
            self.pending.push_back(Chunk { bytes: message, batch: false });
            return;
        }
        match self.pending.back_mut().filter(|chunk| chunk.batch) {
            Some(batch) => {
                batch.bytes.push(b'\n');
                batch.bytes.extend_from_slice(&message);
            }
            None => {
                let mut bytes = std::mem::take(&mut self.spare);
                bytes.extend_from_slice(&message);
                self.pending.push_back(Chunk { bytes, batch: true });
            }
        }
        jsonrpc::recycle(message); // copied: its buffer serves the next answer
    }

    /// Writes every pending message, waiting for the client to take them.
    fn write_pending(&mut self) -> io::Result<()> {
        if self.broken {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        if self.pending.is_empty() {
            return Ok(());
        }
        let written = self.write_all().and_then(|()| self.output.flush());
        if written.is_err() {
            self.broken = true;
            self.pending.clear();
        }
        written
    }

    fn write_all(&mut self) -> io::Result<()> {
        while !self.pending.is_empty() {
            let written = write_some(&mut self.output, &self.pending, self.written)?;
            self.consume(written);
        }
        Ok(())
    }

    /// Drops what a write took from the front.
    fn consume(&mut self, mut count: usize) {
        while let Some(first) = self.pending.front() {
            let rest = first.bytes.len() + 1 - self.written;
            if count < rest {
                self.written += count;
                return;
            }
            count -= rest;
            self.written = 0;
            if let Some(Chunk { mut bytes, batch: true }) = self.pending.pop_front()
                && bytes.capacity() <= SPARE_UP_TO
            {
                bytes.clear();
                self.spare = bytes;
            }
        }
    }
}

/// One vectored write of the first pending chunks and their newlines; the count written.
fn write_some(output: &mut Output, pending: &VecDeque<Chunk>, written: usize) -> io::Result<usize> {
    let mut slices = [IoSlice::new(&[]); 2 * CHUNKS_PER_WRITE]; // on the stack: no allocation
    let mut count = 0;
    for (index, chunk) in pending.iter().take(CHUNKS_PER_WRITE).enumerate() {
        let skip = if index == 0 { written } else { 0 };
        if skip < chunk.bytes.len() {
            slices[count] = IoSlice::new(&chunk.bytes[skip..]);
            count += 1;
        }
        slices[count] = IoSlice::new(b"\n");
        count += 1;
    }
    match output.write_vectored(&slices[..count])? {
        0 => Err(io::ErrorKind::WriteZero.into()),
        count => Ok(count),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A client reading at most `per_write` bytes at a time, so writes are partial and resume
    /// mid-message; what it took is in `received`.
    #[derive(Clone)]
    struct Client {
        received: Arc<Mutex<Vec<u8>>>,
        per_write: usize,
    }

    impl Client {
        fn new(per_write: usize) -> Self {
            Self { received: Arc::default(), per_write }
        }

        fn received(&self) -> Vec<u8> {
            self.received.lock().unwrap().clone()
        }
    }

    impl Write for Client {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let count = buf.len().min(self.per_write);
            self.received.lock().unwrap().extend_from_slice(&buf[..count]);
            Ok(count)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn message(bytes: Vec<u8>) -> Outgoing {
        Outgoing { bytes, kind: crate::session::outgoing::Kind::Result }
    }

    #[test]
    fn messages_arrive_whole_and_in_order_through_partial_writes() {
        let client = Client::new(1000);
        let (sink, queued) = mpsc::channel(64);
        let outbox = Outbox::new(queued, Box::new(client.clone()));
        // From empty to 7 KB: batched and not, queued by handlers and answered at once.
        let messages: Vec<Vec<u8>> = (0..50u8).map(|i| vec![b'a' + i % 26; 150 * usize::from(i)]).collect();
        let expected: Vec<u8> = messages.iter().flat_map(|m| m.iter().copied().chain([b'\n'])).collect();
        for (i, bytes) in messages.into_iter().enumerate() {
            if i % 2 == 0 {
                outbox.push(bytes);
            } else {
                sink.try_send(message(bytes)).unwrap();
            }
            if i % 7 == 0 {
                outbox.write().unwrap();
            }
        }
        outbox.write().unwrap();
        assert_eq!(client.received(), expected);
    }

    #[test]
    fn small_messages_share_a_buffer_and_large_ones_keep_theirs() {
        let client = Client::new(usize::MAX);
        let (_sink, queued) = mpsc::channel(8);
        let outbox = Outbox::new(queued, Box::new(client.clone()));
        let large = vec![b'L'; BATCHED_UP_TO + 1];
        for message in [&b"a"[..], b"", b"bc", &large, b"d", b"e"] {
            outbox.push(message.to_vec());
        }
        let chunks: Vec<(usize, bool)> =
            outbox.shared.lock().pending.iter().map(|c| (c.bytes.len(), c.batch)).collect();
        assert_eq!(chunks, [(5, true), (BATCHED_UP_TO + 1, false), (3, true)]);
        outbox.write().unwrap();
        let expected = [&b"a\n\nbc\n"[..], &large, b"\nd\ne\n"].concat();
        assert_eq!(client.received(), expected);
    }

    /// The writer thread writes what handlers queue without the connection's help, never
    /// after an answer pushed later, and what is left when it closes.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_writer_thread_writes_queued_messages_in_order_with_answers() {
        let client = Client::new(7);
        let (sink, queued) = mpsc::channel(1024);
        let outbox = Outbox::new(queued, Box::new(client.clone()));
        let writer = outbox.spawn_writer(CancellationToken::new()).unwrap();
        let mut expected = Vec::new();
        for round in 0..500 {
            // A handler's progress, then its answer returned at once: the writer thread may
            // take the progress first, but the answer must still come after it.
            let progress = format!("progress {round}").into_bytes();
            let answer = format!("answer {round}").into_bytes();
            expected.extend([progress.as_slice(), b"\n", &answer, b"\n"].concat());
            sink.send(message(progress)).await.unwrap();
            outbox.push(answer);
            if round % 10 == 0 {
                outbox.write().unwrap();
            }
        }
        // Queued by a handler and written by the writer thread alone.
        let last = b"from a handler that waited".to_vec();
        expected.extend([last.as_slice(), b"\n"].concat());
        sink.send(message(last)).await.unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while client.received() != expected {
            assert!(std::time::Instant::now() < deadline, "the writer thread did not write the queue");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        sink.send(message(b"before closing".to_vec())).await.unwrap();
        writer.close(Duration::from_secs(10)).await;
        assert!(client.received().ends_with(b"from a handler that waited\nbefore closing\n"));
    }

    #[test]
    fn a_failed_write_is_reported_and_what_follows_dropped() {
        struct Gone;
        impl Write for Gone {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let (_sink, queued) = mpsc::channel(8);
        let outbox = Outbox::new(queued, Box::new(Gone));
        outbox.push(b"lost".to_vec());
        assert!(outbox.write().is_err());
        outbox.push(b"dropped".to_vec());
        assert!(outbox.shared.lock().pending.is_empty());
        assert!(outbox.write().is_err());
    }
}
