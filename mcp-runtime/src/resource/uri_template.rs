//! URI templates of resources. The grammar and the matcher live in `mcp-runtime-uri-template`,
//! which the macros use too: one parser checks templates at compile time and matches them at run
//! time. What stays here is the runtime's own policy on bound values.

pub(crate) use mcp_runtime_uri_template::{Bindings, UriTemplate, percent_decode as decode};

/// Whether a bound value would climb out of its place in a path (`..` as a segment).
pub(crate) fn has_dot_segment(value: &str) -> bool {
    value.split(['/', '\\']).any(|segment| segment == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_segments_are_detected() {
        assert!(has_dot_segment("../etc/passwd"));
        assert!(has_dot_segment("a/../../b"));
        assert!(!has_dot_segment("a..b/c"));
    }
}
