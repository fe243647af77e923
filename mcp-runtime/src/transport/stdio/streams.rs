//! stdin and stdout as blocking streams of the threads that serve them.
//!
//! A read or write here blocks its thread, as a plain JSON-RPC loop would: for a pipe or a
//! socket (how clients spawn servers), a terminal or a file alike. On Unix both are duplicates
//! of the process's descriptors, put in blocking mode in case the client handed them over
//! non-blocking; that changes their open file descriptions, which only this process uses when
//! a client spawned it.
//!
//! [`stdout`] guards the protocol stream: on Unix it keeps its own duplicate of the original
//! stdout and points descriptor 1 at stderr, so whatever a tool or a dependency prints
//! (`println!`, `print!`, a C library's `printf`) goes to stderr and every line on the client's
//! pipe is a JSON-RPC message. Elsewhere stdout is not guarded: there, anything printed goes
//! onto the protocol stream and corrupts it.
//!
//! [`await_stdin`] polls stdin for a moment before a read would sleep (see
//! `Server::stdio_busy_poll`), while no other thread wants the CPU. It uses `poll(2)`, so the
//! descriptor's flags, which a terminal shares with the shell, stay as they are.

use std::io::{self, IoSlice, Read, Write};
use std::time::Duration;

pub(super) type Input = Box<dyn Read + Send>;
pub(super) type Output = Box<dyn Write + Send>;

pub(super) fn stdin() -> io::Result<Input> {
    Ok(Box::new(blocking(io::stdin())?))
}

/// Returns once stdin has input (or has ended), after `window`, or as soon as another thread
/// has taken this CPU, so that the read that follows need not sleep when polling costs nobody
/// anything. Whether the CPU stayed this thread's alone (so the client runs on another), if
/// it polled at all. (On Windows it returns at once.)
pub(super) fn await_stdin(window: Duration) -> Option<bool> {
    #[cfg(unix)]
    return unix::await_input(std::os::fd::AsFd::as_fd(&io::stdin()), window);
    #[cfg(not(unix))]
    {
        let _ = window;
        None
    }
}

/// Whether stdin has input (or has ended) now, so a read would not wait. (Never on Windows.)
pub(super) fn stdin_ready() -> bool {
    #[cfg(unix)]
    return unix::readable(std::os::fd::AsFd::as_fd(&io::stdin()));
    #[cfg(not(unix))]
    false
}

/// The protocol's stdout: on Unix a private duplicate of descriptor 1, which is then pointed at
/// stderr for good (see the module's documentation); elsewhere stdout itself.
/// Whether the client has closed stdin (a pipe's writers are gone, a socket's peer shut down
/// its side), whether or not input is left to read: for the watchdog, while the connection's
/// thread cannot read. Never true for a file, nor on Windows.
pub(super) fn stdin_hung_up() -> bool {
    #[cfg(unix)]
    return unix::hung_up(std::os::fd::AsFd::as_fd(&io::stdin()));
    #[cfg(not(unix))]
    false
}

pub(super) fn stdout() -> io::Result<Output> {
    // Whatever was printed before serving goes where it was meant to, ahead of the protocol.
    io::stdout().flush()?;
    let protocol = blocking(io::stdout())?;
    #[cfg(unix)]
    rustix::stdio::dup2_stdout(io::stderr())?;
    Ok(Box::new(protocol))
}

/// One of the process's streams as this module's: on Unix a blocking duplicate of its
/// descriptor; elsewhere the stream itself.
#[cfg(unix)]
fn blocking(stream: impl std::os::fd::AsFd) -> io::Result<Blocking<std::fs::File>> {
    Ok(Blocking(unix::duplicate(stream.as_fd())?))
}

#[cfg(not(unix))]
fn blocking<S>(stream: S) -> io::Result<Blocking<S>> {
    Ok(Blocking(stream))
}

#[cfg(unix)]
mod unix {
    use rustix::event::{PollFd, PollFlags, Timespec};
    use std::fs::File;
    use std::io;
    use std::os::fd::BorrowedFd;
    use std::time::Duration;
    use std::time::Instant;

    /// A gap between two polls longer than this means another thread ran: the CPU is shared.
    const PREEMPTED_AFTER: Duration = Duration::from_micros(5);

    /// Returns once `fd` has input (or end of input, or an error for the read to report),
    /// after `window`, or once another thread has taken the CPU between two polls (a client
    /// on this CPU, or other work, needs it; the read will be woken). Whether none did, if it
    /// polled more than once.
    ///
    /// It never yields the CPU itself: `sched_yield` on a CPU shared with a busy process hands
    /// it a whole time slice (milliseconds; a pinned run at 32 in flight fell from ~100 k to
    /// 3 k calls/s while the machine compiled).
    pub fn await_input(fd: BorrowedFd<'_>, window: Duration) -> Option<bool> {
        let start = Instant::now();
        let mut polled = start;
        let mut alone = None;
        while !readable(fd) {
            let now = Instant::now();
            if now.duration_since(polled) > PREEMPTED_AFTER {
                return Some(false);
            }
            if now.duration_since(start) >= window {
                break;
            }
            alone = Some(true);
            polled = now;
            std::hint::spin_loop();
        }
        alone
    }

    pub fn readable(fd: BorrowedFd<'_>) -> bool {
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        rustix::event::poll(&mut fds, Some(&Timespec { tv_sec: 0, tv_nsec: 0 })).map_or(true, |ready| ready > 0)
    }

    pub fn hung_up(fd: BorrowedFd<'_>) -> bool {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let asked = PollFlags::IN | PollFlags::RDHUP;
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let asked = PollFlags::IN;
        let mut fds = [PollFd::new(&fd, asked)];
        let ended = asked.difference(PollFlags::IN) | PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL;
        match rustix::event::poll(&mut fds, Some(&Timespec { tv_sec: 0, tv_nsec: 0 })) {
            Ok(ready) => ready > 0 && fds[0].revents().intersects(ended),
            Err(_) => false,
        }
    }

    /// The capacity asked of a pipe: the most an unprivileged process may set by default
    /// (`/proc/sys/fs/pipe-max-size`). With the default 64 KiB, a message just over it needs a
    /// second write, after the reader has woken to make room, and a wake-up costs more than
    /// the copy; pages are only taken as the pipe fills.
    #[cfg(target_os = "linux")]
    const PIPE_CAPACITY: usize = 1 << 20;

    /// A duplicate of `fd`, in blocking mode, with a large buffer when it is a pipe.
    pub fn duplicate(fd: BorrowedFd<'_>) -> io::Result<File> {
        let file = File::from(fd.try_clone_to_owned()?);
        // Best effort: where either fails, `Blocking` and the default capacity still work.
        let _ = rustix::io::ioctl_fionbio(&file, false);
        #[cfg(target_os = "linux")]
        let _ = rustix::pipe::fcntl_setpipe_size(&file, PIPE_CAPACITY);
        Ok(file)
    }
}

/// A stream that waits when it would block: the fallback for a descriptor that stays
/// non-blocking (one that could not be switched), which a plain read or write would take for
/// an error.
struct Blocking<S>(S);

/// How long to wait before trying a stream that would have blocked again.
const RETRY_AFTER: Duration = Duration::from_millis(1);

fn retrying<T>(mut operation: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    loop {
        match operation() {
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(RETRY_AFTER),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            done => return done,
        }
    }
}

impl<S: Read> Read for Blocking<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        retrying(|| self.0.read(buf))
    }
}

impl<S: Write> Write for Blocking<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        retrying(|| self.0.write(buf))
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        retrying(|| self.0.write_vectored(bufs))
    }

    fn flush(&mut self) -> io::Result<()> {
        retrying(|| self.0.flush())
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn a_pipe_is_readable_when_input_or_its_end_is_there() {
        let (reader, writer) = rustix::pipe::pipe().unwrap();
        assert!(!unix::readable(reader.as_fd()), "an empty pipe");
        // Nothing to read: polling gives up after the window instead of waiting for input.
        unix::await_input(reader.as_fd(), Duration::from_millis(5));
        rustix::io::write(&writer, b"{}\n").unwrap();
        assert!(unix::readable(reader.as_fd()), "input waiting");
        assert_eq!(rustix::io::read(&reader, &mut [0; 8]).unwrap(), 3);
        assert!(!unix::readable(reader.as_fd()), "input taken");
        drop(writer);
        assert!(unix::readable(reader.as_fd()), "end of input, for the read to report");
    }

    #[test]
    fn a_pipe_has_hung_up_once_its_writer_is_gone_even_with_input_left() {
        let (reader, writer) = rustix::pipe::pipe().unwrap();
        assert!(!unix::hung_up(reader.as_fd()), "an open, empty pipe");
        rustix::io::write(&writer, b"{}\n").unwrap();
        assert!(!unix::hung_up(reader.as_fd()), "input waiting, writer still there");
        drop(writer);
        assert!(unix::hung_up(reader.as_fd()), "writer gone, input left");
    }
}
