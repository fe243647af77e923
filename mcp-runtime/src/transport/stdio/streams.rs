//! stdin and stdout as async streams.
//!
//! Pipes and sockets, which is how clients spawn servers, are made non-blocking and polled by
//! the runtime: the task that serves the connection reads, dispatches and writes without
//! handing a message to another thread. Anything else (a terminal, a file) is read on a thread
//! of its own, since a blocking read cannot be cancelled and one on tokio's blocking pool
//! would hold up shutdown until the next line arrived; it is written through tokio's stdout.
//!
//! Making stdin and stdout non-blocking changes their open file descriptions, which only
//! this process uses when a client spawned it with pipes or sockets; terminals are left alone.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;

pub(super) type Input = Pin<Box<dyn AsyncRead + Send>>;
pub(super) type Output = Pin<Box<dyn AsyncWrite + Send>>;

pub(super) fn stdin() -> io::Result<Input> {
    #[cfg(unix)]
    if let Some(polled) = polled::stdin() {
        return Ok(polled);
    }
    Ok(Box::pin(ThreadReader::spawn()?))
}

pub(super) fn stdout() -> Output {
    #[cfg(unix)]
    if let Some(polled) = polled::stdout() {
        return polled;
    }
    // Buffered: tokio's stdout takes one slice per write, and the outbox writes each
    // message and its newline as two; the outbox flushes once everything is written.
    Box::pin(tokio::io::BufWriter::new(tokio::io::stdout()))
}

#[cfg(unix)]
mod polled {
    use super::{Input, Output};
    use std::fs::File;
    use std::io::IsTerminal;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;
    use std::os::unix::net::UnixStream;
    use tokio::net::unix::pipe;

    /// The capacity asked of a pipe: the most an unprivileged process may set by default
    /// (`/proc/sys/fs/pipe-max-size`). With the default 64 KiB, a message just over it needs a
    /// second write, after the reader has woken to make room, and a wake-up here costs more
    /// than the copy; pages are only taken as the pipe fills.
    #[cfg(target_os = "linux")]
    const PIPE_CAPACITY: usize = 1 << 20;

    pub fn stdin() -> Option<Input> {
        match open(std::io::stdin().as_fd())? {
            Stream::Pipe(file) => Some(Box::pin(pipe::Receiver::from_file(file).ok()?)),
            Stream::Socket(socket) => Some(Box::pin(tokio::net::UnixStream::from_std(socket).ok()?)),
        }
    }

    pub fn stdout() -> Option<Output> {
        match open(std::io::stdout().as_fd())? {
            Stream::Pipe(file) => Some(Box::pin(pipe::Sender::from_file(file).ok()?)),
            Stream::Socket(socket) => Some(Box::pin(tokio::net::UnixStream::from_std(socket).ok()?)),
        }
    }

    enum Stream {
        Pipe(File),
        /// Any socket: only `read`, `write` and readiness are used, which are the same for all.
        Socket(UnixStream),
    }

    /// A duplicate of `fd` when it is a pipe or a socket, set non-blocking.
    fn open(fd: BorrowedFd<'_>) -> Option<Stream> {
        if fd.is_terminal() {
            return None;
        }
        let file = File::from(fd.try_clone_to_owned().ok()?);
        let kind = file.metadata().ok()?.file_type();
        if kind.is_fifo() {
            // Best effort: a limit or an older kernel leaves the pipe as it was.
            #[cfg(target_os = "linux")]
            let _ = rustix::pipe::fcntl_setpipe_size(&file, PIPE_CAPACITY);
            return Some(Stream::Pipe(file)); // tokio's pipe types set O_NONBLOCK
        }
        if kind.is_socket() {
            let socket = UnixStream::from(OwnedFd::from(file));
            socket.set_nonblocking(true).ok()?;
            return Some(Stream::Socket(socket));
        }
        None
    }
}

/// stdin read by a dedicated thread, in chunks, for inputs the runtime cannot poll.
struct ThreadReader {
    chunks: mpsc::Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    taken: usize,
}

impl ThreadReader {
    fn spawn() -> io::Result<Self> {
        let (sender, chunks) = mpsc::channel(4);
        std::thread::Builder::new().name("mcp-stdin".into()).spawn(move || {
            use std::io::Read;
            let mut stdin = std::io::stdin().lock();
            loop {
                let mut chunk = vec![0; 64 * 1024];
                let read = match stdin.read(&mut chunk) {
                    Ok(0) => return, // end of input: dropping `sender` says so
                    Ok(count) => {
                        chunk.truncate(count);
                        Ok(chunk)
                    }
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                    Err(err) => Err(err),
                };
                let failed = read.is_err();
                if sender.blocking_send(read).is_err() || failed {
                    return; // the server stopped reading, or stdin broke
                }
            }
        })?;
        Ok(Self { chunks, chunk: Vec::new(), taken: 0 })
    }
}

impl AsyncRead for ThreadReader {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.taken == this.chunk.len() {
            match ready!(this.chunks.poll_recv(cx)) {
                Some(Ok(chunk)) => (this.chunk, this.taken) = (chunk, 0),
                Some(Err(err)) => return Poll::Ready(Err(err)),
                None => return Poll::Ready(Ok(())), // end of input
            }
        }
        let count = buf.remaining().min(this.chunk.len() - this.taken);
        buf.put_slice(&this.chunk[this.taken..this.taken + count]);
        this.taken += count;
        Poll::Ready(Ok(()))
    }
}
