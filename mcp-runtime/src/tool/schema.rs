//! JSON Schemas of tool inputs and outputs, generated once per tool by schemars (2020-12).

use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value};

fn root_schema_for<T: JsonSchema>() -> Map<String, Value> {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    let map = match schema.as_object_mut() {
        Some(map) => std::mem::take(map),
        None => Map::new(), // `true`/`false` schemas: nothing useful to keep
    };
    tidy(map)
}

/// Drops what only adds bytes to every `tools/list` (the Rust type's title, the dialect that
/// is the protocol's default anyway).
fn tidy(mut map: Map<String, Value>) -> Map<String, Value> {
    map.remove("title");
    map.remove("$schema");
    map
}

/// The key whose presence marks an injected parameter's property (`NotAnArgument`'s schema),
/// for [`input_schema_for`] to drop.
pub(crate) const NOT_AN_ARGUMENT: &str = "x-mcp-not-an-argument";

/// Removes the properties of injected parameters (and their `required` entries) from a tool's
/// input schema.
fn drop_injected(schema: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::Value;
    let Some(Value::Object(properties)) = schema.get_mut("properties") else { return };
    let injected: Vec<String> =
        properties.iter().filter(|(_, p)| p.get(NOT_AN_ARGUMENT).is_some()).map(|(name, _)| name.clone()).collect();
    if injected.is_empty() {
        return;
    }
    properties.retain(|name, _| !injected.contains(name));
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|name| !name.as_str().is_some_and(|n| injected.iter().any(|i| i == n)));
        if required.is_empty() {
            schema.remove("required");
        }
    }
}

/// Gives each property mirrored in a header (`x-mcp-header`) a single type: an `Option<T>`
/// argument's schema says `"type": ["string", "null"]`, which clients refuse on a mirrored
/// property (the spec allows string, integer and boolean). Not sending the argument, or
/// sending `null`, still means no header.
fn single_header_types(schema: &mut Map<String, Value>) {
    let Some(Value::Object(properties)) = schema.get_mut("properties") else { return };
    for property in properties.values_mut() {
        let Some(property) = property.as_object_mut().filter(|p| p.contains_key("x-mcp-header")) else { continue };
        let Some(Value::Array(types)) = property.get("type") else { continue };
        let mut non_null = types.iter().filter(|t| t.as_str() != Some("null"));
        if let (Some(only), None) = (non_null.next().cloned(), non_null.next()) {
            property.insert("type".into(), only);
        }
    }
}

/// The input schema of a tool whose arguments deserialize into `T` (a generated struct).
/// Injected parameters' fields are left out.
pub fn input_schema_for<T: JsonSchema>() -> Map<String, Value> {
    // The struct's own `json_schema` is all that depends on `T`: the rest is compiled once, not
    // once per tool (`into_root_schema_for::<T>` was a tenth of a 103-tool server's LLVM IR).
    input_schema_with(T::json_schema)
}

/// [`input_schema_for`] from the struct's `JsonSchema::json_schema`. What
/// `into_root_schema_for` adds for a root that may refer to itself is left out: a generated
/// arguments struct never does.
fn input_schema_with(json_schema: fn(&mut SchemaGenerator) -> schemars::Schema) -> Map<String, Value> {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut map = match json_schema(&mut generator).to_value() {
        Value::Object(map) => map,
        _ => Map::new(), // `true`/`false` schemas: nothing useful to keep
    };
    let mut definitions = generator.take_definitions(false);
    if !definitions.is_empty() {
        match map.entry("$defs").or_insert_with(|| Value::Object(Map::new())) {
            Value::Object(defs) => defs.append(&mut definitions),
            other => *other = Value::Object(definitions),
        }
    }
    let mut map = tidy(map);
    drop_injected(&mut map);
    single_header_types(&mut map);
    map.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    map
}

/// The output schema for `Json<T>`: an object, wrapping a non-object `T` as `{"result": T}`.
pub(crate) fn output_schema_for<T: JsonSchema>() -> Map<String, Value> {
    let mut map = root_schema_for::<T>();
    if map.get("type").and_then(Value::as_str) == Some("object") {
        return map;
    }
    let defs = map.remove("$defs");
    let mut wrapped = Map::new();
    wrapped.insert("type".into(), "object".into());
    wrapped.insert("properties".into(), serde_json::json!({ "result": map }));
    wrapped.insert("required".into(), serde_json::json!(["result"]));
    if let Some(defs) = defs {
        wrapped.insert("$defs".into(), defs);
    }
    wrapped
}

/// A hand-written schema kept verbatim; the macro has already checked that it parses.
pub fn verbatim_schema(json: &str) -> Map<String, Value> {
    serde_json::from_str(json).unwrap_or_default()
}
