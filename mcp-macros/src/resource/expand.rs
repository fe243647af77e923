//! Code generation for `#[mcp_resource]`: the function unchanged, plus the descriptor with a
//! read shim that binds template variables to parameters.

use super::attr::ResourceOptions;
use crate::handler::HandlerFn;
use crate::handler::expand::{self, option};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitStr;

pub(crate) fn resource(resource: &HandlerFn, options: &ResourceOptions, uri: &LitStr) -> TokenStream {
    let krate = &resource.krate;
    let item = &resource.item;
    let ident = resource.ident();
    let name = options.common.name.as_ref().map_or_else(|| resource.default_name(), LitStr::value);
    let description =
        expand::option_text(options.common.description.as_ref().map(LitStr::value).or_else(|| resource.docs.clone()));
    let title = expand::option_text(options.common.title.as_ref().map(LitStr::value));
    let mime_type = option(options.mime_type.as_ref());
    let mime_type_text = expand::option_text(options.mime_type.as_ref());
    let size = option(options.size.as_ref().map(|s| quote!(#s as u64)));
    let (output_ty, output_span) = expand::output(resource);
    let bind = expand::bind_text_arguments(resource, &quote!(__mcp_request.variables), false);
    let inject = expand::inject_by_type(resource);
    let required_state = expand::required_states(resource);
    let extract = expand::extract_injected(
        resource,
        |error| quote!(::core::result::Result::Err(#krate::__private::injection_failed(#error))),
    );
    let call = expand::call(resource);
    let read_result = quote_spanned! {output_span=>
        #krate::__private::read_result::<#output_ty>(#call, &__mcp_request.uri, #mime_type, &__mcp_context)
    };
    let annotations = annotations(krate, options);
    let icons = expand::icons(krate, &options.common.icons);
    let meta = expand::meta(options.common.meta.as_ref());
    let scopes = expand::scopes(&options.common);
    let allow_dot_segments = options.allow_dot_segments.unwrap_or(false);
    let ttl_ms = option(options.ttl_ms.as_ref().map(|t| quote!(#t as u64)));
    let cache_scope = expand::option_text(options.cache_scope.as_ref());
    let list = match &options.list {
        Some(function) => quote! {
            ::core::option::Option::Some({
                fn __mcp_list(
                    __mcp_context: #krate::Context,
                ) -> #krate::__private::BoxFuture<'static, ::core::result::Result<::std::vec::Vec<#krate::ResourceEntry>, #krate::ErrorObject>> {
                    #krate::__private::run_lister(#function, __mcp_context)
                }
                #krate::__private::ListFn::Static(&__mcp_list)
            })
        },
        None => quote!(::core::option::Option::None),
    };
    let complete = expand::completions(krate, &options.complete);
    let marker = expand::marker_struct(resource, "#[mcp_resource]");
    let stub = crate::stub::resource(resource, &uri.value());

    quote! {
        // Its parameters are the arguments a client sends, as many as the task needs: clippy's
        // limit on a Rust function's arity does not apply.
        #[allow(clippy::too_many_arguments)]
        #item

        #marker

        #stub

        const _: () = {
            impl #krate::__private::ResourceDef for #ident {
                const URI: &'static str = #uri;

                fn descriptor() -> #krate::__private::ResourceDescriptor {
                    fn __mcp_read(
                        __mcp_request: #krate::__private::ResourceRequest,
                        __mcp_context: #krate::Context,
                    ) -> #krate::__private::BoxFuture<'static, ::core::result::Result<#krate::ReadResourceResult, #krate::ErrorObject>> {
                        ::std::boxed::Box::pin(async move {
                            #bind
                            #inject
                            #extract
                            #read_result
                        })
                    }
                    #krate::__private::ResourceDescriptor {
                        uri: ::std::borrow::Cow::Borrowed(#uri),
                        name: ::std::borrow::Cow::Borrowed(#name),
                        title: #title,
                        description: #description,
                        mime_type: #mime_type_text,
                        size: #size,
                        annotations: #annotations,
                        icons: #icons,
                        meta: #meta,
                        scopes: #scopes,
                        allow_dot_segments: #allow_dot_segments,
                        ttl_ms: #ttl_ms,
                        cache_scope: #cache_scope,
                        read: #krate::__private::ReadFn::Static(&__mcp_read),
                        list: #list,
                        complete: #complete,
                        required_state: #required_state,
                    }
                }
            }
        };
    }
}

fn annotations(krate: &TokenStream, options: &ResourceOptions) -> TokenStream {
    if options.audience.is_none() && options.priority.is_none() && options.last_modified.is_none() {
        return quote!(::core::option::Option::None);
    }
    let audience = option(options.audience.as_ref().map(|roles| {
        let roles = roles.iter().map(|role| match role.value().as_str() {
            "user" => quote!(#krate::Role::User),
            _ => quote!(#krate::Role::Assistant),
        });
        quote!(::std::vec![#(#roles),*])
    }));
    let priority = option(options.priority.as_ref());
    let last_modified = option(options.last_modified.as_ref().map(|l| quote!(::std::string::String::from(#l))));
    quote! {
        ::core::option::Option::Some(#krate::Annotations {
            audience: #audience,
            priority: #priority,
            last_modified: #last_modified,
        })
    }
}
