//! `#[mcp_runtime::main]`: `async fn main` on the runtime's tokio, without a tokio dependency.

use crate::diagnostics::{Errors, with_item};
use crate::handler::options::{crate_option, crate_path, parse_options};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Item, ItemFn};

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let mut krate = None;
    parse_options(attr, &mut errors, |meta, errors| {
        if meta.path.is_ident("crate") {
            return crate_option(&meta, errors, &mut krate);
        }
        Err(meta.error(
            "`#[mcp_runtime::main]` takes one option, `crate = \"...\"` (the path the runtime is known by): it \
             always runs a multi-threaded tokio runtime (for another one, build it with `tokio::runtime::Builder` \
             in a plain `fn main`)",
        ))
    });
    let krate = crate_path(krate.as_ref());
    let function = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(function)) => function,
        parsed => {
            let head = parsed.ok().and_then(|item| item_head(&item)).unwrap_or_else(|| item.clone());
            errors.error(
                head,
                "`#[mcp_runtime::main]` goes on a function: `#[mcp_runtime::main] async fn main() { ... }`",
            );
            return with_errors(errors, item);
        }
    };
    check(&function, &mut errors);
    // Expanded even when wrong, so the body's `.await`s do not add errors of their own.
    let ItemFn { attrs, vis, mut sig, block } = function;
    sig.asyncness = None;
    // Once the function returns, work still running on the runtime (a handler blocking a worker
    // or a blocking-pool thread) gets `SHUTDOWN_TIMEOUT`, not forever, so it cannot keep the
    // process alive after the server has stopped.
    let expanded = quote! {
        #(#attrs)*
        #vis #sig {
            let __mcp_runtime = #krate::__private::tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("failed to start the tokio runtime");
            let __mcp_output = __mcp_runtime.block_on(async move #block);
            __mcp_runtime.shutdown_timeout(#krate::__private::SHUTDOWN_TIMEOUT);
            __mcp_output
        }
    };
    with_errors(errors, expanded)
}

/// The errors, if any, then `item`.
fn with_errors(errors: Errors, item: TokenStream) -> TokenStream {
    match errors.finish() {
        Ok(()) => item,
        Err(error) => with_item(error, item),
    }
}

/// What the attribute needs of the function: `async`, and nothing to pass it.
fn check(function: &ItemFn, errors: &mut Errors) {
    let sig = &function.sig;
    if sig.asyncness.is_none() {
        errors.error(
            sig.fn_token,
            format!(
                "`#[mcp_runtime::main]` runs an `async fn`: write `async fn {}()` (a plain `fn main` needs no attribute)",
                sig.ident
            ),
        );
    }
    if !sig.inputs.is_empty() {
        errors.error(
            &sig.inputs,
            "`#[mcp_runtime::main]` calls the function with no arguments: remove the parameters (read the \
             command line with `std::env::args()`)",
        );
    }
    if !sig.generics.params.is_empty() {
        errors.error(&sig.generics, "`#[mcp_runtime::main]` cannot run a generic function: remove the generics");
    }
}

/// The item's keyword and name (`struct Config`), where an error about the item belongs.
fn item_head(item: &Item) -> Option<TokenStream> {
    let head = |keyword: &dyn ToTokens, name: &dyn ToTokens| {
        let mut tokens = keyword.to_token_stream();
        name.to_tokens(&mut tokens);
        tokens
    };
    Some(match item {
        Item::Struct(i) => head(&i.struct_token, &i.ident),
        Item::Enum(i) => head(&i.enum_token, &i.ident),
        Item::Mod(i) => head(&i.mod_token, &i.ident),
        Item::Const(i) => head(&i.const_token, &i.ident),
        Item::Static(i) => head(&i.static_token, &i.ident),
        Item::Trait(i) => head(&i.trait_token, &i.ident),
        Item::Impl(i) => head(&i.impl_token, &i.self_ty),
        _ => return None,
    })
}
