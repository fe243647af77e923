//! The procedural macros of `mcp-runtime`. Use them through `mcp_runtime` (which re-exports
//! them); the generated code refers to `::mcp_runtime`.
//!
//! Each macro parses (`ast`), reads its options (`attr`), checks (`valid`, collecting every
//! error with its span), then generates code (`expand`).

mod diagnostics;
mod docs;
mod main_fn;
mod tool;
mod tools_list;

use proc_macro::TokenStream;

/// Turns a plain function into an MCP tool. See `mcp_runtime` for the options.
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

/// `tools![a, b, path::c]`: the tools of a server, duplicates rejected at compile time.
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tools_list::expand(input.into()).into()
}

/// Runs `async fn main` on a multi-threaded tokio runtime.
#[proc_macro_attribute]
pub fn main(attr: TokenStream, item: TokenStream) -> TokenStream {
    main_fn::expand(attr.into(), item.into()).into()
}
