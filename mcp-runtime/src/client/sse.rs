//! Server-sent events, as Streamable HTTP uses them: `id`, `data` (one JSON-RPC message),
//! `retry`; comments and `event` names are read past.

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
#[derive(Default)]
pub(crate) struct Parser {
    line: Vec<u8>,
    event: Event,
    has_data: bool,
    /// Set when the last chunk ended in `\r`: a `\n` first in the next one ends nothing.
    after_cr: bool,
}

impl Parser {
    /// Feeds a chunk; returns the events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        for &byte in chunk {
            let after_cr = std::mem::take(&mut self.after_cr);
            match byte {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(event) = self.line_done(&line) {
                        events.push(event);
                    }
                }
                _ => self.line.push(byte),
            }
        }
        events
    }

    fn line_done(&mut self, line: &[u8]) -> Option<Event> {
        if line.is_empty() {
            let event = std::mem::take(&mut self.event);
            let dispatch = std::mem::take(&mut self.has_data) || event.id.is_some() || event.retry.is_some();
            return dispatch.then_some(event);
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (&*line, ""),
        };
        match field {
            "data" => {
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
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_across_chunks_and_line_endings() {
        let mut parser = Parser::default();
        assert!(parser.feed(b"id: 0-1\r\nretry: 500\r").is_empty());
        let events = parser.feed(b"\n\r\n: comment\nevent: message\nid: 0-2\ndata: {\"a\":\ndata: 1}\n\n");
        assert_eq!(
            events,
            vec![
                Event { id: Some("0-1".into()), data: String::new(), retry: Some(500) },
                Event { id: Some("0-2".into()), data: "{\"a\":\n1}".into(), retry: None },
            ]
        );
    }
}
