//! Transports: bytes in and out, framed into JSON-RPC messages for the engine.
//! (The in-memory transport lives in [`crate::testing`].)

pub(crate) mod stdio;
