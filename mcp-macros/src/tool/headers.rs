//! `x-mcp-header`: the arguments a tool mirrors in `Mcp-Param-{Name}` HTTP headers, and the
//! rules their names and types follow, checked here so that no client has to drop the tool.
//! They come from `#[mcp(header = "...")]` on parameters or, with `input_schema`, from the
//! annotations in the hand-written schema.

use super::attr::ToolOptions;
use crate::diagnostics::Errors;
use crate::handler::HandlerFn;
use quote::ToTokens;
use serde_json::Value;
use std::collections::HashMap;
use syn::{GenericArgument, PathArguments, Type};

/// One mirrored argument: the header's name part and the chain of `properties` keys that
/// leads to the argument (one key for a parameter).
pub(crate) struct Mirrored {
    pub name: String,
    pub path: Vec<String>,
}

const EXAMPLE: &str = "#[mcp(header = \"Region\")]";

/// The mirrored arguments, as far as they could be read (the checks report the rest).
pub(crate) fn mirrored(tool: &HandlerFn, options: &ToolOptions) -> Vec<Mirrored> {
    match &options.input_schema {
        Some(schema) => serde_json::from_str(&schema.value())
            .ok()
            .and_then(|schema| annotations(&schema).ok())
            .unwrap_or_default()
            .into_iter()
            .map(|(path, name)| Mirrored { name, path })
            .collect(),
        None => tool
            .arguments()
            .filter_map(|p| Some(Mirrored { name: p.options.header.as_ref()?.value(), path: vec![p.wire_name()] }))
            .collect(),
    }
}

/// Checks every `header` option and every annotation of `input_schema`, each error on the
/// literal it concerns.
pub(crate) fn check(tool: &HandlerFn, options: &ToolOptions, errors: &mut Errors) {
    let mut seen = HashMap::new();
    for param in tool.arguments() {
        let Some(header) = &param.options.header else { continue };
        if options.input_schema.is_some() {
            errors.error(
                header,
                format!(
                    "`header` has no effect with `input_schema`, which is sent as written: put `\"x-mcp-header\": \"{}\"` on the property `{}` of `input_schema` instead",
                    header.value(),
                    param.wire_name()
                ),
            );
            continue;
        }
        let name = header.value();
        if let Some(problem) = name_problem(&name) {
            errors.error(header, format!("{problem}, e.g. `{EXAMPLE}`"));
        } else if let Some(first) = seen.insert(name.to_ascii_lowercase(), name.clone()) {
            errors.error(
                header,
                format!("`{first}` and `{name}` name the same header, `Mcp-Param-{first}` (header names ignore case): give each argument a header of its own"),
            );
        }
        if let Some(problem) = type_problem(&param.ty) {
            errors.error(&param.ty, problem);
        }
    }
    if let Some(schema) = &options.input_schema
        && let Ok(value) = serde_json::from_str::<Value>(&schema.value())
        && let Err(problem) = annotations(&value)
    {
        errors.error(schema, format!("in `input_schema`: {problem}"));
    }
}

/// Why `name` cannot be an `x-mcp-header` value: it must be an HTTP field-name token
/// (`1*tchar`, RFC 9110 §5.6.2), which leaves out spaces, control characters and non-ASCII.
fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a header name cannot be empty: write the name that follows `Mcp-Param-` in the header".into());
    }
    let bad = name.chars().find(|&c| !is_tchar(c))?;
    Some(format!(
        "`{}` cannot name a header: {bad:?} is not allowed there; use letters, digits and ``!#$%&'*+-.^_`|~``",
        name.escape_debug()
    ))
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

const INTEGERS: &[&str] = &["i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"];

/// Why a parameter of type `ty` cannot carry a header: the spec allows strings, integers and
/// booleans (not numbers), which the macro recognises by the type's name, optionally in an
/// `Option` (the client then sends the header only when the argument is given).
fn type_problem(ty: &Type) -> Option<String> {
    let inner = option_inner(ty).unwrap_or(ty);
    let name = last_ident(inner);
    match name.as_deref() {
        Some("String" | "char" | "bool") => None,
        Some(int) if INTEGERS.contains(&int) => None,
        Some(float @ ("f32" | "f64")) => Some(format!(
            "`{float}` cannot be mirrored in a header: `x-mcp-header` is for strings, integers and booleans (a JSON number has no single text form); take an integer type such as `i64`, or a `String`"
        )),
        _ => Some(format!(
            "`{}` cannot be mirrored in a header: `x-mcp-header` is for strings, integers and booleans; take a `String`, an integer type such as `i64` or `bool` (or an `Option` of one, for an optional argument)",
            ty.to_token_stream().to_string().replace(' ', "")
        )),
    }
}

/// `T` of `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last().filter(|s| s.ident == "Option")?;
    let PathArguments::AngleBracketed(arguments) = &segment.arguments else { return None };
    match arguments.args.first() {
        Some(GenericArgument::Type(inner)) if arguments.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// The type's name, for a plain path without generic arguments (`String`, `std::string::String`).
fn last_ident(ty: &Type) -> Option<String> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    matches!(segment.arguments, PathArguments::None).then(|| segment.ident.to_string())
}

/// Keywords whose value is a schema (or a list or map of them) but not a property of the
/// arguments: an annotation below one is not reachable through `properties` alone.
const SUBSCHEMA: &[&str] = &[
    "items",
    "contains",
    "unevaluatedItems",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
const SUBSCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS: &[&str] = &["patternProperties", "dependentSchemas", "$defs", "definitions"];

/// The `x-mcp-header` annotations of a hand-written schema, `(path, name)`, or the first
/// rule one breaks. The walk enters schema keywords only (never `default`, `enum` or other
/// data) and does not follow `$ref`.
fn annotations(schema: &Value) -> Result<Vec<(Vec<String>, String)>, String> {
    let mut found = Vec::new();
    let mut seen: HashMap<String, (String, String)> = HashMap::new();
    let mut stack: Vec<(Option<Vec<String>>, &Value)> = vec![(Some(Vec::new()), schema)];
    while let Some((path, node)) = stack.pop() {
        let Value::Object(object) = node else { continue };
        if let Some(header) = object.get("x-mcp-header") {
            let path = path.clone().filter(|p| !p.is_empty()).ok_or_else(|| {
                "an `x-mcp-header` must sit on a property reached from the root through `properties` alone (not through `items`, `$ref`, `anyOf`...): move it to such a property".to_owned()
            })?;
            let at = path.join(".");
            let Value::String(name) = header else {
                return Err(format!("`x-mcp-header` of `{at}` must be a string, e.g. `\"x-mcp-header\": \"Region\"`"));
            };
            if let Some(problem) = name_problem(name) {
                return Err(format!("{problem}, e.g. `\"x-mcp-header\": \"Region\"` (property `{at}`)"));
            }
            let ty = object.get("type").and_then(Value::as_str).unwrap_or_default();
            if !matches!(ty, "string" | "integer" | "boolean") {
                return Err(format!(
                    "the property `{at}` carries an `x-mcp-header`, so its `type` must be \"string\", \"integer\" or \"boolean\" (a single one, not an array)"
                ));
            }
            if let Some((first, header)) = seen.insert(name.to_ascii_lowercase(), (at.clone(), name.clone())) {
                return Err(format!(
                    "`{first}` and `{at}` are mirrored in the same header, `Mcp-Param-{header}` (header names ignore case): give each a header of its own"
                ));
            }
            found.push((path, name.clone()));
        }
        for (keyword, value) in object {
            let keyword = keyword.as_str();
            if keyword == "properties"
                && let Value::Object(properties) = value
            {
                // In reverse, so that they are popped, and reported, in order.
                for (name, property) in properties.iter().rev() {
                    let path = path.as_ref().map(|p| p.iter().cloned().chain([name.clone()]).collect());
                    stack.push((path, property));
                }
            } else if SUBSCHEMA.contains(&keyword) {
                stack.push((None, value));
            } else if SUBSCHEMA_LISTS.contains(&keyword)
                && let Value::Array(items) = value
            {
                stack.extend(items.iter().map(|item| (None, item)));
            } else if SUBSCHEMA_MAPS.contains(&keyword)
                && let Value::Object(map) = value
            {
                stack.extend(map.values().map(|item| (None, item)));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotated(json: &str) -> Result<Vec<(Vec<String>, String)>, String> {
        annotations(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn names_are_tokens() {
        assert_eq!(name_problem("Region"), None);
        assert_eq!(name_problem("X-Tenant_id.2"), None);
        for bad in ["", "My Region", "Region:Primary", "Région", "Region\t1", "Region\r\n"] {
            assert!(name_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn types_are_read_from_the_tokens() {
        for good in ["String", "std::string::String", "i64", "u8", "bool", "Option<String>", "Option<u32>", "char"] {
            assert_eq!(type_problem(&syn::parse_str(good).unwrap()), None, "{good}");
        }
        for bad in ["f64", "Option<f32>", "Vec<String>", "Option<Option<String>>", "serde_json::Value", "(i32, i32)"] {
            assert!(type_problem(&syn::parse_str(bad).unwrap()).is_some(), "{bad}");
        }
    }

    #[test]
    fn schema_annotations_follow_properties_only() {
        let nested = r#"{"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "job":{"type":"object","properties":{"id":{"type":"integer","x-mcp-header":"Job"}}},
            "tags":{"type":"array","items":{"type":"string"}},
            "note":{"type":"string","default":{"x-mcp-header":"data, not a schema"}}}}"#;
        let found = annotated(nested).unwrap();
        let names: Vec<_> = found.iter().map(|(path, name)| (path.join("."), name.as_str())).collect();
        assert_eq!(names, [("job.id".to_owned(), "Job"), ("region".to_owned(), "Region")]);
        for bad in [
            r#"{"type":"object","x-mcp-header":"Root"}"#,
            r#"{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}"#,
            r#"{"type":"object","properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}}"#,
            r#"{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}"#,
            r#"{"type":"object","properties":{"a":{"type":["string","null"],"x-mcp-header":"A"}}}"#,
            r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A b"}}}"#,
            r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}"#,
        ] {
            assert!(annotated(bad).is_err(), "{bad}");
        }
    }
}
