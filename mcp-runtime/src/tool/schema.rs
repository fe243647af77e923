//! JSON Schemas of tool inputs and outputs, generated once per tool by schemars (2020-12).

use schemars::JsonSchema;
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

/// The input schema of a tool whose arguments deserialize into `T` (a generated struct).
pub fn input_schema_for<T: JsonSchema>() -> Map<String, Value> {
    let mut map = root_schema_for::<T>();
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
