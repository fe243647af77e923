//! `#[mcp_runtime::main]`: `async fn main` on the runtime's tokio, without a tokio dependency.

use crate::diagnostics::{Errors, with_item};
use crate::handler::options::{crate_option, crate_path, integer, parse_options, string};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Item, ItemFn, LitInt, LitStr};

const OPTIONS: &str = "`#[mcp_runtime::main]` takes `flavor = \"current_thread\"` (a runtime on the main thread \
     alone), `worker_threads = N` (the multi-threaded runtime's workers; one per CPU by default) and \
     `crate = \"...\"` (the path the runtime is known by)";

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let (mut krate, mut flavor, mut workers) = (None, None, None::<LitInt>);
    parse_options(attr, &mut errors, |meta, errors| {
        if meta.path.is_ident("crate") {
            return crate_option(&meta, errors, &mut krate);
        }
        if meta.path.is_ident("flavor") {
            return string(&meta, errors, &mut flavor, "flavor = \"current_thread\"");
        }
        if meta.path.is_ident("worker_threads") {
            return integer(&meta, errors, &mut workers, "worker_threads = 4");
        }
        Err(meta.error(OPTIONS))
    });
    let current_thread = match flavor.as_ref().map(LitStr::value).as_deref() {
        None | Some("multi_thread") => false,
        Some("current_thread") => true,
        Some(_) => {
            errors.error(
                &flavor,
                "`flavor` is \"current_thread\" (the main thread runs the runtime alone: the quickest start, \
                 for a server served over stdio, whose connection has a thread of its own) or \"multi_thread\" \
                 (the default, for HTTP)",
            );
            false
        }
    };
    if let Some(workers) = &workers {
        if current_thread {
            errors.error(workers, "a current-thread runtime has no worker threads: remove `worker_threads`");
        } else if workers.base10_parse::<usize>().is_ok_and(|n| n == 0) {
            errors.error(workers, "`worker_threads` is at least 1");
        }
    }
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
    let ItemFn { attrs, vis, mut sig, block, .. } = function;
    sig.asyncness = None;
    // Once the function returns, work still running on the runtime (a handler blocking a worker
    // or a blocking-pool thread) gets `SHUTDOWN_TIMEOUT`, not forever, so it cannot keep the
    // process alive after the server has stopped.
    let builder = match (current_thread, workers) {
        (true, _) => quote!(new_current_thread()),
        (false, None) => quote!(new_multi_thread()),
        (false, Some(workers)) => quote!(new_multi_thread().worker_threads(#workers)),
    };
    let expanded = quote! {
        #(#attrs)*
        #vis #sig {
            let __mcp_runtime = #krate::__private::tokio::runtime::Builder::#builder
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
