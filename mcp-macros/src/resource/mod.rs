//! `#[mcp_resource(uri = "...")]`: parse, check, expand.

mod attr;
mod expand;
mod valid;

/// The URI-template grammar the runtime matches with (`mcp-runtime-uri-template`).
use mcp_runtime_uri_template as template_syntax;

use crate::diagnostics::{Errors, with_item};
use crate::handler::{self, HandlerFn, Kind, Role};
use proc_macro2::TokenStream;
use quote::ToTokens;

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function = match handler::parse_function(&item, Kind::Resource) {
        Ok(function) => function,
        Err(error) => return with_item(error, item),
    };
    let mut errors = Errors::default();
    let (options, all_read) = attr::ResourceOptions::parse(attr, &mut errors);
    let mut resource = HandlerFn::parse(function, &mut errors);
    resource.krate = crate::handler::options::crate_path(options.common.krate.as_ref());
    handler::valid::check(&resource, Kind::Resource, &mut errors);
    handler::valid::check_common(&options.common, &mut errors);
    // Unreadable options hide the ones after them: say nothing of a missing `uri` then.
    let missing_uri_at = all_read.then(proc_macro2::Span::call_site);
    valid::check(&resource, &options, missing_uri_at, &mut errors);
    match (errors.finish(), &options.uri) {
        (Ok(()), Some(uri)) => {
            bind_template_variables(&mut resource, uri);
            expand::resource(&resource, &options, uri)
        }
        (Err(error), _) => with_item(error, resource.item.into_token_stream()),
        (Ok(()), None) => unreachable!("valid::check reports a missing uri"),
    }
}

/// A parameter named after a variable of the URI template is that variable, an argument; the
/// others stay `ByType`, injected (the compiler refuses a type that is not `FromContext`).
fn bind_template_variables(resource: &mut HandlerFn, uri: &syn::LitStr) {
    let Ok(parts) = template_syntax::parse(&uri.value()) else { return };
    let variables: Vec<&str> = template_syntax::variables(&parts).collect();
    for param in resource.params.iter_mut().filter(|p| p.role == Role::ByType) {
        if variables.contains(&param.wire_name().as_str()) {
            param.role = Role::Argument;
        }
    }
}
