//! Newline-delimited framing of the input, with the server's message size limit.

use super::streams::Input;
use std::io::{self, Read};

/// How much room each read asks for, once the buffer has grown.
const READ_CHUNK: usize = 64 * 1024;

/// The room the first read asks for; each read after it asks for twice the buffer's size, up
/// to [`READ_CHUNK`]. Zeroing 64 KiB before the first read was 16 page faults and 66 k
/// instructions between `exec` and the `initialize` answer.
const FIRST_READ: usize = 4 * 1024;

pub(super) enum Line<'a> {
    Message(&'a [u8]),
    /// A line over the limit; its bytes were dropped as they arrived.
    TooLarge,
}

/// Lines of input, cut out of one buffer that reads refill: a burst of messages costs one
/// read, and each is handed on without a copy.
pub(super) struct Lines {
    input: Input,
    /// Initialized up to its length, so a read needs no zeroing; input fills `..filled`.
    buffer: Vec<u8>,
    filled: usize,
    /// Where the next line starts.
    start: usize,
    /// How far the buffer has been searched for a newline.
    scanned: usize,
    limit: usize,
    /// Dropping the rest of a line over the limit.
    oversized: bool,
    at_eof: bool,
    /// The last read took less than it had room for: the client had written nothing more.
    drained: bool,
}

impl Lines {
    pub fn new(input: Input, limit: usize) -> Self {
        Self {
            input,
            buffer: Vec::new(),
            filled: 0,
            start: 0,
            scanned: 0,
            limit,
            oversized: false,
            at_eof: false,
            drained: false,
        }
    }

    /// The next complete line already read, skipping blank ones; at end of input, the last
    /// line even without its newline.
    pub fn next_line(&mut self) -> Option<Line<'_>> {
        match self.next_span()? {
            Some((start, end)) => Some(Line::Message(&self.buffer[start..end])),
            None => Some(Line::TooLarge),
        }
    }

    /// The next complete message already read if `accept` takes it; otherwise it stays next.
    pub fn next_message_if(&mut self, accept: impl FnOnce(&[u8]) -> bool) -> Option<&[u8]> {
        let before = (self.start, self.scanned, self.oversized);
        match self.next_span()? {
            Some((start, end)) if accept(&self.buffer[start..end]) => Some(&self.buffer[start..end]),
            _ => {
                (self.start, self.scanned, self.oversized) = before;
                None
            }
        }
    }

    /// Where the next line is (`Some(None)`: it was over the limit).
    fn next_span(&mut self) -> Option<Option<(usize, usize)>> {
        loop {
            let newline = find_newline(&self.buffer[self.scanned..self.filled]);
            let (start, end) = match newline {
                Some(offset) => {
                    let end = self.scanned + offset;
                    let start = std::mem::replace(&mut self.start, end + 1);
                    self.scanned = end + 1;
                    (start, end)
                }
                None if self.at_eof && (self.start < self.filled || self.oversized) => {
                    let start = std::mem::replace(&mut self.start, self.filled);
                    self.scanned = self.filled;
                    (start, self.filled)
                }
                None => {
                    self.scanned = self.filled;
                    if self.filled - self.start > self.limit {
                        self.oversized = true;
                        self.discard();
                    }
                    return None;
                }
            };
            if std::mem::take(&mut self.oversized) || end - start > self.limit {
                return Some(None);
            }
            if !self.buffer[start..end].iter().all(u8::is_ascii_whitespace) {
                return Some(Some((start, end)));
            }
        }
    }

    /// Whether the client had written nothing more than the last read took (so, if it
    /// pipelines, it is waiting for answers), and part of that is still to be handed out.
    pub fn client_waits(&self) -> bool {
        self.drained && self.start < self.filled
    }

    /// Every line has been handed out and the input is closed.
    pub fn is_finished(&self) -> bool {
        self.at_eof && self.start == self.filled && !self.oversized
    }

    /// Reads more input, waiting for it. Call once [`next_line`](Self::next_line) returns
    /// `None` and the input is not finished.
    pub fn fill(&mut self) -> io::Result<()> {
        if self.start == self.filled {
            self.discard();
        } else if self.start > 0 {
            self.buffer.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            self.scanned -= self.start;
            self.start = 0;
        }
        let room = (2 * self.buffer.len()).clamp(FIRST_READ, READ_CHUNK);
        if self.buffer.len() - self.filled < room {
            self.buffer.resize(self.filled + room, 0);
        }
        let room = self.buffer.len() - self.filled; // what the read may take, at least `room` above
        match self.input.read(&mut self.buffer[self.filled..])? {
            0 => self.at_eof = true,
            count => {
                self.filled += count;
                self.drained = count < room;
            }
        }
        Ok(())
    }

    fn discard(&mut self) {
        self.filled = 0;
        self.start = 0;
        self.scanned = 0;
    }
}

/// Where the first newline in `bytes` is. On x86-64, with memchr's SSE2 search, which the
/// x86-64 baseline has: `memchr::memchr` first asks the CPU whether it has AVX2, and in a VM the
/// `cpuid`s of that check trap to the hypervisor, 0.1 ms before the `initialize` answer
/// (bench/NOTES.md). A line is short enough that the wider vectors would not pay that back.
fn find_newline(bytes: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(searcher) = memchr::arch::x86_64::sse2::memchr::One::new(b'\n') {
        return searcher.find(bytes);
    }
    memchr::memchr(b'\n', bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of `input`, `None` for one over the limit.
    fn lines_of(input: impl Read + Send + 'static, limit: usize) -> Vec<Option<Vec<u8>>> {
        let mut lines = Lines::new(Box::new(input), limit);
        let mut seen = Vec::new();
        while !lines.is_finished() {
            while let Some(line) = lines.next_line() {
                seen.push(match line {
                    Line::Message(bytes) => Some(bytes.to_vec()),
                    Line::TooLarge => None,
                });
            }
            if !lines.is_finished() {
                lines.fill().unwrap();
            }
        }
        seen
    }

    #[test]
    fn the_newline_search_finds_the_first_newline_at_every_length_and_offset() {
        // SSE2 searches a short input, a vector's width and several unrolled widths differently.
        for len in 0..200usize {
            for at in (0..len).step_by(7).chain([len.saturating_sub(1)]) {
                let mut bytes = vec![b'x'; len];
                if len > 0 {
                    // The first newline at `at`, another after it.
                    bytes[at] = b'\n';
                    bytes[(at + 17).min(len - 1)] = b'\n';
                }
                let expected = (len > 0).then_some(at);
                assert_eq!(find_newline(&bytes), expected, "length {len}, newline at {at}");
            }
        }
        assert_eq!(find_newline(b""), None);
        assert_eq!(find_newline(&[b'x'; 100]), None);
    }

    #[test]
    fn splits_on_newlines_and_skips_blank_lines() {
        let seen = lines_of(&b"{\"a\":1}\n\n  \r\n{\"b\":2}\r\n{\"c\":3}"[..], 100);
        assert_eq!(seen, [Some(b"{\"a\":1}".to_vec()), Some(b"{\"b\":2}\r".to_vec()), Some(b"{\"c\":3}".to_vec())]);
    }

    #[test]
    fn a_line_over_the_limit_is_reported_once_and_the_next_one_is_intact() {
        let seen = lines_of(&b"0123456789\n{}\n0123456789"[..], 5);
        assert_eq!(seen, [None, Some(b"{}".to_vec()), None]);
    }

    #[test]
    fn lines_split_across_reads_are_joined_and_the_limit_spans_reads() {
        // `chain` hands out one part per read.
        let input = (&b"{\"a\""[..]).chain(&b":1}\n0123"[..]).chain(&b"456789"[..]).chain(&b"\n{}\n"[..]);
        assert_eq!(lines_of(input, 7), [Some(b"{\"a\":1}".to_vec()), None, Some(b"{}".to_vec())]);
    }

    #[test]
    fn a_message_not_accepted_stays_next() {
        let mut lines = Lines::new(Box::new(&b"{\"a\":1}\n\n{\"b\":2}\n0123456789\n"[..]), 8);
        lines.fill().unwrap();
        assert_eq!(lines.next_message_if(|m| m.starts_with(b"{\"a\"")), Some(&b"{\"a\":1}"[..]));
        assert_eq!(lines.next_message_if(|m| m.starts_with(b"{\"a\"")), None);
        assert_eq!(lines.next_message_if(|m| m.starts_with(b"{\"b\"")), Some(&b"{\"b\":2}"[..]));
        // A line over the limit is never accepted, and is still reported as such.
        assert_eq!(lines.next_message_if(|_| true), None);
        assert!(matches!(lines.next_line(), Some(Line::TooLarge)));
    }

    #[test]
    fn a_client_waits_once_a_read_took_all_it_had_written_until_that_is_handed_out() {
        // `chain` hands out one part per read: each takes less than the room it had.
        let mut lines = Lines::new(Box::new((&b"{}\n{}\n"[..]).chain(&b"{}\n"[..])), 100);
        assert!(!lines.client_waits(), "nothing read yet");
        lines.fill().unwrap();
        assert!(lines.client_waits());
        assert!(lines.next_line().is_some());
        assert!(lines.client_waits(), "one line still to hand out");
        assert!(lines.next_line().is_some());
        assert!(!lines.client_waits(), "all handed out");
        // A read that fills all the room leaves more written: the client is not waiting yet.
        let mut lines = Lines::new(Box::new(std::io::Cursor::new(b"{}\n".repeat(FIRST_READ / 3 + 1))), 100);
        lines.fill().unwrap();
        assert!(!lines.client_waits());
    }

    #[test]
    fn a_line_exactly_at_the_limit_passes() {
        assert_eq!(lines_of(&b"12345\n"[..], 5), [Some(b"12345".to_vec())]);
    }
}
