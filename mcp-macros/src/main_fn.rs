//! `#[mcp_runtime::main]`: `async fn main` on the runtime's tokio, without a tokio dependency.

use crate::diagnostics::with_item;
use proc_macro2::TokenStream;
use quote::quote;

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let error = syn::Error::new_spanned(&attr, "`#[mcp_runtime::main]` takes no options");
        return with_item(error, item);
    }
    let function = match syn::parse2::<syn::ItemFn>(item.clone()) {
        Ok(function) if function.sig.asyncness.is_some() => function,
        _ => {
            let error = syn::Error::new_spanned(&item, "`#[mcp_runtime::main]` goes on `async fn main()`");
            return with_item(error, item);
        }
    };
    let syn::ItemFn { attrs, vis, mut sig, block } = function;
    sig.asyncness = None;
    quote! {
        #(#attrs)*
        #vis #sig {
            ::mcp_runtime::__private::tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .expect("failed to start the tokio runtime")
                .block_on(async move #block)
        }
    }
}
