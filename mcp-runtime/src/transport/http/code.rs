//! JSON-RPC codes of the transport's own errors (as the reference servers use them), in a file
//! of their own so that the modules using them need not reach up into `mod.rs`.

pub const BAD_REQUEST: i32 = -32000;
pub const SESSION_NOT_FOUND: i32 = -32001;
