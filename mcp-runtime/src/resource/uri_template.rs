//! URI templates of resources. The grammar and the matcher live in `mcp-runtime-uri-template`,
//! which the macros use too: one parser checks templates at compile time and matches them at run
//! time. What stays here is the runtime's own policy on bound values.

pub(crate) use mcp_runtime_uri_template::{Bindings, UriTemplate, percent_decode as decode};

/// What makes a bound (decoded) value unsafe to use as part of a path, if anything: it could
/// climb out of its place (a `..` segment), replace the path (absolute, `~` for a home folder,
/// a Windows drive `C:` or a UNC share `\\server\share`), or cut it short where the OS reads a C
/// string (a NUL byte).
pub(crate) fn path_escape(value: &str) -> Option<&'static str> {
    let bytes = value.as_bytes();
    if bytes.contains(&0) {
        Some("a NUL byte")
    } else if value.split(['/', '\\']).any(|segment| segment == "..") {
        Some("a `..` segment")
    } else if value.starts_with("\\\\") || value.starts_with("//") {
        Some("a UNC path")
    } else if value.starts_with(['/', '\\']) {
        Some("an absolute path")
    } else if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        Some("a Windows drive (`C:`)")
    } else if value.starts_with('~') {
        Some("a home folder (`~`)")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_that_leave_their_place_are_named() {
        assert_eq!(path_escape("../etc/passwd"), Some("a `..` segment"));
        assert_eq!(path_escape("a/../../b"), Some("a `..` segment"));
        assert_eq!(path_escape("a\\..\\b"), Some("a `..` segment"));
        assert_eq!(path_escape("/etc/passwd"), Some("an absolute path"));
        assert_eq!(path_escape("\\Windows"), Some("an absolute path"));
        assert_eq!(path_escape("C:\\Windows"), Some("a Windows drive (`C:`)"));
        assert_eq!(path_escape("x:y"), Some("a Windows drive (`C:`)"));
        assert_eq!(path_escape("\\\\server\\share"), Some("a UNC path"));
        assert_eq!(path_escape("//server/share"), Some("a UNC path"));
        assert_eq!(path_escape("~/.ssh/id_rsa"), Some("a home folder (`~`)"));
        assert_eq!(path_escape("~root"), Some("a home folder (`~`)"));
        assert_eq!(path_escape("notes.txt\0.png"), Some("a NUL byte"));
    }

    #[test]
    fn ordinary_values_pass() {
        for value in ["a..b/c", "docs/readme.md", "a~b", "ab:c", "", "é/ü"] {
            assert_eq!(path_escape(value), None, "{value}");
        }
    }
}
