//! Typed client calls from the same declarations: `add::call(&client, 1.0, 2.0)` for a tool,
//! `note::read(&client, name)` for a resource, `review::get(&client, code)` for a prompt.
//!
//! Emitted inside `__private::with_client!`, which the runtime defines as the identity with its
//! feature `client` and as nothing without it: the macros cannot see the runtime's features, and
//! a server built without a client compiles no stub.
//!
//! A stub's parameters are the function's arguments. Whether a parameter is injected is decided
//! by its type's traits, which only the compiler knows (`handler/mod.rs`, `Role`); a signature
//! has to be written before that, so a stub leaves out the parameters marked injected and those
//! whose type is named like one the runtime injects (`Context`, `State<T>`...). The type then
//! has the last word, as for the handler: each guess is checked against its trait (`FromContext`)
//! where the stub compiles, and a wrong one is a warning on the parameter saying what to write (a
//! parameter of an injected type of your own is marked `#[mcp(inject)]`); not an error, since a
//! server that builds without the feature `client` must build with it.
//!
//! A stub never makes a server that compiles without it fail to compile: what it cannot do for a
//! type it says at run time. An argument whose type is not `Serialize`, a structured output not
//! `Deserialize`, a template variable not `Display` fail the call with an error naming the type
//! (autoref specialization in `__private`, as the parameter probes do). What a call returns is
//! read off the return type's tokens: `Json<T>` gives `T`, `Result<T, E>` what `T` gives,
//! strings `String`, numbers, `bool` and `char` themselves, `Vec<Content>` its blocks; any other
//! type (an alias, a type of your own, `impl Trait`) gives the result itself.

use crate::handler::{HandlerFn, Param, Role};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The runtime's injected types, by their last path segment: the stub's guess, which
/// [`typed_call_checks`] has the compiler confirm.
const INJECTED: &[&str] =
    &["Context", "State", "SessionState", "LocalSessionState", "CancellationToken", "AuthInfo", "HttpRequest"];

/// Whether a `ByType` parameter's type is one the runtime injects (`Option<AuthInfo>` too), as
/// far as its tokens tell: named like one, bare or under the runtime's path (`mcp_runtime::`, or
/// the name of `crate = ".."`); `user::State` is not.
fn injected_by_the_runtime(krate: &TokenStream, ty: &syn::Type) -> bool {
    let syn::Type::Path(syn::TypePath { qself: None, path, .. }) = ty else { return false };
    let Some(last) = path.segments.last() else { return false };
    let runtime = krate.to_string();
    let runtime = runtime.rsplit("::").next().unwrap_or_default().trim();
    let first = &path.segments[0].ident;
    let the_runtimes = path.segments.len() == 1 || first == "mcp_runtime" || first == runtime;
    if the_runtimes && INJECTED.iter().any(|name| last.ident == name) {
        return true;
    }
    // `Option<AuthInfo>`.
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if last.ident == "Option" => args
            .args
            .iter()
            .any(|arg| matches!(arg, syn::GenericArgument::Type(inner) if injected_by_the_runtime(krate, inner))),
        _ => false,
    }
}

/// The parameters a stub takes: the arguments, in order.
fn stub_params(handler: &HandlerFn) -> Vec<&Param> {
    handler
        .params
        .iter()
        .filter(|p| match p.role {
            Role::Injected => false,
            Role::Argument => true,
            Role::ByType => !injected_by_the_runtime(&handler.krate, &p.ty),
        })
        .collect()
}

/// For each parameter of a tool or prompt whose role its type decides, a check that the stub's
/// guess is the type's answer: the method called on the probe's marker is deprecated where they
/// disagree, a warning on the parameter's type saying what to write (`param.rs`).
fn typed_call_checks(handler: &HandlerFn, of_a_tool: bool) -> TokenStream {
    let krate = &handler.krate;
    // A tool's argument is `Deserialize + JsonSchema`, and a type that is neither that nor
    // injected is the handler's error alone; a prompt's argument is any other type.
    let probes = match of_a_tool {
        true => quote!(ProbeInjected as _, ProbeArgument as _, ProbeUndecided as _),
        false => quote!(ProbeInjected as _, ProbeOther as _),
    };
    let checks = handler.params.iter().filter(|p| p.role == Role::ByType).map(|p| {
        let ty = &p.ty;
        let guess = match injected_by_the_runtime(krate, ty) {
            true => format_ident!("left_out_of_typed_calls", span = ty.span()),
            false => format_ident!("sent_by_typed_calls", span = ty.span()),
        };
        let marker = crate::handler::expand::probe(krate, ty, "typed_call", quote!());
        quote_spanned!(ty.span()=> #marker.#guess();)
    });
    quote! {
        {
            #[allow(unused_imports)]
            use #krate::__private::{#probes};
            #(#checks)*
        }
    }
}

/// The stub's client parameter: `client`, unless an argument has that name.
fn client_ident(params: &[&Param]) -> syn::Ident {
    match params.iter().any(|p| p.ident.as_ref().is_some_and(|i| i == "client")) {
        true => format_ident!("__mcp_client"),
        false => format_ident!("client"),
    }
}

/// Wraps `items` in the runtime's gate.
fn gated(handler: &HandlerFn, items: TokenStream) -> TokenStream {
    let krate = &handler.krate;
    quote!(#krate::__private::with_client! { #items })
}

/// How a stub reads an answer back: the type it returns, and the expression that makes one of
/// `__mcp_result`.
struct ReadBack {
    ty: TokenStream,
    read: TokenStream,
}

/// The last segment of a plain path type and its first generic type argument.
fn last_segment(ty: &syn::Type) -> Option<(String, Option<&syn::Type>)> {
    let syn::Type::Path(syn::TypePath { qself: None, path, .. }) = ty else { return None };
    let last = path.segments.last()?;
    let first_type = match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
            syn::GenericArgument::Type(ty) => Some(ty),
            _ => None,
        }),
        _ => None,
    };
    Some((last.ident.to_string(), first_type))
}

const PARSED: &[&str] = &[
    "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64",
];

fn is_str_reference(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Path(p) if p.path.is_ident("str")))
}

/// `Json<inner>` read back from the JSON `value` evaluates to: `inner` when it is `Deserialize`.
fn json_read_back(krate: &TokenStream, inner: &syn::Type, value: TokenStream) -> ReadBack {
    ReadBack {
        ty: quote!(#inner),
        read: quote! {{
            #[allow(unused_imports)]
            use #krate::__private::{ReadDeserialize as _, ReadOther as _};
            (&&#krate::__private::ReadJson::<#inner>::new()).read_json(#value)
        }},
    }
}

/// What a tool's typed call returns for the function's return type.
fn tool_read_back(krate: &TokenStream, ty: &syn::Type) -> ReadBack {
    let raw =
        || ReadBack { ty: quote!(#krate::CallToolResult), read: quote!(::core::result::Result::Ok(__mcp_result)) };
    if matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty()) {
        return ReadBack { ty: quote!(()), read: quote!(::core::result::Result::Ok(())) };
    }
    if is_str_reference(ty) {
        return ReadBack {
            ty: quote!(::std::string::String),
            read: quote!(#krate::__private::read_text(__mcp_result)),
        };
    }
    let Some((name, inner)) = last_segment(ty) else { return raw() };
    match (name.as_str(), inner) {
        ("String" | "Cow", _) => {
            ReadBack { ty: quote!(::std::string::String), read: quote!(#krate::__private::read_text(__mcp_result)) }
        }
        (name, _) if PARSED.contains(&name) => {
            ReadBack { ty: quote!(#ty), read: quote!(#krate::__private::read_parsed::<#ty>(__mcp_result)) }
        }
        ("Json", Some(inner)) => json_read_back(krate, inner, quote!(#krate::__private::tool_json(__mcp_result)?)),
        ("Result", Some(inner)) => tool_read_back(krate, inner),
        ("Vec", Some(inner)) if last_segment(inner).is_some_and(|(name, _)| name == "Content") => {
            ReadBack { ty: quote!(#ty), read: quote!(::core::result::Result::Ok(__mcp_result.content)) }
        }
        _ => raw(),
    }
}

/// What a resource's typed read returns for the function's return type.
fn resource_read_back(krate: &TokenStream, ty: &syn::Type) -> ReadBack {
    let raw =
        || ReadBack { ty: quote!(#krate::ReadResourceResult), read: quote!(::core::result::Result::Ok(__mcp_result)) };
    let text = || ReadBack {
        ty: quote!(::std::string::String),
        read: quote!(#krate::__private::read_resource_text(__mcp_result)),
    };
    if is_str_reference(ty) {
        return text();
    }
    let Some((name, inner)) = last_segment(ty) else { return raw() };
    match (name.as_str(), inner) {
        ("String" | "Cow", _) => text(),
        ("Vec", Some(inner)) if last_segment(inner).is_some_and(|(name, _)| name == "u8") => ReadBack {
            ty: quote!(::std::vec::Vec<u8>),
            read: quote!(#krate::__private::read_resource_bytes(__mcp_result)),
        },
        ("Json", Some(inner)) => json_read_back(krate, inner, quote!(#krate::__private::resource_json(__mcp_result)?)),
        ("Option" | "Result", Some(inner)) => resource_read_back(krate, inner),
        _ => raw(),
    }
}

/// The return type written on the function (`()` when none).
fn return_type(handler: &HandlerFn) -> syn::Type {
    match &handler.item.sig.output {
        syn::ReturnType::Default => syn::parse_quote!(()),
        syn::ReturnType::Type(_, ty) => (**ty).clone(),
    }
}

/// `param: Type` for each stub parameter.
fn signature<'a>(params: &'a [&'a Param]) -> impl Iterator<Item = TokenStream> + 'a {
    params.iter().map(|p| {
        let (binding, ty) = (&p.ident, &p.ty);
        quote!(#binding: #ty)
    })
}

/// `(wire name, Option<text>)` for each stub parameter, `?` on a type with no text.
fn texts<'a>(krate: &'a TokenStream, params: &'a [&'a Param]) -> impl Iterator<Item = TokenStream> + 'a {
    params.iter().map(move |p| {
        let (binding, wire) = (&p.ident, p.wire_name());
        quote_spanned!(p.ty.span()=> (#wire, (&&&#krate::__private::StubText(&#binding)).stub_text()?))
    })
}

/// `impl name { VIS async fn METHOD(client, params...) -> Result<OUTPUT, ClientError> { BODY } }`,
/// behind the gate; `BODY` names the client `#client`.
fn stub_method(
    handler: &HandlerFn,
    params: &[&Param],
    (method, doc): (&str, String),
    output: TokenStream,
    body: impl FnOnce(&syn::Ident) -> TokenStream,
) -> TokenStream {
    let (krate, ident, vis) = (&handler.krate, handler.ident(), &handler.item.vis);
    let client = client_ident(params);
    let method = format_ident!("{method}");
    let signature = signature(params);
    let body = body(&client);
    gated(
        handler,
        quote! {
            impl #ident {
                #[doc = #doc]
                #[allow(dead_code, clippy::too_many_arguments)]
                #vis async fn #method(
                    #client: &#krate::client::Client,
                    #(#signature),*
                ) -> ::core::result::Result<#output, #krate::client::ClientError> {
                    #body
                }
            }
        },
    )
}

/// `name::call(&client, args...)`: calls the tool, returning what the function returns; a tool
/// error is `ClientError::Tool`.
pub(crate) fn tool(handler: &HandlerFn, name: &str) -> TokenStream {
    let (krate, ident) = (&handler.krate, handler.ident());
    let params = stub_params(handler);
    let ReadBack { ty: output, read } = tool_read_back(krate, &return_type(handler));
    let inserts: Vec<TokenStream> = params
        .iter()
        .map(|p| {
            let (binding, wire) = (&p.ident, p.wire_name());
            let value = quote_spanned!(p.ty.span()=> (&&#krate::__private::StubArgument(&#binding)).to_json()?);
            match p.options.flatten {
                // A flattened argument's fields are arguments of their own.
                Some(_) => quote!(#krate::__private::flatten_into(&mut __mcp_arguments, #value);),
                None => quote!(__mcp_arguments.insert(#wire.into(), #value);),
            }
        })
        .collect();
    let doc =
        format!("Calls the tool `{name}` through `client` (feature `client`), returning what [`{ident}()`] returned.");
    let checks = typed_call_checks(handler, true);
    stub_method(handler, &params, ("call", doc), output, |client| {
        quote! {
            #checks
            #[allow(unused_imports)]
            use #krate::__private::{ArgumentOther as _, ArgumentSerialize as _};
            #[allow(unused_mut)]
            let mut __mcp_arguments = #krate::__private::serde_json::Map::new();
            #(#inserts)*
            let __mcp_result =
                #client.call_tool(#name, #krate::__private::serde_json::Value::Object(__mcp_arguments)).await?;
            if __mcp_result.is_error {
                return ::core::result::Result::Err(#krate::client::ClientError::Tool(__mcp_result));
            }
            #read
        }
    })
}

/// `name::read(&client, variables...)`: reads the resource at the template filled with the
/// variables, returning what the function returns.
pub(crate) fn resource(handler: &HandlerFn, uri: &str) -> TokenStream {
    let (krate, ident) = (&handler.krate, handler.ident());
    // A resource's arguments are its template variables; every other parameter is injected.
    let params: Vec<&Param> = handler.params.iter().filter(|p| p.role == Role::Argument).collect();
    let ReadBack { ty: output, read } = resource_read_back(krate, &return_type(handler));
    let values: Vec<TokenStream> = texts(krate, &params).collect();
    let doc = format!(
        "Reads the resource `{uri}` through `client` (feature `client`), returning what [`{ident}()`] returned."
    );
    stub_method(handler, &params, ("read", doc), output, |client| {
        quote! {
            #[allow(unused_imports)]
            use #krate::__private::{TextOfDisplay as _, TextOfOption as _, TextOfOther as _};
            let __mcp_uri = #krate::__private::expand_uri(#uri, &[#(#values),*]);
            let __mcp_result = #client.read_resource(&__mcp_uri).await?;
            #read
        }
    })
}

/// `name::get(&client, arguments...)`: renders the prompt.
pub(crate) fn prompt(handler: &HandlerFn, name: &str) -> TokenStream {
    let krate = &handler.krate;
    let params = stub_params(handler);
    let values: Vec<TokenStream> = texts(krate, &params).collect();
    let doc = format!("Renders the prompt `{name}` through `client` (feature `client`).");
    let checks = typed_call_checks(handler, false);
    stub_method(handler, &params, ("get", doc), quote!(#krate::GetPromptResult), |client| {
        quote! {
            #checks
            #[allow(unused_imports)]
            use #krate::__private::{TextOfDisplay as _, TextOfOption as _, TextOfOther as _};
            let __mcp_arguments: ::std::vec::Vec<(&str, ::core::option::Option<::std::string::String>)> =
                ::std::vec![#(#values),*];
            #client
                .get_prompt(#name, __mcp_arguments.into_iter().filter_map(|(name, value)| Some((name, value?))))
                .await
        }
    })
}
