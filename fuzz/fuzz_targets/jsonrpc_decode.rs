//! The JSON-RPC decoder on arbitrary bytes: never panics, and the answer it leads to is JSON
//! carrying the message's id.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    mcp_runtime::__fuzz::decode_jsonrpc(data);
});
