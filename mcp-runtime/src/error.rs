//! The error a server returns when it cannot start or keep serving.

use std::fmt;

/// Why a server stopped with an error (the transport failed, an address could not be bound...).
///
/// [`kind`](Error::kind) says what failed, for a caller that reacts differently to each; the
/// `Display` text says it in words, and the underlying cause (an [`std::io::Error`], a TLS or
/// key-parsing error) is its [`source`](std::error::Error::source), not repeated in the text.
///
/// ```
/// use mcp_runtime::{Error, ErrorKind};
///
/// let error = Error::from(std::io::Error::other("pipe closed"));
/// assert_eq!(error.kind(), ErrorKind::Io);
/// assert_eq!(error.to_string(), "I/O error");
/// let source = std::error::Error::source(&error).expect("the I/O error is the source");
/// assert_eq!(source.to_string(), "pipe closed");
/// ```
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// What an [`Error`] is about. More kinds may be added: match with a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing the transport failed (stdin, stdout, a socket).
    Io,
    /// The HTTP address could not be bound (in use, not permitted, not an address).
    Bind,
    /// The server's own configuration was refused: a setting out of range, two tools with one
    /// name, a resource URI template that does not parse.
    Config,
    /// The TLS certificate or key could not be read or do not fit (feature `tls`).
    Tls,
    /// The authorization settings were refused (a key that cannot be read, an `AuthConfig`
    /// without a canonical resource URI, a plain-http URL), or the authorization server could not
    /// be reached or refused a request (fetching keys, exchanging a token) (feature `auth`).
    Auth,
    /// A [`ServerHandle`](crate::ServerHandle) was used while its server was not running.
    NotRunning,
    /// Anything else, including every error made with [`Error::msg`].
    Other,
}

/// `Result<T, mcp_runtime::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with a message and no underlying cause, of kind [`ErrorKind::Other`].
    pub fn msg(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Other, message)
    }

    /// An error of `kind` with a message and no underlying cause.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), source: None }
    }

    /// The same error, caused by `source`.
    pub(crate) fn with_source(mut self, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// What the error is about.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The message and its causes, as `main` prints an error it returns (`Error: ...`); the fields
/// with `{:#?}`.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            return f
                .debug_struct("Error")
                .field("kind", &self.kind)
                .field("message", &self.message)
                .field("source", &self.source)
                .finish();
        }
        f.write_str(&self.message)?;
        let mut cause = std::error::Error::source(self);
        while let Some(inner) = cause {
            write!(f, "\n\nCaused by: {inner}")?;
            cause = inner.source();
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as _)
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Self::new(ErrorKind::Io, "I/O error").with_source(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_message_is_of_kind_other_and_has_no_source() {
        let error = Error::msg("PORT=x is not a port number");
        assert_eq!(error.kind(), ErrorKind::Other);
        assert_eq!(error.to_string(), "PORT=x is not a port number");
        assert!(error.source().is_none());
    }

    #[test]
    fn io_errors_keep_their_cause_as_the_source() {
        let error = Error::from(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe closed"));
        assert_eq!(error.kind(), ErrorKind::Io);
        let source = error.source().and_then(|s| s.downcast_ref::<std::io::Error>()).expect("an io::Error");
        assert_eq!(source.kind(), std::io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn debug_is_what_main_prints_the_message_and_its_causes() {
        // `fn main() -> Result<(), Error>` prints `Error: {:?}`: a person reads it (issue 38).
        let error = Error::new(ErrorKind::Config, "no State<Db> was registered: call .state(db) on the server")
            .with_source(std::io::Error::other("the cause"));
        assert_eq!(
            format!("{error:?}"),
            "no State<Db> was registered: call .state(db) on the server\n\nCaused by: the cause"
        );
        assert!(format!("{error:#?}").contains("kind: Config"));
    }

    #[test]
    fn display_does_not_repeat_the_source() {
        let error = Error::new(ErrorKind::Bind, "cannot bind the HTTP address")
            .with_source(std::io::Error::new(std::io::ErrorKind::AddrInUse, "address in use"));
        assert_eq!(error.kind(), ErrorKind::Bind);
        assert_eq!(error.to_string(), "cannot bind the HTTP address");
        assert_eq!(error.source().map(ToString::to_string).as_deref(), Some("address in use"));
    }
}
