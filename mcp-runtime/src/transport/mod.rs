//! Transports: bytes in and out, framed into JSON-RPC messages for the engine.
//! (The in-memory transport lives in [`crate::testing`].)

#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(feature = "lambda")]
pub(crate) mod lambda;
pub(crate) mod signal;
pub(crate) mod stdio;
