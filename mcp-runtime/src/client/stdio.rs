//! A server as a child process: JSON-RPC lines on its stdin and stdout, each within the
//! client's maximum message size; its stderr passed through, captured or discarded.

use super::bounded;
use super::error::ClientError;
use super::transport::{Inbound, Inbox, Outbound};
use crate::sync::lock;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, Command};

/// What becomes of a child server's stderr (its logs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StderrMode {
    /// Passed through to this process's stderr.
    #[default]
    Inherit,
    /// Kept in memory, read with [`Client::stderr`](super::Client::stderr).
    Capture,
    /// Thrown away.
    Discard,
}

/// How long a child gets to exit after its stdin closes before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

pub(crate) struct StdioTransport {
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    child: tokio::sync::Mutex<Option<Child>>,
    stderr: Option<Arc<Mutex<Vec<u8>>>>,
    reader: tokio::task::AbortHandle,
}

impl StdioTransport {
    /// Starts `command` with piped stdin and stdout, and a task reading its lines (of at most
    /// `limit` bytes: a longer one breaks the connection) into `inbox`.
    pub fn spawn(mut command: Command, stderr: StderrMode, limit: usize, inbox: Inbox) -> Result<Self, ClientError> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).kill_on_drop(true);
        command.stderr(match stderr {
            StderrMode::Inherit => Stdio::inherit(),
            StderrMode::Capture => Stdio::piped(),
            StderrMode::Discard => Stdio::null(),
        });
        let mut child = command
            .spawn()
            .map_err(|e| ClientError::Transport(format!("cannot start {:?}: {e}", command.as_std().get_program())))?;
        let missing = || ClientError::Transport("the child's pipes are missing".into());
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let captured = child.stderr.take().map(|mut pipe| {
            let buffer: Arc<Mutex<Vec<u8>>> = Arc::default();
            let sink = Arc::clone(&buffer);
            tokio::spawn(async move {
                let mut chunk = [0u8; 4096];
                while let Ok(n @ 1..) = pipe.read(&mut chunk).await {
                    lock(&sink).extend_from_slice(&chunk[..n]);
                }
            });
            buffer
        });
        let reader = tokio::spawn(async move {
            let mut lines = BufReader::new(stdout);
            let mut line = Vec::new();
            loop {
                match bounded::line(&mut lines, &mut line, limit).await {
                    Ok(()) if line.is_empty() => break,
                    Ok(()) if line.iter().all(u8::is_ascii_whitespace) => continue,
                    Ok(()) => {
                        if inbox.send(Inbound::Message(std::mem::take(&mut line), None)).is_err() {
                            return;
                        }
                    }
                    // Whose answer it was cannot be told, and skipping to the next newline could
                    // mean reading forever: the connection is broken.
                    Err(error @ ClientError::MessageTooLarge { .. }) => {
                        let _ = inbox.send(Inbound::Broken(error));
                        return;
                    }
                    Err(_) => break,
                }
            }
            let _ = inbox.send(Inbound::Closed);
        })
        .abort_handle();
        Ok(Self {
            stdin: tokio::sync::Mutex::new(Some(stdin)),
            child: tokio::sync::Mutex::new(Some(child)),
            stderr: captured,
            reader,
        })
    }

    pub async fn send(&self, message: Outbound<'_>) -> Result<(), ClientError> {
        let mut body = message.body;
        body.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        let pipe = stdin.as_mut().ok_or(ClientError::Closed)?;
        let written = async {
            pipe.write_all(&body).await?;
            pipe.flush().await
        };
        written.await.map_err(|e| ClientError::Transport(format!("cannot write to the server's stdin: {e}")))
    }

    /// What the child wrote on stderr so far, when it is captured.
    pub fn stderr(&self) -> Option<String> {
        let buffer = self.stderr.as_ref()?;
        Some(String::from_utf8_lossy(&lock(buffer)).into_owned())
    }

    /// Closes the child's stdin, waits a little for it to exit, then kills it.
    pub async fn close(&self) {
        self.stdin.lock().await.take();
        let child = self.child.lock().await.take();
        if let Some(mut child) = child
            && tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_err()
        {
            let _ = child.kill().await;
        }
        self.reader.abort();
    }
}
