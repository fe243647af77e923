//! What the server has for the client, on its way to stdout.

use super::streams::Output;
use crate::engine::outgoing::Outgoing;
use std::collections::VecDeque;
use std::future::Future as _;
use std::io::{self, IoSlice};
use std::pin::pin;
use std::task::{Poll, Waker};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// Bytes written but not yet taken by the client past which nothing more is queued, so a
/// client that stops reading holds up the server's handlers rather than its memory.
const HIGH_WATER: usize = 256 * 1024;

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

pub(super) struct Outbox {
    /// Messages from handlers (progress, logs, requests to the client, answers of those that waited).
    queued: mpsc::Receiver<Outgoing>,
    /// Messages not yet written, oldest first: large ones as they came, small ones batched.
    /// Up to 64 chunks go to one vectored write.
    pending: VecDeque<Chunk>,
    /// How much of the first pending chunk (counting its newline) is written.
    written: usize,
    /// Bytes in `pending` not yet written.
    size: usize,
    /// The buffer of the last batch written, for the next one.
    spare: Vec<u8>,
    /// A flush `write_ready` started but could not finish; `step` finishes it.
    unflushed: bool,
    output: Output,
}

impl Outbox {
    pub fn new(queued: mpsc::Receiver<Outgoing>, output: Output) -> Self {
        Self { queued, pending: VecDeque::new(), written: 0, size: 0, spare: Vec::new(), unflushed: false, output }
    }

    /// Whether the client keeps up: false while much is waiting for it to read.
    pub fn has_room(&self) -> bool {
        self.size < HIGH_WATER
    }

    /// Adds a message after everything queued before it, room or not: an answer returned at
    /// once must not overtake what its own handler queued (progress, logs).
    pub fn push(&mut self, message: Vec<u8>) {
        self.collect_all();
        self.append(message);
    }

    /// Writes what is pending as far as stdout takes it at once, without waiting: called after
    /// a burst of input, it saves the serve loop a turn per call. What is left waits for
    /// [`step`](Self::step). An error means stdout is gone.
    pub fn write_ready(&mut self) -> io::Result<()> {
        // A write or flush left pending registered this no-op waker; `step` polls it again
        // with the task's own, and an `AsyncWrite` wakes the waker of its latest poll.
        let mut cx = std::task::Context::from_waker(Waker::noop());
        while !self.pending.is_empty() {
            let polled = pin!(write_some(&mut self.output, &self.pending, self.written)).poll(&mut cx);
            match polled {
                Poll::Ready(written) => self.consume(written?),
                Poll::Pending => return Ok(()),
            }
        }
        match pin!(self.output.flush()).poll(&mut cx) {
            Poll::Ready(flushed) => flushed,
            Poll::Pending => {
                self.unflushed = true;
                Ok(())
            }
        }
    }

    /// Writes what it can, or waits for a message to write; returns after either. Cancel-safe.
    /// An error means stdout is gone.
    pub async fn step(&mut self) -> io::Result<()> {
        if self.unflushed && self.pending.is_empty() {
            self.output.flush().await?;
            self.unflushed = false;
            return Ok(());
        }
        self.collect();
        let has_room = self.has_room();
        tokio::select! {
            biased;
            written = write_some(&mut self.output, &self.pending, self.written), if !self.pending.is_empty() => {
                self.consume(written?);
                if self.pending.is_empty() {
                    self.output.flush().await?; // a no-op for pipes and sockets
                    self.unflushed = false;
                }
                Ok(())
            }
            Some(message) = self.queued.recv(), if has_room => {
                self.append(message.bytes);
                Ok(())
            }
            else => std::future::pending().await, // nothing to write and no room: wait for the caller's other work
        }
    }

    /// Writes everything queued so far, giving up after `timeout`.
    pub async fn flush(mut self, timeout: Duration) {
        self.collect_all();
        let written = async {
            while !self.pending.is_empty() {
                let written = write_some(&mut self.output, &self.pending, self.written).await?;
                self.consume(written);
            }
            self.output.flush().await
        };
        match tokio::time::timeout(timeout, written).await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => tracing::debug!("stdout closed before everything was written: {err}"),
            Err(_) => tracing::warn!("the client did not read the last messages in time; they were dropped"),
        }
    }

    /// Moves queued messages into the pending ones, as far as there is room.
    fn collect(&mut self) {
        while self.has_room() {
            match self.queued.try_recv() {
                Ok(message) => self.append(message.bytes),
                Err(_) => return,
            }
        }
    }

    /// Moves every queued message into the pending ones, room or not.
    fn collect_all(&mut self) {
        while let Ok(message) = self.queued.try_recv() {
            self.append(message.bytes);
        }
    }

    fn append(&mut self, message: Vec<u8>) {
        self.size += message.len() + 1;
        if message.len() > BATCHED_UP_TO {
            self.pending.push_back(Chunk { bytes: message, batch: false });
        } else if let Some(batch) = self.pending.back_mut().filter(|chunk| chunk.batch) {
            batch.bytes.push(b'\n');
            batch.bytes.extend_from_slice(&message);
        } else {
            let mut bytes = std::mem::take(&mut self.spare);
            bytes.extend_from_slice(&message);
            self.pending.push_back(Chunk { bytes, batch: true });
        }
    }

    /// Drops what a write took from the front.
    fn consume(&mut self, mut count: usize) {
        self.size -= count;
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
async fn write_some(output: &mut Output, pending: &VecDeque<Chunk>, written: usize) -> io::Result<usize> {
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
    match output.write_vectored(&slices[..count]).await? {
        0 => Err(io::ErrorKind::WriteZero.into()),
        count => Ok(count),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// Everything pushed arrives in order, newline-terminated, through a pipe much smaller
    /// than the messages (so writes are partial and resume mid-message).
    #[tokio::test]
    async fn messages_arrive_whole_and_in_order_through_partial_writes() {
        let (client, server) = tokio::io::duplex(1000);
        let (sink, queued) = mpsc::channel(8);
        let mut outbox = Outbox::new(queued, Box::pin(server));
        // From empty to 7 KB: batched and not, written in pieces through the 1000-byte pipe.
        let messages: Vec<Vec<u8>> = (0..50u8).map(|i| vec![b'a' + i % 26; 150 * usize::from(i)]).collect();
        let expected: Vec<u8> = messages.iter().flat_map(|m| m.iter().copied().chain([b'\n'])).collect();
        let reader = tokio::spawn(async move {
            let mut client = client;
            let mut received = Vec::new();
            client.read_to_end(&mut received).await.map(|_| received)
        });
        for (i, message) in messages.into_iter().enumerate() {
            if i % 2 == 0 {
                outbox.push(message);
            } else {
                sink.send(Outgoing { bytes: message, is_response: true }).await.unwrap();
            }
            outbox.step().await.unwrap();
        }
        outbox.flush(Duration::from_secs(5)).await;
        assert_eq!(reader.await.unwrap().unwrap(), expected);
    }

    #[tokio::test]
    async fn small_messages_share_a_buffer_and_large_ones_keep_theirs() {
        let (mut client, server) = tokio::io::duplex(64 * 1024);
        let (_sink, queued) = mpsc::channel(8);
        let mut outbox = Outbox::new(queued, Box::pin(server));
        let large = vec![b'L'; BATCHED_UP_TO + 1];
        for message in [&b"a"[..], b"", b"bc", &large, b"d", b"e"] {
            outbox.push(message.to_vec());
        }
        let chunks: Vec<(usize, bool)> = outbox.pending.iter().map(|c| (c.bytes.len(), c.batch)).collect();
        assert_eq!(chunks, [(5, true), (BATCHED_UP_TO + 1, false), (3, true)]);
        outbox.flush(Duration::from_secs(5)).await;
        let mut received = Vec::new();
        client.read_to_end(&mut received).await.unwrap();
        let expected = [&b"a\n\nbc\n"[..], &large, b"\nd\ne\n"].concat();
        assert_eq!(received, expected);
    }

    #[tokio::test]
    async fn write_ready_writes_what_fits_now_and_step_the_rest() {
        let (mut client, server) = tokio::io::duplex(100);
        let (_sink, queued) = mpsc::channel(8);
        let mut outbox = Outbox::new(queued, Box::pin(server));
        outbox.push(vec![b'a'; 60]);
        outbox.write_ready().unwrap();
        assert!(outbox.pending.is_empty(), "61 bytes fit the pipe");
        outbox.push(vec![b'b'; 150]);
        outbox.write_ready().unwrap();
        assert_eq!(outbox.written, 39, "the pipe took 39 more bytes, then was full");
        let reader = tokio::spawn(async move {
            let mut received = vec![0; 212];
            client.read_exact(&mut received).await.map(|_| received)
        });
        while !outbox.pending.is_empty() {
            outbox.step().await.unwrap();
        }
        let expected = [vec![b'a'; 60], b"\n".to_vec(), vec![b'b'; 150], b"\n".to_vec()].concat();
        assert_eq!(reader.await.unwrap().unwrap(), expected);
    }
}
