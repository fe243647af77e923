//! `#[mcp_prompt]`: parse, check, expand.

mod attr;
mod expand;
mod valid;

use crate::diagnostics::{Errors, with_item};
use crate::handler::{self, HandlerFn, Kind};
use proc_macro2::TokenStream;
use quote::ToTokens;

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function = match handler::parse_function(&item, Kind::Prompt) {
        Ok(function) => function,
        Err(error) => return with_item(error, item),
    };
    let mut errors = Errors::default();
    let options = attr::PromptOptions::parse(attr, &mut errors);
    let mut prompt = HandlerFn::parse(function, &mut errors);
    prompt.krate = crate::handler::options::crate_path(options.common.krate.as_ref());
    handler::valid::check(&prompt, Kind::Prompt, &mut errors);
    handler::valid::check_common(&options.common, &mut errors);
    valid::check(&prompt, &options, &mut errors);
    match errors.finish() {
        Ok(()) => expand::prompt(&prompt, &options),
        Err(error) => with_item(error, prompt.item.into_token_stream()),
    }
}
