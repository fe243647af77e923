//! RFC 6570 URI templates as MCP resource templates use them: parsing (`{var}`, `{+var}`,
//! `{#var}`, `{.var}`, `{/var}`, `{;var}`, `{?a,b}`, `{&a}`; the `*` and `:n` modifiers are
//! refused), matching a concrete URI back to the variables it binds, and expanding a template
//! with values ([`UriTemplate::expand`]).
//!
//! This is the one URI-template grammar of [`mcp-runtime`](https://docs.rs/mcp-runtime): its
//! macros check `#[mcp_resource(uri = "...")]` against the function's parameters at compile time
//! with [`parse`], and its runtime matches `resources/read` URIs with [`UriTemplate::matches`].
//! A separate crate so that both can depend on it (as `rocket_http` serves Rocket's codegen and
//! runtime). Servers use `mcp-runtime`, not this crate.
//!
//! ```
//! use mcp_runtime_uri_template::UriTemplate;
//!
//! let template = UriTemplate::parse("file:///{+path}{?lines}").unwrap();
//! assert_eq!(template.variables().collect::<Vec<_>>(), ["path", "lines"]);
//!
//! let bindings = template.matches("file:///src/main%20file.rs?lines=10").unwrap();
//! assert_eq!(bindings["path"], "src/main file.rs");
//! assert_eq!(bindings["lines"], "10");
//! assert!(template.matches("http://example.com/").is_none());
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod expansion;
mod matching;
mod syntax;

pub use matching::{Bindings, UriTemplate, percent_decode};
pub use syntax::{Operator, ParseError, Part, parse, variables};
