//! What the three attribute macros share: the model of an annotated function and its
//! parameters, the signature checks, and the code that calls the function from a shim.

pub(crate) mod expand;
pub(crate) mod options;
pub(crate) mod valid;

use crate::diagnostics::Errors;
use crate::docs;
use options::ParamOptions;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{FnArg, Ident, Item, ItemFn, Pat, Type};

/// Which macro is at work, for messages and generated names.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    /// `tool`, `resource`, `prompt`.
    pub fn noun(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Resource => "resource",
            Self::Prompt => "prompt",
        }
    }

    /// `#[mcp_tool]`...
    pub fn attribute(self) -> &'static str {
        match self {
            Self::Tool => "#[mcp_tool]",
            Self::Resource => "#[mcp_resource(uri = \"...\")]",
            Self::Prompt => "#[mcp_prompt]",
        }
    }
}

/// An annotated function.
pub(crate) struct HandlerFn {
    pub item: ItemFn,
    /// The path generated code reaches the runtime by (`crate = "..."`, else `::mcp_runtime`).
    pub krate: TokenStream,
    pub docs: Option<String>,
    pub params: Vec<Param>,
}

pub(crate) struct Param {
    /// The binding of an argument (the argument's name); `None` for an injected parameter
    /// written as a pattern (`State(docs): State<Docs>`).
    pub ident: Option<Ident>,
    pub ty: Type,
    pub docs: Option<String>,
    pub options: ParamOptions,
    /// Injected, read from the request, or decided by its type.
    pub role: Role,
}

/// What a parameter is, as far as the macro can tell: injection is decided by a type's traits
/// (`FromContext`), which only the compiler knows, never by the type's name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Marked `#[mcp(inject)]`, or bound by a pattern (`State(docs): State<Docs>`, which no
    /// argument could be): provided through `FromContext`, or a compile error.
    Injected,
    /// Given `rename`, `default`, `header` or `flatten` (an injected parameter takes none), or a resource's
    /// parameter named after a URI template variable: read from the request.
    Argument,
    /// Injected if its type implements `FromContext`, else an argument: decided where the
    /// generated code compiles, by `__private::Probe`.
    ByType,
}

impl Param {
    /// The argument's name on the wire: `rename`, else the binding.
    pub fn wire_name(&self) -> String {
        match (&self.options.rename, &self.ident) {
            (Some(rename), _) => rename.value(),
            (None, Some(ident)) => ident.to_string().trim_start_matches("r#").to_owned(),
            (None, None) => String::new(),
        }
    }

    /// Where to report an error about the argument's name: the `rename` literal, else the
    /// binding, else the type.
    pub fn name_tokens(&self) -> TokenStream {
        match (&self.options.rename, &self.ident) {
            (Some(rename), _) => rename.to_token_stream(),
            (None, Some(ident)) => ident.to_token_stream(),
            (None, None) => self.ty.to_token_stream(),
        }
    }
}

impl HandlerFn {
    /// Reads the function. Parameter shapes that cannot be modelled are reported to `errors`
    /// and left out; the attributes the macro consumes are stripped from the item it re-emits.
    pub fn parse(mut item: ItemFn, errors: &mut Errors) -> Self {
        let docs = docs::collect(&item.attrs);
        let mut params = Vec::new();
        for input in &mut item.sig.inputs {
            let FnArg::Typed(arg) = input else { continue }; // `self`: reported by `valid`
            let mut options = ParamOptions::default();
            let docs = docs::collect(&arg.attrs);
            for attr in arg.attrs.iter().filter(|a| a.path().is_ident("mcp")) {
                if let Err(err) = options.parse_into(attr) {
                    errors.push(err);
                }
            }
            arg.attrs.retain(|a| !a.path().is_ident("mcp") && !docs::is_doc(a));
            let ident = match &*arg.pat {
                Pat::Ident(pat) if pat.subpat.is_none() => Some(pat.ident.clone()),
                _ => None,
            };
            let role = if options.inject.is_some() || ident.is_none() {
                Role::Injected
            } else if options.rename.is_some()
                || options.flatten.is_some()
                || options.default.is_some()
                || options.header.is_some()
                || options.range.is_some()
                || options.length.is_some()
                || options.pattern.is_some()
            {
                Role::Argument
            } else {
                Role::ByType
            };
            params.push(Param { ident, ty: (*arg.ty).clone(), docs, options, role });
        }
        Self { item, krate: quote!(::mcp_runtime), docs, params }
    }

    pub fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    pub fn is_async(&self) -> bool {
        self.item.sig.asyncness.is_some()
    }

    /// The parameters that are or may be read from the request: all but the ones marked
    /// injected (whether a `ByType` one is, only the compiler knows).
    pub fn arguments(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| p.role != Role::Injected)
    }

    /// The default wire name: the function's.
    pub fn default_name(&self) -> String {
        self.ident().to_string().trim_start_matches("r#").to_owned()
    }
}

/// Parses the annotated item as a function, or explains (on the item's keyword and name) that
/// the attribute belongs on one.
pub(crate) fn parse_function(item: &TokenStream, kind: Kind) -> syn::Result<ItemFn> {
    syn::parse2(item.clone()).map_err(|_| not_a_function(item, kind))
}

fn not_a_function(item: &TokenStream, kind: Kind) -> syn::Error {
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
    let attribute = kind.attribute();
    let bare = attribute.split('(').next().unwrap_or(attribute).trim_end_matches(']');
    let example = if kind == Kind::Tool { "-> Output " } else { "-> String " };
    syn::Error::new_spanned(
        head_tokens,
        format!("`{bare}]` goes on a function, not on {what}: `{attribute} fn name(arg: Type) {example}{{ ... }}`"),
    )
}

fn head(keyword: &impl ToTokens, name: &impl ToTokens) -> TokenStream {
    quote!(#keyword #name)
}
