//! Code generation for `#[mcp_prompt]`: the function unchanged, plus the descriptor with its
//! argument list and a get shim that parses the text arguments.

use super::attr::PromptOptions;
use crate::handler::expand;
use crate::handler::{HandlerFn, Role};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitStr;

pub(crate) fn prompt(prompt: &HandlerFn, options: &PromptOptions) -> TokenStream {
    let krate = &prompt.krate;
    let item = &prompt.item;
    let ident = prompt.ident();
    let name = options.common.name.as_ref().map_or_else(|| prompt.default_name(), LitStr::value);
    let description =
        expand::option_text(options.common.description.as_ref().map(LitStr::value).or_else(|| prompt.docs.clone()));
    let title = expand::option_text(options.common.title.as_ref().map(LitStr::value));
    let arguments = prompt.arguments().map(|param| {
        let name = param.wire_name();
        let description =
            expand::option_text(param.options.description.as_ref().map(LitStr::value).or_else(|| param.docs.clone()));
        // The same test that makes an absent argument `None` when the prompt runs.
        let required = expand::option_inner(param).is_none();
        let argument = quote! {
            #krate::__private::PromptArgument { name: ::std::borrow::Cow::Borrowed(#name), title: ::core::option::Option::None, description: #description, required: #required }
        };
        // A parameter whose type is injected is not an argument.
        match param.role {
            Role::ByType => {
                let probe = expand::probe(krate, &param.ty, "is_argument", quote!());
                quote!(if #probe { __mcp_list.push(#argument); })
            }
            _ => quote!(__mcp_list.push(#argument);),
        }
    });
    let (output_ty, output_span) = expand::output(prompt);
    let bind = expand::bind_text_arguments(prompt, &quote!(__mcp_arguments), true);
    let required_state = expand::required_states(prompt);
    let extract = expand::extract_injected(
        prompt,
        |error| quote!(::core::result::Result::Err(#krate::__private::injection_failed(#error))),
    );
    let call = expand::call(prompt);
    let result = quote_spanned!(output_span=> #krate::__private::prompt_result::<#output_ty>(#call));
    let icons = expand::icons(krate, &options.common.icons);
    let meta = expand::meta(options.common.meta.as_ref());
    let scopes = expand::scopes(&options.common);
    let complete = expand::completions(krate, &options.complete);
    let marker = expand::marker_struct(prompt, "#[mcp_prompt]");
    let stub = crate::stub::prompt(prompt, &name);

    quote! {
        // Its parameters are the arguments a client sends, as many as the task needs: clippy's
        // limit on a Rust function's arity does not apply.
        #[allow(clippy::too_many_arguments)]
        #item

        #marker

        #stub

        const _: () = {
            impl #krate::__private::PromptDef for #ident {
                const NAME: &'static str = #name;

                fn descriptor() -> #krate::__private::PromptDescriptor {
                    fn __mcp_get(
                        __mcp_arguments: ::std::collections::HashMap<::std::string::String, ::std::string::String>,
                        __mcp_context: #krate::Context,
                    ) -> #krate::__private::BoxFuture<'static, ::core::result::Result<#krate::GetPromptResult, #krate::ErrorObject>> {
                        ::std::boxed::Box::pin(async move {
                            #bind
                            #extract
                            #result
                        })
                    }
                    let __mcp_prompt_arguments = {
                        #[allow(unused_imports)]
                        use #krate::__private::{ProbeInjected as _, ProbeOther as _};
                        #[allow(unused_mut)]
                        let mut __mcp_list = ::std::vec::Vec::new();
                        #(#arguments)*
                        __mcp_list
                    };
                    #krate::__private::PromptDescriptor {
                        name: ::std::borrow::Cow::Borrowed(#name),
                        title: #title,
                        description: #description,
                        icons: #icons,
                        meta: #meta,
                        scopes: #scopes,
                        arguments: __mcp_prompt_arguments,
                        get: #krate::__private::GetFn::Static(&__mcp_get),
                        complete: #complete,
                        required_state: #required_state,
                    }
                }
            }
        };
    }
}
