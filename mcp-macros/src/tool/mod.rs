//! `#[mcp_tool]`: parse, check, expand.

mod ast;
mod attr;
mod expand;
mod valid;

use crate::diagnostics::{Errors, with_item};
use proc_macro2::TokenStream;
use quote::ToTokens;

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(_) => {
            let error = syn::Error::new_spanned(
                &item,
                "`#[mcp_tool]` goes on a function: `#[mcp_tool] fn name(arg: Type) -> Output { ... }`",
            );
            return with_item(error, item);
        }
    };
    let mut errors = Errors::default();
    let options = attr::ToolOptions::parse(attr).unwrap_or_else(|err| {
        errors.push(err);
        attr::ToolOptions::default()
    });
    let tool = ast::ToolFn::parse(function, &mut errors);
    valid::check(&tool, &options, &mut errors);
    match errors.finish() {
        Ok(()) => expand::tool(&tool, &options),
        Err(error) => with_item(error, tool.item.into_token_stream()),
    }
}
