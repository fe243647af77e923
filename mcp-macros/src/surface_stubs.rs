//! `client_stubs!(mod name = "mcp-surface.json")`: typed calls for a server whose code is not
//! at hand, from the surface file `cargo mcp surface` saves (its tools, resources, templates and
//! prompts with their schemas).
//!
//! A tool becomes `name::tool(&client, required, Option<optional>)`, its parameters typed from
//! its input schema (`number` `f64`, `integer` `i64`, `string` `String`, `boolean` `bool`,
//! `array` `Vec<_>` of its items, anything else `serde_json::Value`), returning its structured
//! content as a `serde_json::Value` when it declares an output schema, else its
//! `CallToolResult`; a resource `name::resources::read_x(&client, variables)`; a prompt
//! `name::prompts::get_x(&client, arguments)`. Names that are not Rust identifiers are made
//! into snake case ones (`get-weather` is `get_weather`, `type` is `r#type`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token, Visibility};

/// `[crate = "path";] VIS mod NAME = "FILE"`.
struct Input {
    krate: Option<LitStr>,
    vis: Visibility,
    name: Ident,
    file: LitStr,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut krate = None;
        if input.peek(Token![crate]) {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            krate = Some(input.parse()?);
            input.parse::<Token![;]>()?;
        }
        let vis = input.parse()?;
        input.parse::<Token![mod]>()?;
        let name = input.parse()?;
        input.parse::<Token![=]>()?;
        let file = input.parse()?;
        Ok(Self { krate, vis, name, file })
    }
}

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let Input { krate, vis, name, file } = match syn::parse2(input) {
        Ok(input) => input,
        Err(err) => {
            let message = format!("{err}; write `client_stubs!(pub mod weather = \"mcp-surface.json\")`");
            return syn::Error::new(err.span(), message).to_compile_error();
        }
    };
    let krate = crate::handler::options::crate_path(krate.as_ref());
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let path = std::path::Path::new(&dir).join(file.value());
    let surface: Value = match std::fs::read_to_string(&path) {
        Ok(text) => match serde_json::from_str(&text) {
            Ok(surface) => surface,
            Err(err) => return error(&file, format!("`{}` is not JSON: {err}", path.display())),
        },
        Err(err) => {
            return error(
                &file,
                format!(
                    "cannot read `{}` ({err}): the path is relative to this crate's Cargo.toml; \
                     write the file with `cargo mcp surface --stdio \"SERVER\"`",
                    path.display()
                ),
            );
        }
    };
    let path_text = path.display().to_string();
    let list = |key: &str| surface.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    let tools = unique(list("tools").iter().map(|tool| tool_stub(&krate, tool)));
    let resources = unique(list("resources").iter().map(|resource| resource_stub(&krate, resource, false)));
    let templates = unique(list("resourceTemplates").iter().map(|template| resource_stub(&krate, template, true)));
    let prompts = unique(list("prompts").iter().map(|prompt| prompt_stub(&krate, prompt)));
    let doc = format!("Typed calls of the server described by `{}`.", file.value());
    quote! {
        #[doc = #doc]
        #[allow(dead_code, clippy::too_many_arguments)]
        #vis mod #name {
            // Rebuilt when the file changes.
            const _: &str = ::core::include_str!(#path_text);
            #(#tools)*

            /// Reads of the server's resources and resource templates.
            pub mod resources {
                #(#resources)*
                #(#templates)*
            }

            /// The server's prompts.
            pub mod prompts {
                #(#prompts)*
            }
        }
    }
}

fn error(at: &LitStr, message: String) -> TokenStream {
    syn::Error::new(at.span(), message).to_compile_error()
}

/// Keeps the first stub of each function name (two wire names may make the same identifier).
fn unique(stubs: impl Iterator<Item = Option<(String, TokenStream)>>) -> Vec<TokenStream> {
    let mut seen = BTreeSet::new();
    stubs.flatten().filter(|(name, _)| seen.insert(name.clone())).map(|(_, stub)| stub).collect()
}

/// A Rust identifier for a wire name: snake case, `r#` for keywords, `_` before a digit.
fn ident(name: &str) -> Ident {
    let mut snake = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous_lower {
                snake.push('_');
            }
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            snake.push(c.to_ascii_lowercase());
        } else if !snake.ends_with('_') {
            snake.push('_');
            previous_lower = false;
        }
    }
    let snake = snake.trim_matches('_');
    let snake = match snake {
        "" => "unnamed".to_owned(),
        s if s.starts_with(|c: char| c.is_ascii_digit()) => format!("_{s}"),
        // Keywords no `r#` can take.
        "self" | "super" | "crate" => format!("{snake}_"),
        s => s.to_owned(),
    };
    syn::parse_str::<Ident>(&snake).unwrap_or_else(|_| Ident::new_raw(&snake, Span::call_site()))
}

/// The Rust type of a JSON Schema.
fn rust_type(krate: &TokenStream, schema: &Value) -> TokenStream {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
        _ => Vec::new(),
    };
    let nullable = matches!(schema.get("type"), Some(Value::Array(types)) if types.iter().any(|t| t == "null"));
    let inner = match types.as_slice() {
        ["number"] => quote!(f64),
        ["integer"] => quote!(i64),
        ["string"] => quote!(::std::string::String),
        ["boolean"] => quote!(bool),
        ["array"] => {
            let items = rust_type(krate, schema.get("items").unwrap_or(&Value::Null));
            quote!(::std::vec::Vec<#items>)
        }
        _ => quote!(#krate::__private::serde_json::Value),
    };
    match nullable {
        true => quote!(::core::option::Option<#inner>),
        false => inner,
    }
}

fn doc_of(item: &Value) -> Option<TokenStream> {
    let text = item.get("description").or_else(|| item.get("title")).and_then(Value::as_str)?;
    Some(quote!(#[doc = #text]))
}

/// One generated function: the item's description, then what it does on the wire.
fn stub_fn(
    krate: &TokenStream,
    item: &Value,
    on_the_wire: String,
    function: &Ident,
    (signature, output): (Vec<TokenStream>, TokenStream),
    body: TokenStream,
) -> TokenStream {
    let doc = doc_of(item);
    quote! {
        #doc
        #[doc = ""]
        #[doc = #on_the_wire]
        pub async fn #function(
            client: &#krate::client::Client,
            #(#signature),*
        ) -> ::core::result::Result<#output, #krate::client::ClientError> {
            #body
        }
    }
}

fn tool_stub(krate: &TokenStream, tool: &Value) -> Option<(String, TokenStream)> {
    let name = tool.get("name")?.as_str()?;
    let function = ident(name);
    let empty = Map::new();
    let schema = tool.get("inputSchema").and_then(Value::as_object).unwrap_or(&empty);
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let required: BTreeSet<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let mut taken = BTreeSet::from(["client".to_owned()]);
    let params: Vec<(Ident, &str, TokenStream, bool)> = properties
        .iter()
        .map(|(wire, property)| {
            let mut binding = ident(wire);
            while !taken.insert(binding.to_string()) {
                binding = format_ident!("{}_", binding);
            }
            let is_required = required.contains(wire.as_str());
            let ty = rust_type(krate, property);
            let ty = if is_required { ty } else { quote!(::core::option::Option<#ty>) };
            (binding, wire.as_str(), ty, is_required)
        })
        .collect();
    let signature = params.iter().map(|(binding, _, ty, _)| quote!(#binding: #ty));
    let inserts = params.iter().map(|(binding, wire, _, is_required)| match is_required {
        true => quote!(__mcp_arguments.insert(#wire.into(), #krate::__private::to_argument(&#binding)?);),
        false => quote! {
            if let ::core::option::Option::Some(value) = &#binding {
                __mcp_arguments.insert(#wire.into(), #krate::__private::to_argument(value)?);
            }
        },
    });
    let (output, convert) = match tool.get("outputSchema") {
        Some(_) => (quote!(#krate::__private::serde_json::Value), quote!(#krate::__private::tool_json(__mcp_result))),
        None => (quote!(#krate::CallToolResult), quote!(::core::result::Result::Ok(__mcp_result))),
    };
    let body = quote! {
        #[allow(unused_mut)]
        let mut __mcp_arguments = #krate::__private::serde_json::Map::new();
        #(#inserts)*
        let __mcp_result = client.call_tool(#name, #krate::__private::serde_json::Value::Object(__mcp_arguments)).await?;
        if __mcp_result.is_error {
            return ::core::result::Result::Err(#krate::client::ClientError::Tool(__mcp_result));
        }
        #convert
    };
    let stub =
        stub_fn(krate, tool, format!("Calls the tool `{name}`."), &function, (signature.collect(), output), body);
    Some((function.to_string(), stub))
}

fn resource_stub(krate: &TokenStream, resource: &Value, templated: bool) -> Option<(String, TokenStream)> {
    let uri = resource.get(if templated { "uriTemplate" } else { "uri" })?.as_str()?;
    let name = resource.get("name").and_then(Value::as_str).unwrap_or(uri);
    let function = format_ident!("read_{}", ident(name).to_string().trim_start_matches("r#"));
    let variables: Vec<String> = match templated {
        true => mcp_runtime_uri_template::parse(uri)
            .ok()
            .map(|parts| mcp_runtime_uri_template::variables(&parts).map(str::to_owned).collect())
            .unwrap_or_default(),
        false => Vec::new(),
    };
    let bindings: Vec<Ident> = variables.iter().map(|v| ident(v)).collect();
    let values = variables.iter().zip(&bindings).map(
        |(wire, binding)| quote!((#wire, ::core::option::Option::Some(::std::string::ToString::to_string(&#binding)))),
    );
    let signature = bindings.iter().map(|binding| quote!(#binding: &str)).collect();
    let body = quote! {
        let __mcp_uri = #krate::__private::expand_uri(#uri, &[#(#values),*]);
        client.read_resource(&__mcp_uri).await
    };
    let output = quote!(#krate::ReadResourceResult);
    let stub = stub_fn(krate, resource, format!("Reads `{uri}`."), &function, (signature, output), body);
    Some((function.to_string(), stub))
}

fn prompt_stub(krate: &TokenStream, prompt: &Value) -> Option<(String, TokenStream)> {
    let name = prompt.get("name")?.as_str()?;
    let function = format_ident!("get_{}", ident(name).to_string().trim_start_matches("r#"));
    let arguments = prompt.get("arguments").and_then(Value::as_array).cloned().unwrap_or_default();
    let params: Vec<(Ident, String, bool)> = arguments
        .iter()
        .filter_map(|argument| {
            let wire = argument.get("name")?.as_str()?.to_owned();
            let required = argument.get("required").and_then(Value::as_bool).unwrap_or(false);
            Some((ident(&wire), wire, required))
        })
        .collect();
    let signature = params.iter().map(|(binding, _, required)| match required {
        true => quote!(#binding: &str),
        false => quote!(#binding: ::core::option::Option<&str>),
    });
    let values = params.iter().map(|(binding, wire, required)| match required {
        true => quote!((#wire, ::core::option::Option::Some(#binding))),
        false => quote!((#wire, #binding)),
    });
    let body = quote! {
        let __mcp_arguments: ::std::vec::Vec<(&str, ::core::option::Option<&str>)> = ::std::vec![#(#values),*];
        client.get_prompt(#name, __mcp_arguments.into_iter().filter_map(|(name, value)| Some((name, value?)))).await
    };
    let output = quote!(#krate::GetPromptResult);
    let stub =
        stub_fn(krate, prompt, format!("Renders the prompt `{name}`."), &function, (signature.collect(), output), body);
    Some((function.to_string(), stub))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_become_snake_case_identifiers() {
        let cases = [
            ("add", "add"),
            ("get-weather", "get_weather"),
            ("getWeather", "get_weather"),
            ("files.read", "files_read"),
            ("type", "r#type"),
            ("2fa", "_2fa"),
            ("--", "unnamed"),
        ];
        for (wire, expected) in cases {
            assert_eq!(ident(wire).to_string(), expected, "{wire}");
        }
    }

    #[test]
    fn schemas_map_to_rust_types() {
        let krate = quote!(::m);
        let ty = |schema: Value| rust_type(&krate, &schema).to_string().replace(' ', "");
        assert_eq!(ty(serde_json::json!({"type": "number"})), "f64");
        assert_eq!(ty(serde_json::json!({"type": ["integer", "null"]})), "::core::option::Option<i64>");
        assert_eq!(
            ty(serde_json::json!({"type": "array", "items": {"type": "string"}})),
            "::std::vec::Vec<::std::string::String>"
        );
        assert_eq!(ty(serde_json::json!({"$ref": "#/$defs/Point"})), "::m::__private::serde_json::Value");
    }
}
