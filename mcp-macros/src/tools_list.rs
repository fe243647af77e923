//! `tools![a, b, path::c]`: a `ToolSet` in the listed order. Two tools with the same wire name
//! (even through `name = "..."`) fail to compile, with the error on the second one.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
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
    let names =
        paths.iter().map(|path| quote_spanned!(path.span()=> <#path as ::mcp_runtime::__private::ToolDef>::NAME));
    let checks = paths.iter().enumerate().skip(1).map(|(index, path)| {
        quote_spanned! {path.span()=>
            const _: () = if DUPLICATE == #index {
                ::core::panic!("duplicate tool name: this tool has the same name as an earlier one in `tools![...]`; give one a different `#[mcp_tool(name = \"...\")]`")
            };
        }
    });
    let descriptors = paths
        .iter()
        .map(|path| quote_spanned!(path.span()=> <#path as ::mcp_runtime::__private::ToolDef>::descriptor()));
    quote! {{
        const _: () = {
            const DUPLICATE: usize = ::mcp_runtime::__private::first_duplicate(&[#(#names),*]);
            #(#checks)*
        };
        ::mcp_runtime::ToolSet::from_descriptors(::std::vec![#(#descriptors),*])
    }}
}
