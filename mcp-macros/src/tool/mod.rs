//! `#[mcp_tool]`: parse, check, expand.

mod attr;
mod expand;
mod headers;
mod valid;

use crate::diagnostics::{Errors, with_item};
use crate::handler::{self, HandlerFn, Kind};
use proc_macro2::TokenStream;
use quote::ToTokens;

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function = match handler::parse_function(&item, Kind::Tool) {
        Ok(function) => function,
        Err(error) => return with_item(error, item),
    };
    let mut errors = Errors::default();
    let options = attr::ToolOptions::parse(attr, &mut errors);
    let mut tool = HandlerFn::parse(function, &mut errors);
    tool.krate = crate::handler::options::crate_path(options.common.krate.as_ref());
    handler::valid::check(&tool, Kind::Tool, &mut errors);
    handler::valid::check_common(&options.common, &mut errors);
    valid::check(&tool, &options, &mut errors);
    match errors.finish() {
        Ok(()) => expand::tool(&tool, &options),
        Err(error) => with_item(error, tool.item.into_token_stream()),
    }
}
