//! The procedural macros of `mcp-runtime`. Use them through `mcp_runtime`, which re-exports
//! them and documents each one with all its options; the generated code refers to
//! `::mcp_runtime`, or to the path of a `crate = "..."` option.
//!
//! Each macro parses (`ast`), reads its options (`attr`), checks (`valid`, collecting every
//! error with its span), then generates code (`expand`).
#![forbid(unsafe_code)]

mod diagnostics;
mod docs;
mod handler;
mod lists;
mod main_fn;
mod manifest;
mod prompt;
mod resource;
mod stub;
mod surface_stubs;
mod tool;

use proc_macro::TokenStream;

// Each macro is documented on its re-export in `mcp-runtime/src/lib.rs` (the text is in
// `mcp-runtime/docs/`), where the examples run as doc tests against the runtime. A doc comment
// here would be appended to that text.

#[proc_macro_attribute]
pub fn mcp_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

#[proc_macro_attribute]
pub fn mcp_resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    resource::expand(attr.into(), item.into()).into()
}

#[proc_macro_attribute]
pub fn mcp_prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    prompt::expand(attr.into(), item.into()).into()
}

#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    lists::expand(input.into(), &lists::TOOLS).into()
}

#[proc_macro]
pub fn resources(input: TokenStream) -> TokenStream {
    lists::expand(input.into(), &lists::RESOURCES).into()
}

#[proc_macro]
pub fn prompts(input: TokenStream) -> TokenStream {
    lists::expand(input.into(), &lists::PROMPTS).into()
}

#[proc_macro]
pub fn client_stubs(input: TokenStream) -> TokenStream {
    surface_stubs::expand(input.into()).into()
}

#[proc_macro_attribute]
pub fn main(attr: TokenStream, item: TokenStream) -> TokenStream {
    main_fn::expand(attr.into(), item.into()).into()
}
