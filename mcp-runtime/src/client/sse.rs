//! Server-sent events, as Streamable HTTP uses them: `id`, `data` (one JSON-RPC message),
//! `retry`; comments and `event` names are read past. A line or an event's data longer than
//! the client's maximum message size is refused as it arrives, never held.

use super::bounded::too_large;
use super::error::ClientError;

/// Room on a line for its field name (`data: `) beside a message of the maximum size.
const FIELD_ROOM: usize = 16;

/// One event of a stream.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Event {
    /// Its id, when it set one (the stream's cursor for resumption).
    pub id: Option<String>,
    /// Its data lines, joined with `\n` (empty for a priming event).
    pub data: String,
    /// A new reconnection delay in milliseconds.
    pub retry: Option<u64>,
}

/// Turns chunks of a stream into events.
pub(crate) struct Parser {
    line: Vec<u8>,
    event: Event,
    has_data: bool,
    /// Set when the last chunk ended in `\r`: a `\n` first in the next one ends nothing.
    after_cr: bool,
    /// The most bytes an event's data may hold (the client's maximum message size).
    limit: usize,
}

impl Parser {
    /// A parser refusing events whose data passes `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self { line: Vec::new(), event: Event::default(), has_data: false, after_cr: false, limit }
    }

    /// Feeds a chunk; returns the events it completed, or the error of a line or an event
    /// over the limit (the stream cannot be read on: nothing marks where the next event starts).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<Event>, ClientError> {
        let mut events = Vec::new();
        for &byte in chunk {
            let after_cr = std::mem::take(&mut self.after_cr);
            match byte {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(event) = self.line_done(&line)? {
                        events.push(event);
                    }
                }
                _ if self.line.len() >= self.limit.saturating_add(FIELD_ROOM) => {
                    return Err(too_large(self.limit, "an SSE line"));
                }
                _ => self.line.push(byte),
            }
        }
        Ok(events)
    }

    fn line_done(&mut self, line: &[u8]) -> Result<Option<Event>, ClientError> {
        if line.is_empty() {
            let event = std::mem::take(&mut self.event);
            let dispatch = std::mem::take(&mut self.has_data) || event.id.is_some() || event.retry.is_some();
            return Ok(dispatch.then_some(event));
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (&*line, ""),
        };
        match field {
            "data" => {
                let separator = usize::from(self.has_data);
                if self.event.data.len() + separator + value.len() > self.limit {
                    return Err(too_large(self.limit, "an SSE event"));
                }
                if self.has_data {
                    self.event.data.push('\n');
                }
                self.event.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.event.id = Some(value.to_owned()),
            "retry" => self.event.retry = value.parse().ok(),
            _ => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_across_chunks_and_line_endings() {
        let mut parser = Parser::new(64);
        assert!(parser.feed(b"id: 0-1\r\nretry: 500\r").unwrap().is_empty());
        let events = parser.feed(b"\n\r\n: comment\nevent: message\nid: 0-2\ndata: {\"a\":\ndata: 1}\n\n").unwrap();
        assert_eq!(
            events,
            vec![
                Event { id: Some("0-1".into()), data: String::new(), retry: Some(500) },
                Event { id: Some("0-2".into()), data: "{\"a\":\n1}".into(), retry: None },
            ]
        );
    }

    #[test]
    fn a_line_over_the_limit_is_refused_before_its_end() {
        let mut parser = Parser::new(8);
        assert_eq!(parser.feed(b"data: 12345678\n\n").unwrap().len(), 1);
        let error = parser.feed(&[b'x'; 64]).unwrap_err();
        assert!(matches!(error, ClientError::MessageTooLarge { limit: 8, what: "an SSE line" }), "{error}");
        assert!(parser.line.len() <= 8 + FIELD_ROOM);
    }

    #[test]
    fn an_event_whose_data_lines_together_pass_the_limit_is_refused() {
        let mut parser = Parser::new(8);
        assert!(parser.feed(b"data: 1234\ndata: 123\n").unwrap().is_empty());
        let error = parser.feed(b"data: 1\n").unwrap_err();
        assert!(matches!(error, ClientError::MessageTooLarge { limit: 8, what: "an SSE event" }), "{error}");
    }
}
