//! Reading what a server sends without ever holding more than the client's maximum message
//! size ([`ClientBuilder::max_message_size`](super::ClientBuilder::max_message_size)): an HTTP
//! body and a stdio line. (SSE lines and events are bounded by their parser, `sse.rs`.)

use super::error::ClientError;
use tokio::io::{AsyncBufRead, AsyncBufReadExt as _};

/// The error for `what` passing `limit`.
pub(crate) fn too_large(limit: usize, what: &'static str) -> ClientError {
    ClientError::MessageTooLarge { limit, what }
}

/// The whole body of `response`, refused as soon as it passes `limit` bytes: at once when its
/// `Content-Length` says so, else at the chunk that crosses it (the rest is never read; dropping
/// the response closes its connection).
pub(crate) async fn body(mut response: reqwest::Response, limit: usize) -> Result<Vec<u8>, ClientError> {
    let what = "an HTTP body";
    if response.content_length().is_some_and(|length| length > limit as u64) {
        return Err(too_large(limit, what));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| ClientError::Transport(e.to_string()))? {
        if body.len() + chunk.len() > limit {
            return Err(too_large(limit, what));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The first `length` bytes of the body of `response` (an error page, for a message), or less.
pub(crate) async fn head(mut response: reqwest::Response, length: usize) -> Vec<u8> {
    let mut head = Vec::new();
    while head.len() < length
        && let Ok(Some(chunk)) = response.chunk().await
    {
        head.extend_from_slice(&chunk[..chunk.len().min(length - head.len())]);
    }
    head
}

/// Reads the next line, its `\n` included, into `line` (cleared first); an empty `line` at the
/// end of the input. A line whose content passes `limit` bytes is refused as soon as it does,
/// with at most one buffer of `reader` read past it.
pub(crate) async fn line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> Result<(), ClientError> {
    line.clear();
    loop {
        let available = reader
            .fill_buf()
            .await
            .map_err(|e| ClientError::Transport(format!("cannot read the server's stdout: {e}")))?;
        if available.is_empty() {
            return Ok(());
        }
        let (taken, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(newline) => (newline + 1, true),
            None => (available.len(), false),
        };
        let content = line.len() + taken - usize::from(ended);
        if content > limit {
            return Err(too_large(limit, "a stdio line"));
        }
        line.extend_from_slice(&available[..taken]);
        reader.consume(taken);
        if ended {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_up_to_the_limit_pass_and_longer_ones_are_refused_before_their_end() {
        let input: &[u8] = b"12345\n123456\n";
        let mut reader = tokio::io::BufReader::with_capacity(2, input);
        let mut read = Vec::new();
        line(&mut reader, &mut read, 5).await.unwrap();
        assert_eq!(read, b"12345\n");
        let error = line(&mut reader, &mut read, 5).await.unwrap_err();
        assert!(matches!(error, ClientError::MessageTooLarge { limit: 5, what: "a stdio line" }), "{error}");
        assert!(read.len() <= 5, "kept {} bytes of a refused line", read.len());
    }

    #[tokio::test]
    async fn the_last_line_may_lack_its_newline() {
        let mut reader = tokio::io::BufReader::new(&b"{}"[..]);
        let mut read = Vec::new();
        line(&mut reader, &mut read, 5).await.unwrap();
        assert_eq!(read, b"{}");
        line(&mut reader, &mut read, 5).await.unwrap();
        assert!(read.is_empty());
    }
}
