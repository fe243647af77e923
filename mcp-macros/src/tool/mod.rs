//! `#[mcp_tool]`: parse, check, expand.

mod ast;
mod attr;
mod expand;
mod valid;

use crate::diagnostics::{Errors, with_item};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::Item;

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(_) => return with_item(not_a_function(&item), item),
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

/// The error for `#[mcp_tool]` on something else, on the item's keyword and name rather than on
/// its whole body.
fn not_a_function(item: &TokenStream) -> syn::Error {
    let (what, head_tokens) = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Struct(i)) => ("a struct", head(&i.struct_token, &i.ident)),
        Ok(Item::Enum(i)) => ("an enum", head(&i.enum_token, &i.ident)),
        Ok(Item::Union(i)) => ("a union", head(&i.union_token, &i.ident)),
        Ok(Item::Trait(i)) => ("a trait", head(&i.trait_token, &i.ident)),
        Ok(Item::Impl(i)) => ("an `impl` block", head(&i.impl_token, &i.self_ty)),
        Ok(Item::Mod(i)) => ("a module", head(&i.mod_token, &i.ident)),
        Ok(Item::Const(i)) => ("a constant", head(&i.const_token, &i.ident)),
        Ok(Item::Static(i)) => ("a static", head(&i.static_token, &i.ident)),
        Ok(Item::Type(i)) => ("a type alias", head(&i.type_token, &i.ident)),
        _ => ("this item", item.clone()),
    };
    syn::Error::new_spanned(
        head_tokens,
        format!(
            "`#[mcp_tool]` goes on a function, not on {what}: `#[mcp_tool] fn name(arg: Type) -> Output {{ ... }}`"
        ),
    )
}

fn head(keyword: &impl ToTokens, name: &impl ToTokens) -> TokenStream {
    quote!(#keyword #name)
}
