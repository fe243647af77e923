//! `tools![a, b]`, `resources![a, b]`, `prompts![a, b]`: a set in the listed order. Two items
//! with the same key (a tool's or prompt's name, a resource's URI, even when set through the
//! attribute) fail to compile, with the error on the second one.

use crate::diagnostics::Errors;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Path, Token};

/// What one list macro collects.
pub(crate) struct List {
    /// `tools`, `resources`, `prompts`.
    pub macro_name: &'static str,
    /// `tool`, `resource`, `prompt`.
    pub noun: &'static str,
    /// The descriptor trait under `__private`, and its key constant.
    pub def_trait: &'static str,
    pub key: &'static str,
    /// What the key is, for messages: `name`, `URI`.
    pub key_noun: &'static str,
    /// The set type, under the runtime's path (`crate = "..."`, default `::mcp_runtime`).
    pub set: &'static str,
    /// The attribute option that changes the key.
    pub key_option: &'static str,
}

pub(crate) const TOOLS: List = List {
    macro_name: "tools",
    noun: "tool",
    def_trait: "ToolDef",
    key: "NAME",
    key_noun: "name",
    set: "ToolSet",
    key_option: "#[mcp_tool(name = \"...\")]",
};

pub(crate) const RESOURCES: List = List {
    macro_name: "resources",
    noun: "resource",
    def_trait: "ResourceDef",
    key: "URI",
    key_noun: "URI",
    set: "ResourceSet",
    key_option: "#[mcp_resource(uri = \"...\")]",
};

pub(crate) const PROMPTS: List = List {
    macro_name: "prompts",
    noun: "prompt",
    def_trait: "PromptDef",
    key: "NAME",
    key_noun: "name",
    set: "PromptSet",
    key_option: "#[mcp_prompt(name = \"...\")]",
};

pub(crate) fn expand(input: TokenStream, list: &List) -> TokenStream {
    let List { macro_name, noun, key_noun, key_option, .. } = list;
    let def_trait = syn::Ident::new(list.def_trait, proc_macro2::Span::call_site());
    let key = syn::Ident::new(list.key, proc_macro2::Span::call_site());
    let set = syn::Ident::new(list.set, proc_macro2::Span::call_site());
    let mut errors = Errors::default();
    let (krate, paths) = match parse_list.parse2(input) {
        Ok((krate, paths)) => (krate, paths),
        Err(err) => {
            let message =
                format!("{err}; list {noun} functions separated by commas: `{macro_name}![first, module::second]`");
            return syn::Error::new(err.span(), message).to_compile_error();
        }
    };
    if let Some(path) = krate.as_ref().filter(|path| path.parse::<Path>().is_err()) {
        errors.error(path, format!("`crate` is the path the runtime is known by here, e.g. `{macro_name}![crate = \"mcp_renamed\"; first, second]`"));
    }
    let krate = crate::handler::options::crate_path(krate.as_ref());
    let paths: Vec<&Path> = paths.iter().collect();
    let written: Vec<String> = paths.iter().map(|path| written(path)).collect();

    // The same path twice is caught here, with a precise message; the wire names (which the
    // macro cannot see: they come from each tool's `#[mcp_tool(name = "...")]`) in `const`s.
    for (index, path) in paths.iter().enumerate() {
        if written[..index].contains(&written[index]) {
            errors.error(path, format!("`{}` is listed twice in `{macro_name}![...]`: remove one", written[index]));
        }
    }

    // One array of the wire names, and per entry a check of its index against the entries
    // before it: tokens linear in the entries (a comparison per pair was quadratic), and an
    // error on the entry that repeats a name.
    let names = paths.iter().map(|path| quote_spanned!(path.span()=> <#path as #krate::__private::#def_trait>::#key));
    let count = paths.len();
    let checks = paths.iter().enumerate().skip(1).filter(|(index, _)| !written[..*index].contains(&written[*index])).map(
        |(index, path)| {
            let message = format!(
                "duplicate {noun} {key_noun}: `{}` has the same {key_noun} as a {noun} listed before it in `{macro_name}![...]`; give one of them a different `{key_option}`",
                written[index],
            );
            quote_spanned! {path.span()=>
                const _: () = if #krate::__private::repeats_earlier(&__MCP_NAMES, #index) {
                    ::core::panic!(#message)
                };
            }
        },
    );
    let descriptors =
        paths.iter().map(|path| quote_spanned!(path.span()=> <#path as #krate::__private::#def_trait>::descriptor));
    let errors = errors.finish().err().map(|error| error.to_compile_error());
    quote! {{
        #errors
        const __MCP_NAMES: [&str; #count] = [#(#names),*];
        #(#checks)*
        #krate::#set::from_fns(&[#(#descriptors),*])
    }}
}

/// `crate = "path";` (optional, `#[serde(crate = "...")]`'s convention: the path the runtime is
/// known by here), then the entries.
fn parse_list(input: syn::parse::ParseStream<'_>) -> syn::Result<(Option<syn::LitStr>, Punctuated<Path, Token![,]>)> {
    let krate = if input.peek(Token![crate]) && input.peek2(Token![=]) {
        input.parse::<Token![crate]>()?;
        input.parse::<Token![=]>()?;
        let path = input.parse()?;
        input.parse::<Token![;]>()?;
        Some(path)
    } else {
        None
    };
    Ok((krate, Punctuated::parse_terminated(input)?))
}

/// The path as written, without the spaces tokens print with: `math::divide`.
fn written(path: &Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}
