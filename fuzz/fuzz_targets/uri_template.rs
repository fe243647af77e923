//! RFC 6570 template parsing and matching: a template and a URI from the input (split at the
//! first NUL byte, else in the middle).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (template, uri) = match text.split_once('\0') {
        Some(pair) => pair,
        None => text.split_at(text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i)),
    };
    mcp_runtime::__fuzz::uri_template(template, uri);
});
