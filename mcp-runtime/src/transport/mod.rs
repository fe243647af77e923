//! Transports: bytes in and out, framed into JSON-RPC messages for the engine.
//! (The in-memory transport lives in [`crate::testing`].)

#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(feature = "lambda")]
pub(crate) mod lambda;
pub(crate) mod signal;
pub(crate) mod stdio;

use std::future::Future;
use std::pin::Pin;

/// A transport's serving future, boxed by the non-generic function that makes it. The body of
/// an `async fn` is compiled in every crate that polls it, so a server crate awaiting the
/// transport's futures unboxed compiled the whole transport again, at each rebuild after an
/// edit of a tool (bench/NOTES.md note 56); behind the box it is compiled once, here.
pub(crate) type Serving<'a> = Pin<Box<dyn Future<Output = crate::error::Result<()>> + Send + 'a>>;
