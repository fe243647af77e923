//! How the user reaches the authorization page, and how its redirect comes back: the
//! [`UserAgent`] trait, and [`Loopback`], the browser and a listener on 127.0.0.1 (RFC 8252 §7.3).

use super::super::error::ClientError;
use super::fetch::auth_error;
use futures_util::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

/// Sends the user to an authorization page and returns where the authorization server sent
/// them back: the redirect URI with its query (`code`, `state`, `iss`, or `error`). The client
/// checks everything in it.
pub trait UserAgent: Send + Sync {
    /// The redirect URI to register and to ask for.
    fn redirect_uri(&self) -> String;

    /// Shows `authorization_url` to the user and waits for the redirect back.
    fn authorize<'a>(&'a self, authorization_url: &'a str) -> BoxFuture<'a, Result<String, ClientError>>;
}

type ShowUrl = Arc<dyn Fn(&str) + Send + Sync>;

/// The user agent of a desktop app or a CLI: opens the authorization page in the user's browser
/// (and prints its URL on stderr, in case none opens), and receives the redirect on a listener
/// bound to a free port of 127.0.0.1, at `http://127.0.0.1:<port>/callback`. The listener reads
/// one request line and headers of at most 8 KiB per connection, answers anything but a `GET` of
/// the callback with 404, and waits 5 minutes at most (see [`timeout`](Self::timeout)).
pub struct Loopback {
    listener: tokio::sync::Mutex<TcpListener>,
    port: u16,
    show: ShowUrl,
    timeout: Duration,
}

/// The callback's path on the loopback listener.
const CALLBACK: &str = "/callback";
/// The most of a request the listener reads.
const MAX_REQUEST: usize = 8 * 1024;
/// What the browser shows once the redirect arrived: nothing of the request is echoed.
const DONE_PAGE: &str = "<!doctype html><html><head><title>Signed in</title></head>\
    <body><p>You can close this window and return to the application.</p></body></html>";

impl Loopback {
    /// Binds a free port on 127.0.0.1.
    pub async fn bind() -> Result<Self, ClientError> {
        Self::bind_port(0).await
    }

    /// Binds `port` on 127.0.0.1 (0: a free one), for an authorization server that only
    /// accepts the exact redirect URI registered.
    pub async fn bind_port(port: u16) -> Result<Self, ClientError> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| auth_error(format!("cannot listen on 127.0.0.1:{port} for the sign-in redirect: {e}")))?;
        let port = listener.local_addr().map_err(|e| auth_error(e.to_string()))?.port();
        Ok(Self {
            listener: tokio::sync::Mutex::new(listener),
            port,
            show: Arc::new(open_browser),
            timeout: Duration::from_secs(300),
        })
    }

    /// Only prints the authorization URL on stderr (no browser is opened): for a machine without
    /// one, where the user opens the URL elsewhere... on the same machine, as the redirect comes
    /// back to its loopback address.
    pub fn no_browser(mut self) -> Self {
        self.show = Arc::new(|url| eprintln!("Open this URL in a browser to sign in:\n\n    {url}\n"));
        self
    }

    /// Shows the authorization URL with `show` instead (a GUI's own window, a test's browser).
    pub fn on_url(mut self, show: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.show = Arc::new(show);
        self
    }

    /// How long to wait for the user (default 5 minutes).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Accepts connections until one brings the callback; returns its path and query.
    async fn receive(&self) -> Result<String, ClientError> {
        let listener = self.listener.lock().await;
        loop {
            let (mut stream, _) = listener.accept().await.map_err(|e| auth_error(e.to_string()))?;
            let target = match tokio::time::timeout(Duration::from_secs(10), request_target(&mut stream)).await {
                Ok(Some(target)) => target,
                _ => continue,
            };
            if target.split('?').next() != Some(CALLBACK) {
                let _ =
                    stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
                continue;
            }
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\
                 cache-control: no-store\r\nconnection: close\r\n\r\n{DONE_PAGE}",
                DONE_PAGE.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
            return Ok(target);
        }
    }
}

impl UserAgent for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK}", self.port)
    }

    fn authorize<'a>(&'a self, authorization_url: &'a str) -> BoxFuture<'a, Result<String, ClientError>> {
        Box::pin(async move {
            (self.show)(authorization_url);
            let target = tokio::time::timeout(self.timeout, self.receive())
                .await
                .map_err(|_| auth_error(format!("no sign-in within {:?}", self.timeout)))??;
            Ok(format!("http://127.0.0.1:{}{target}", self.port))
        })
    }
}

/// The target of a `GET` request (`/callback?code=...`), read within [`MAX_REQUEST`] bytes.
async fn request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 || head.len() + read > MAX_REQUEST {
            return None;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let line = std::str::from_utf8(&head[..head.iter().position(|&b| b == b'\r')?]).ok()?;
    let mut parts = line.split(' ');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("GET"), Some(target), Some(version), None) if target.starts_with('/') && version.starts_with("HTTP/") => {
            Some(target.to_owned())
        }
        _ => None,
    }
}

/// Opens `url` in the user's browser, and prints it on stderr too (in case none opens).
fn open_browser(url: &str) {
    eprintln!("Opening the browser to sign in. If it does not open, visit:\n\n    {url}\n");
    if let Err(e) = open::that_detached(url) {
        tracing::warn!("mcp client: could not open a browser: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn send(port: u16, request: &[u8]) -> String {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        stream.write_all(request).await.unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer).await;
        answer
    }

    #[tokio::test]
    async fn the_listener_answers_only_the_callback_and_returns_its_query() {
        let agent = Loopback::bind().await.unwrap().on_url(|_| {});
        let port = agent.port;
        let browser = tokio::spawn(async move {
            let other = send(port, b"GET /favicon.ico HTTP/1.1\r\nhost: x\r\n\r\n").await;
            assert!(other.starts_with("HTTP/1.1 404"), "{other}");
            let post = send(port, b"POST /callback?code=x HTTP/1.1\r\n\r\n").await;
            assert!(post.is_empty(), "{post}");
            let huge = [b"GET /callback?".as_slice(), &[b'a'; 9000]].concat();
            assert!(send(port, &huge).await.is_empty());
            let done = send(port, b"GET /callback?code=abc&state=s HTTP/1.1\r\nhost: x\r\n\r\n").await;
            assert!(done.starts_with("HTTP/1.1 200") && !done.contains("abc"), "{done}");
        });
        let reached = agent.authorize("https://as.example/authorize").await.unwrap();
        assert_eq!(reached, format!("http://127.0.0.1:{port}/callback?code=abc&state=s"));
        assert_eq!(agent.redirect_uri(), format!("http://127.0.0.1:{port}/callback"));
        browser.await.unwrap();
    }
}
