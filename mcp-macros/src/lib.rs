//! The procedural macros of `mcp-runtime`. Use them through `mcp_runtime` (which re-exports
//! them); the generated code refers to `::mcp_runtime`.
//!
//! Each macro parses (`ast`), reads its options (`attr`), checks (`valid`, collecting every
//! error with its span), then generates code (`expand`).
#![forbid(unsafe_code)]

mod diagnostics;
mod docs;
mod handler;
mod lists;
mod main_fn;
mod prompt;
mod resource;
mod tool;

use proc_macro::TokenStream;

/// Turns a plain function into an MCP tool. See `mcp_runtime` for the options.
#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

/// Turns a plain function into an MCP resource or resource template.
#[proc_macro_attribute]
pub fn mcp_resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    resource::expand(attr.into(), item.into()).into()
}

/// Turns a plain function into an MCP prompt.
#[proc_macro_attribute]
pub fn mcp_prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    prompt::expand(attr.into(), item.into()).into()
}

/// `tools![a, b, path::c]`: the tools of a server, duplicates rejected at compile time.
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    lists::expand(input.into(), &lists::TOOLS).into()
}

/// `resources![a, b]`: the resources of a server, duplicate URIs rejected at compile time.
#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    lists::expand(input.into(), &lists::RESOURCES).into()
}

/// `prompts![a, b]`: the prompts of a server, duplicate names rejected at compile time.
#[proc_macro]
pub fn prompts(input: TokenStream) -> TokenStream {
    lists::expand(input.into(), &lists::PROMPTS).into()
}

/// Runs `async fn main` on a multi-threaded tokio runtime.
#[proc_macro_attribute]
pub fn main(attr: TokenStream, item: TokenStream) -> TokenStream {
    main_fn::expand(attr.into(), item.into()).into()
}
