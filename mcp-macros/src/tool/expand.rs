//! Code generation for `#[mcp_tool]`: the function unchanged, plus a hidden struct of the same
//! name (type namespace) implementing `ToolDef` with the descriptor and the call shim.

use super::attr::ToolOptions;
use super::headers::{self, Mirrored};
use super::valid::tool_name;
use crate::handler::expand::option;
use crate::handler::expand::probe;
use crate::handler::{self, HandlerFn, Param, Role};
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::LitStr;
use syn::spanned::Spanned;

pub(crate) fn tool(tool: &HandlerFn, options: &ToolOptions) -> TokenStream {
    let krate = &tool.krate;
    let item = &tool.item;
    let ident = tool.ident();
    let name = tool_name(tool, options);
    let description = options.common.description.as_ref().map(LitStr::value).or_else(|| tool.docs.clone());

    let (output_ty, output_span) = handler::expand::output(tool);
    // Both uses of the return type are spelled the same and spanned at it, so when it is not a
    // tool result the compiler reports one error there (identical diagnostics are merged).
    let output_trait = quote_spanned!(output_span=> <#output_ty as #krate::IntoToolResult>);
    // A fn pointer first: a return type that is no tool result is then reported once, not
    // again for the coercion to the field's `dyn Fn`.
    let output_schema = quote! {
        #krate::__private::OutputSchemaFn::Static(&(#output_trait::output_schema as fn() -> ::core::option::Option<
            #krate::__private::serde_json::Map<::std::string::String, #krate::__private::serde_json::Value>,
        >))
    };
    // Checked before the arguments struct, so a parameter type that is not `Deserialize` and
    // `JsonSchema` gets our message first, on that type, ahead of the derives' errors. (A
    // `ByType` one gets it from its probe.)
    // A crate on schemars 0.x gets the message that names the version (its derive is another
    // `JsonSchema` trait): the same checks, another trait to fail on.
    let old_schemars = crate::manifest::depends_on_old_schemars();
    let (assert_parameter, unsupported) = match old_schemars {
        true => (quote!(assert_tool_parameter_old_schemars), quote!(ProbeUnsupportedOldSchemars)),
        false => (quote!(assert_tool_parameter), quote!(ProbeUnsupported)),
    };
    let assert_params = tool.params.iter().filter(|p| p.role == Role::Argument).map(|p| {
        let ty = &p.ty;
        quote_spanned!(ty.span()=> const _: fn() = #krate::__private::#assert_parameter::<#ty>;)
    });

    let arguments = arguments_struct(tool);
    let defaults = tool.params.iter().enumerate().filter_map(|(i, p)| default_fn(i, p));
    // Each `ByType` parameter's probe picks its field's type (the argument's, or
    // `NotAnArgument`), and turns the field into the parameter.
    let slots: Vec<TokenStream> = by_type(tool).map(|(_, p)| probe(krate, &p.ty, "slot", quote!())).collect();
    let shape = quote! {
        {
            #[allow(unused_imports)]
            use #krate::__private::{ProbeArgument as _, ProbeInjected as _, #unsupported as _};
            __McpArguments::__mcp_shape(#(#slots),*)
        }
    };
    let decode = decode(tool, &name, &shape);
    let by_type_bindings = by_type(tool).map(|(i, p)| {
        let binding = handler::expand::binding(i);
        let bind = probe(krate, &p.ty, "bind", quote!(#binding, __mcp_context));
        quote! {
            let #binding = match #bind {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => return #krate::__private::ToolCall::Finished(::core::convert::Into::into(error)),
            };
        }
    });
    let required_state = handler::expand::required_states(tool);
    // Before the tool's future, like the arguments: what it needs from the context is cloned
    // into it, and a tool that needs nothing from it clones nothing.
    let finished = |result| quote!(#krate::__private::ToolCall::Finished(::core::convert::Into::into(#result)));
    let running = |body| quote!(#krate::__private::ToolCall::Running(::std::boxed::Box::pin(async move { #body })));
    let extract = handler::expand::extract_injected(tool, finished);
    let call = handler::expand::call(tool);
    let into_result = quote_spanned!(output_span=> #output_trait::into_tool_result(#call));
    // A sync tool's result is serialized at once, a text result straight from its string.
    let into_finished = quote_spanned!(output_span=> #output_trait::into_finished(#call));
    let blocking = options.blocking.as_ref().is_some_and(|b| b.value);
    let confirm = options.confirm.unwrap_or(false);
    // A sync tool runs in `call` itself, unless it must wait: for the pool (`blocking`) or for
    // the user's confirmation.
    let run = if blocking {
        running(quote!(#krate::__private::run_blocking(move || #into_result).await))
    } else if tool.is_async() || confirm {
        running(into_result)
    } else {
        finished(into_finished)
    };

    let input_schema_verbatim = options.input_schema.is_some();
    let input_schema = match &options.input_schema {
        Some(schema) => quote!(#krate::__private::SchemaFn::Static(&|| #krate::__private::verbatim_schema(#schema))),
        None => quote!(#krate::__private::input_schema_as(#shape)),
    };
    let title = handler::expand::option_text(options.common.title.as_ref().map(LitStr::value));
    let description = handler::expand::option_text(description);
    let annotations = {
        let [read_only, destructive, idempotent, open_world] =
            [options.read_only, options.destructive, options.idempotent, options.open_world].map(option);
        quote! {
            #krate::__private::ToolAnnotations {
                read_only: #read_only, destructive: #destructive, idempotent: #idempotent, open_world: #open_world,
            }
        }
    };
    let hidden = options.hidden.unwrap_or(false);
    let scopes = handler::expand::scopes(&options.common);
    let tags = options.tags.iter().flatten();
    let timeout = match &options.timeout_ms {
        Some(millis) => {
            let millis = millis.base10_parse::<u64>().unwrap_or_default();
            quote!(::core::option::Option::Some(::std::time::Duration::from_millis(#millis)))
        }
        None => quote!(::core::option::Option::None),
    };
    let param_headers = headers::mirrored(tool, options).into_iter().map(|Mirrored { name, path }| {
        let header = format!("mcp-param-{}", name.to_ascii_lowercase());
        quote!(#krate::__private::ParamHeader { name: #name, header: #header, path: &[#(#path),*] })
    });
    let task = match options.task.as_ref().map(syn::LitStr::value).as_deref() {
        Some("optional") => quote!(#krate::TaskSupport::Optional),
        Some("required") => quote!(#krate::TaskSupport::Required),
        _ => quote!(#krate::TaskSupport::Forbidden),
    };
    let icons = handler::expand::icons(krate, &options.common.icons);
    let meta = handler::expand::meta(options.common.meta.as_ref());
    let marker = handler::expand::marker_struct(tool, "#[mcp_tool]");
    let stub = crate::stub::tool(tool, &name);

    quote! {
        // Its parameters are the arguments a client sends, as many as the task needs: clippy's
        // limit on a Rust function's arity does not apply.
        #[allow(clippy::too_many_arguments)]
        #item

        #marker

        #stub

        const _: () = {
            #(#assert_params)*
            #arguments
            #(#defaults)*

            impl #krate::__private::ToolDef for #ident {
                const NAME: &'static str = #name;

                fn descriptor() -> #krate::__private::ToolDescriptor {
                    fn __mcp_call(
                        __mcp_arguments: ::core::option::Option<&#krate::__private::serde_json::value::RawValue>,
                        __mcp_context: &#krate::Context,
                    ) -> #krate::__private::ToolCall {
                        #[allow(unused_imports)]
                        use #krate::__private::{ProbeArgument as _, ProbeInjected as _, #unsupported as _};
                        #decode
                        #(#by_type_bindings)*
                        #extract
                        #run
                    }
                    #krate::__private::ToolDescriptor {
                        name: ::std::borrow::Cow::Borrowed(#name),
                        title: #title,
                        description: #description,
                        annotations: #annotations,
                        icons: #icons,
                        meta: #meta,
                        confirm: #confirm,
                        hidden: #hidden,
                        scopes: #scopes,
                        tags: &[#(#tags),*],
                        param_headers: &[#(#param_headers),*],
                        timeout: #timeout,
                        task: #task,
                        input_schema: #input_schema,
                        input_schema_verbatim: #input_schema_verbatim,
                        output_schema: #output_schema,
                        call: #krate::__private::CallFn::Static(&__mcp_call),
                        required_state: #required_state,
                    }
                }
            }
        };
    }
}

/// Binds each argument (`__mcp_argN`) from `__mcp_arguments`, or returns its error result.
///
/// A slot per parameter (`__mcp_memberN`, an `Argument` of its type), which
/// `__private::decode_arguments` fills in one pass over the object (absent members included:
/// defaults, `None`, or the error), then each is taken out as its parameter: the code per tool is
/// a few lines per parameter with one way out, and the decoders are generic over the parameter's
/// type only, so every tool shares them. A `flatten`
/// parameter reads its fields from the arguments' object itself, which only the derived struct
/// knows: such a tool decodes the struct whole.
fn decode(tool: &HandlerFn, name: &str, shape: &TokenStream) -> TokenStream {
    let krate = &tool.krate;
    let finished = quote!(return #krate::__private::ToolCall::Finished(::core::convert::Into::into(error)));
    if tool.params.iter().any(|p| p.options.flatten.is_some()) {
        let field_bindings = tool.params.iter().enumerate().filter(|(_, p)| p.role != Role::Injected).map(|(i, p)| {
            let (field, binding) = (&p.ident, handler::expand::binding(i));
            quote!(#field: #binding)
        });
        return quote! {
            let __McpArguments { #(#field_bindings,)* } =
                match #krate::__private::parse_arguments_as(#name, __mcp_arguments, #shape) {
                    ::core::result::Result::Ok(__mcp_parsed) => __mcp_parsed,
                    ::core::result::Result::Err(error) => #finished,
                };
        };
    }
    let fields: Vec<(usize, &Param)> =
        tool.params.iter().enumerate().filter(|(_, p)| p.role != Role::Injected).collect();
    if fields.is_empty() {
        return quote!();
    }
    let members: Vec<syn::Ident> = fields.iter().map(|(i, _)| format_ident!("__mcp_member{i}")).collect();
    let wire_names = fields.iter().map(|(_, p)| p.wire_name());
    let slots = fields.iter().zip(&members).map(|((i, p), member)| {
        let ty = &p.ty;
        let slot = match (p.role, &p.options.default) {
            (_, Some(_)) => {
                let default = default_fn_name(*i);
                quote!(#krate::__private::Argument::with_default(#default))
            }
            (Role::ByType, None) => {
                let shape = probe(krate, ty, "slot", quote!());
                quote!(#krate::__private::Argument::shaped(#shape))
            }
            _ => quote_spanned!(ty.span()=> #krate::__private::Argument::<#ty>::new()),
        };
        quote!(let mut #member = #slot;)
    });
    // Each slot is spanned at its type: one that does not decode is reported there.
    let slot_refs = fields.iter().zip(&members).map(|((_, p), member)| quote_spanned!(p.ty.span()=> &mut #member));
    let bindings = fields.iter().zip(&members).map(|((i, _), member)| {
        let binding = handler::expand::binding(*i);
        quote!(let #binding = #member.into_value();)
    });
    quote! {
        #(#slots)*
        if let ::core::result::Result::Err(error) =
            #krate::__private::decode_arguments(#name, __mcp_arguments, &[#(#wire_names),*], &mut [#(#slot_refs),*])
        {
            #finished
        }
        #(#bindings)*
    }
}

/// The `ByType` parameters, with their indices.
fn by_type(tool: &HandlerFn) -> impl Iterator<Item = (usize, &Param)> {
    tool.params.iter().enumerate().filter(|(_, p)| p.role == Role::ByType)
}

/// The generic parameter holding a `ByType` parameter's field type.
fn field_type_param(index: usize) -> syn::Ident {
    format_ident!("__McpP{index}")
}

/// The struct the arguments deserialize into; its derived schema is the tool's input schema.
/// It is generic over the field type of each `ByType` parameter, which the probes pick when
/// the code compiles (`__mcp_shape` names the struct with them): the parameter's type for an
/// argument, `NotAnArgument` (absent from the request, left out of the schema) for an injected
/// one.
fn arguments_struct(tool: &HandlerFn) -> TokenStream {
    let krate = &tool.krate;
    let serde_crate = format!("{krate}::__private::serde");
    let schemars_crate = format!("{krate}::__private::schemars");
    let generics: Vec<syn::Ident> = by_type(tool).map(|(i, _)| field_type_param(i)).collect();
    let fields = tool.params.iter().enumerate().filter(|(_, p)| p.role != Role::Injected).map(|(i, p)| {
        let ident = &p.ident;
        let ty = match p.role {
            Role::ByType => field_type_param(i).into_token_stream(),
            _ => p.ty.to_token_stream(),
        };
        let doc = p.docs.as_ref().map(|d| quote!(#[doc = #d]));
        let rename = p.options.rename.as_ref().map(|r| quote!(#[serde(rename = #r)]));
        // Its fields are read from the arguments' object, and merged into the schema's properties.
        let flatten = p.options.flatten.map(|_| quote!(#[serde(flatten)]));
        let description = p.options.description.as_ref().map(|d| quote!(#[schemars(description = #d)]));
        let header = p.options.header.as_ref().map(|h| quote!(#[schemars(extend("x-mcp-header" = #h))]));
        let range = p.options.range.as_ref().map(|r| quote!(#[schemars(range(#r))]));
        let length = p.options.length.as_ref().map(|l| quote!(#[schemars(length(#l))]));
        let pattern = p.options.pattern.as_ref().map(|r| quote!(#[schemars(regex(pattern = #r))]));
        let default = p.options.default.as_ref().map(|_| {
            let path = default_fn_name(i).to_string();
            quote!(#[serde(default = #path)])
        });
        quote!(#doc #rename #flatten #description #header #range #length #pattern #default #ident: #ty)
    });
    // Only a tool with a `flatten` parameter decodes the struct (see `decode`); for the others it
    // is the schema's shape alone, and `Deserialize` would be code nobody calls.
    let deserialize =
        tool.params.iter().any(|p| p.options.flatten.is_some()).then(|| quote!(#krate::__private::serde::Deserialize,));
    quote! {
        #[derive(#deserialize #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate)]
        #[schemars(crate = #schemars_crate)]
        #[allow(non_camel_case_types, non_snake_case, dead_code)]
        struct __McpArguments<#(#generics),*> {
            #(#fields,)*
        }

        impl<#(#generics),*> __McpArguments<#(#generics),*> {
            #[allow(clippy::too_many_arguments)]
            fn __mcp_shape(#(_: ::core::marker::PhantomData<#generics>),*) -> ::core::marker::PhantomData<Self> {
                ::core::marker::PhantomData
            }
        }
    }
}

fn default_fn_name(index: usize) -> syn::Ident {
    format_ident!("__mcp_default_{index}")
}

fn default_fn(index: usize, param: &Param) -> Option<TokenStream> {
    let default = param.options.default.as_ref()?;
    let (name, ty) = (default_fn_name(index), &param.ty);
    // `Into::into(10)` cannot infer the literal's type (it falls back to `i32`, and `u32` is not
    // `From<i32>`), so a plain number for a number type is written as is.
    let value = if is_number_literal_for(default, ty) {
        quote!(#default)
    } else {
        quote!(::core::convert::Into::into(#default))
    };
    Some(quote!(#[allow(non_snake_case)] fn #name() -> #ty { #value }))
}

/// An unsuffixed integer (float) literal, maybe negated, for a primitive integer (float) type.
fn is_number_literal_for(expr: &syn::Expr, ty: &syn::Type) -> bool {
    const INTEGERS: &[&str] = &["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize"];
    let expr = match expr {
        syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => &**expr,
        expr => expr,
    };
    let syn::Type::Path(syn::TypePath { qself: None, path, .. }) = ty else { return false };
    let Some(ty) = path.get_ident().map(ToString::to_string) else { return false };
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(lit), .. }) => {
            lit.suffix().is_empty() && INTEGERS.contains(&ty.as_str())
        }
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Float(lit), .. }) => {
            lit.suffix().is_empty() && matches!(ty.as_str(), "f32" | "f64")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn expanded(item: proc_macro2::TokenStream) -> String {
        super::super::expand(quote!(), item).to_string().replace(' ', "")
    }

    /// The code per tool stays small (issue 37): the arguments are decoded member by member by
    /// the runtime's shared decoders, and the struct the schema is derived from derives nothing
    /// else.
    #[test]
    fn a_tool_decodes_its_arguments_through_the_shared_decoders() {
        let code = expanded(quote! {
            /// Adds.
            fn add(a: f64, #[mcp(default = 1.0)] b: f64) -> f64 { a + b }
        });
        let decode = "__private::decode_arguments(\"add\",__mcp_arguments,&[\"a\",\"b\"],&mut[&mut__mcp_member0,&mut__mcp_member1])";
        assert!(code.contains(decode), "{code}");
        assert!(code.contains("__private::Argument::with_default(__mcp_default_1)"), "{code}");
        assert!(code.contains("let__mcp_arg0=__mcp_member0.into_value();"), "{code}");
        assert!(!code.contains("serde::Deserialize") && !code.contains("parse_arguments_as"), "{code}");
    }

    /// Only the derived struct knows which members a `flatten` parameter's type reads.
    #[test]
    fn a_tool_with_a_flattened_parameter_decodes_the_struct_whole() {
        let code = expanded(quote! {
            fn add(#[mcp(flatten)] todo: Todo) -> String { todo.title }
        });
        assert!(code.contains("serde::Deserialize") && code.contains("parse_arguments_as"), "{code}");
        assert!(!code.contains("decode_arguments"), "{code}");
    }
}
