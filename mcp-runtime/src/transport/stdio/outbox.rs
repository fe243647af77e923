//! What the server has for the client, on its way to stdout.

use super::streams::Output;
use crate::engine::outgoing::Outgoing;
use std::io;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// Bytes written but not yet taken by the client past which nothing more is queued, so a
/// client that stops reading holds up the server's handlers rather than its memory.
const HIGH_WATER: usize = 256 * 1024;

pub(super) struct Outbox {
    /// Messages from handlers running on their own tasks (answers, progress, logs, requests).
    queued: mpsc::Receiver<Outgoing>,
    /// Newline-terminated messages not yet written, oldest first.
    pending: Vec<u8>,
    output: Output,
}

impl Outbox {
    pub fn new(queued: mpsc::Receiver<Outgoing>, output: Output) -> Self {
        Self { queued, pending: Vec::new(), output }
    }

    /// Whether the client keeps up: false while much is waiting for it to read.
    pub fn has_room(&self) -> bool {
        self.pending.len() < HIGH_WATER
    }

    /// Adds a message after everything queued before it.
    pub fn push(&mut self, message: Vec<u8>) {
        self.collect();
        self.append(message);
    }

    /// Writes what it can, or waits for a message to write; returns after either. Cancel-safe.
    /// An error means stdout is gone.
    pub async fn step(&mut self) -> io::Result<()> {
        self.collect();
        let has_room = self.has_room();
        tokio::select! {
            biased;
            written = self.output.write(&self.pending), if !self.pending.is_empty() => match written? {
                0 => Err(io::ErrorKind::WriteZero.into()),
                count => {
                    self.pending.drain(..count);
                    Ok(())
                }
            },
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
            self.output.write_all(&self.pending).await?;
            self.output.flush().await
        };
        match tokio::time::timeout(timeout, written).await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => tracing::debug!("stdout closed before everything was written: {err}"),
            Err(_) => tracing::warn!("the client did not read the last messages in time; they were dropped"),
        }
    }

    /// Moves queued messages into the pending bytes, as far as there is room.
    fn collect(&mut self) {
        while self.has_room() {
            match self.queued.try_recv() {
                Ok(message) => self.append(message.bytes),
                Err(_) => return,
            }
        }
    }

    fn append(&mut self, mut message: Vec<u8>) {
        message.push(b'\n');
        if self.pending.is_empty() {
            self.pending = message; // the common case: no copy
        } else {
            self.pending.extend_from_slice(&message);
        }
    }
}
