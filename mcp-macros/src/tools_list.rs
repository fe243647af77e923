//! `tools![a, b, path::c]`: a `ToolSet` in the listed order. Two tools with the same wire name
//! (even through `name = "..."`) fail to compile, with the error on the second one.

use crate::diagnostics::Errors;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, Token};

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let paths = match Punctuated::<Path, Token![,]>::parse_terminated.parse2(input) {
        Ok(paths) => paths,
        Err(err) => {
            let message = format!("{err}; list tool functions separated by commas: `tools![add, math::divide]`");
            return syn::Error::new(err.span(), message).to_compile_error();
        }
    };
    let paths: Vec<&Path> = paths.iter().collect();
    let written: Vec<String> = paths.iter().map(|path| written(path)).collect();

    // The same path twice is caught here, with a precise message; the wire names (which the
    // macro cannot see: they come from each tool's `#[mcp_tool(name = "...")]`) in `const`s.
    let mut errors = Errors::default();
    for (index, path) in paths.iter().enumerate() {
        if written[..index].contains(&written[index]) {
            errors.error(path, format!("`{}` is listed twice in `tools![...]`: remove one", written[index]));
        }
    }

    let names: Vec<TokenStream> = paths
        .iter()
        .map(|path| quote_spanned!(path.span()=> <#path as ::mcp_runtime::__private::ToolDef>::NAME))
        .collect();
    let checks = paths.iter().enumerate().skip(1).filter(|(index, _)| !written[..*index].contains(&written[*index])).map(
        |(index, path)| {
            let name = &names[index];
            let against = (0..index).map(|earlier| {
                let message = format!(
                    "duplicate tool name: `{}` has the same name as `{}` listed before it in `tools![...]`; give one of them a different `#[mcp_tool(name = \"...\")]`",
                    written[index], written[earlier],
                );
                let earlier_name = &names[earlier];
                quote_spanned! {path.span()=>
                    if ::mcp_runtime::__private::str_eq(#name, #earlier_name) {
                        ::core::panic!(#message)
                    }
                }
            });
            quote_spanned!(path.span()=> const _: () = { #(#against)* };)
        },
    );
    let descriptors = paths
        .iter()
        .map(|path| quote_spanned!(path.span()=> <#path as ::mcp_runtime::__private::ToolDef>::descriptor()));
    let errors = errors.finish().err().map(|error| error.to_compile_error());
    quote! {{
        #errors
        #(#checks)*
        ::mcp_runtime::ToolSet::from_descriptors(::std::vec![#(#descriptors),*])
    }}
}

/// The path as written, without the spaces tokens print with: `math::divide`.
fn written(path: &Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}
