//! The error a server returns when it cannot start or keep serving.

use std::fmt;

/// Why a server stopped with an error (the transport failed, an address could not be bound...).
#[derive(Debug)]
pub struct Error {
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// `Result<T, mcp_runtime::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with a message and no underlying cause.
    pub fn msg(message: impl Into<String>) -> Self {
        Self { message: message.into(), source: None }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(source) => write!(f, "{}: {source}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as _)
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Self { message: "I/O error".into(), source: Some(Box::new(err)) }
    }
}
