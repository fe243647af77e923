//! What the server has for the client, on its way to stdout.

use super::streams::Output;
use crate::engine::outgoing::Outgoing;
use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// Bytes written but not yet taken by the client past which nothing more is queued, so a
/// client that stops reading holds up the server's handlers rather than its memory.
const HIGH_WATER: usize = 256 * 1024;

/// Messages handed to one `writev`.
const MESSAGES_PER_WRITE: usize = 64;

pub(super) struct Outbox {
    /// Messages from handlers (progress, logs, requests to the client, answers of those that waited).
    queued: mpsc::Receiver<Outgoing>,
    /// Messages not yet written, oldest first, each without its newline: they are written
    /// with one vectored write, never copied.
    pending: VecDeque<Vec<u8>>,
    /// How much of the first pending message (counting its newline) is written.
    written: usize,
    /// Bytes in `pending` not yet written.
    size: usize,
    output: Output,
}

impl Outbox {
    pub fn new(queued: mpsc::Receiver<Outgoing>, output: Output) -> Self {
        Self { queued, pending: VecDeque::new(), written: 0, size: 0, output }
    }

    /// Whether the client keeps up: false while much is waiting for it to read.
    pub fn has_room(&self) -> bool {
        self.size < HIGH_WATER
    }

    /// Adds a message after everything queued before it, room or not: an answer returned at
    /// once must not overtake what its own handler queued (progress, logs).
    pub fn push(&mut self, message: Vec<u8>) {
        while let Ok(queued) = self.queued.try_recv() {
            self.append(queued.bytes);
        }
        self.append(message);
    }

    /// Writes what it can, or waits for a message to write; returns after either. Cancel-safe.
    /// An error means stdout is gone.
    pub async fn step(&mut self) -> io::Result<()> {
        self.collect();
        let has_room = self.has_room();
        tokio::select! {
            biased;
            written = write_some(&mut self.output, &self.pending, self.written), if !self.pending.is_empty() => {
                self.consume(written?);
                if self.pending.is_empty() {
                    self.output.flush().await?; // a no-op for pipes and sockets
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
        while let Ok(message) = self.queued.try_recv() {
            self.append(message.bytes);
        }
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

    fn append(&mut self, message: Vec<u8>) {
        self.size += message.len() + 1;
        self.pending.push_back(message);
    }

    /// Drops what a write took from the front.
    fn consume(&mut self, mut count: usize) {
        self.size -= count;
        while let Some(first) = self.pending.front() {
            let rest = first.len() + 1 - self.written;
            if count < rest {
                self.written += count;
                return;
            }
            count -= rest;
            self.written = 0;
            self.pending.pop_front();
        }
    }
}

/// One vectored write of the first pending messages and their newlines; the count written.
async fn write_some(output: &mut Output, pending: &VecDeque<Vec<u8>>, written: usize) -> io::Result<usize> {
    let mut slices = [IoSlice::new(&[]); 2 * MESSAGES_PER_WRITE]; // on the stack: no allocation
    let mut count = 0;
    for (index, message) in pending.iter().take(MESSAGES_PER_WRITE).enumerate() {
        let skip = if index == 0 { written } else { 0 };
        if skip < message.len() {
            slices[count] = IoSlice::new(&message[skip..]);
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
        let messages: Vec<Vec<u8>> = (0..50u8).map(|i| vec![b'a' + i % 26; 37 * usize::from(i)]).collect();
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
}
