//! Whether a tool's input schema says more than serde enforces when it decodes the arguments
//! into the function's types. Only such a tool gets an argument check (`check.rs`); a tool of
//! plain types keeps its single borrowed decode and pays nothing more per call.
//!
//! A derived schema (schemars, from the argument types) describes what serde decodes, so what
//! serde refuses anyway is implied: `type`, a struct's `properties` and `required`, `items`, a
//! map's `additionalProperties` schema, `$ref`s, an integer type's own bounds (`"format":
//! "uint8", "minimum": 0, "maximum": 255`), `Option`'s `anyOf` with `null`, and a Rust enum's
//! variants: the `enum`, `oneOf` or `anyOf` of a named type (an entry of `$defs`), and inside
//! its variants their tags (`const`, `enum`) and an externally tagged variant's
//! `additionalProperties: false`. Every other keyword is a constraint, a keyword this file
//! does not know included (when in doubt, check): `#[mcp(range(..))]` and `#[schemars(..)]`
//! bounds, lengths and patterns, a standard `format`, a set's `uniqueItems`, a struct's
//! `additionalProperties: false`, an `enum` written on a field, the combinators.
//!
//! A hand-written schema (`#[mcp_tool(input_schema = ..)]`, or a mounted server's) describes
//! no Rust type: anything it says beyond `{"type": "object"}` gets a check.
//!
//! What a derived schema cannot show is a type whose `Deserialize` accepts more than its
//! `JsonSchema` says (`#[serde(alias)]`, `deserialize_with`, a hand-written impl), or an
//! `Option` that `#[schemars(required)]` makes required (it reads as a plain required field):
//! there the schema is trusted.

use super::vocabulary::{ANNOTATIONS, STANDARD_FORMATS};
use serde_json::{Map, Value};

/// Who wrote a tool's input schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SchemaSource {
    /// schemars, from the types of the function's arguments.
    Derived,
    /// A person, as JSON (`#[mcp_tool(input_schema = ..)]`), or a mounted server.
    Verbatim,
}

/// Whether `schema` says anything serde's decode of the arguments does not enforce.
pub(crate) fn beyond_types(schema: &Map<String, Value>, source: SchemaSource) -> bool {
    match source {
        SchemaSource::Derived => !implied(schema, Place::Value),
        SchemaSource::Verbatim => schema.iter().any(|(keyword, value)| match keyword.as_str() {
            "type" => value != "object",
            "properties" => value.as_object().is_none_or(|properties| !properties.is_empty()),
            keyword => !is_annotation(keyword),
        }),
    }
}

/// Where a subschema sits in a derived schema, which decides what serde's decode implies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A value of some Rust type: the arguments, a field, an item.
    Value,
    /// The whole schema of a named type (an entry of `$defs`): an enum's `enum`, `oneOf` or
    /// `anyOf` lists its variants.
    Type,
    /// One variant of a named enum (a branch of its `oneOf` or `anyOf`).
    Variant,
    /// A property of a variant: an internally or adjacently tagged variant's tag.
    Tag,
}

/// Whether every keyword of `schema`, at `place`, is one serde's decode enforces.
fn implied(schema: &Map<String, Value>, place: Place) -> bool {
    schema.iter().all(|(keyword, value)| match keyword.as_str() {
        "type" | "required" | "$ref" => true,
        "format" => value.as_str().is_some_and(|format| !STANDARD_FORMATS.contains(&format)),
        "minimum" | "maximum" => integer_bound(schema, keyword, value),
        "properties" => {
            let place = if place == Place::Variant { Place::Tag } else { Place::Value };
            value.as_object().is_some_and(|properties| properties.values().all(|s| subschema(s, place)))
        }
        "$defs" => value.as_object().is_some_and(|types| types.values().all(|s| subschema(s, Place::Type))),
        "items" => subschema(value, Place::Value),
        "additionalProperties" => match value {
            Value::Bool(false) => place == Place::Variant,
            map_values => subschema(map_values, Place::Value),
        },
        "enum" => matches!(place, Place::Type | Place::Variant),
        "const" => matches!(place, Place::Variant | Place::Tag),
        "oneOf" | "anyOf" if place == Place::Type => {
            value.as_array().is_some_and(|variants| variants.iter().all(|s| subschema(s, Place::Variant)))
        }
        "anyOf" => is_option(value),
        keyword => is_annotation(keyword),
    })
}

fn subschema(schema: &Value, place: Place) -> bool {
    match schema {
        Value::Object(schema) => implied(schema, place),
        // `true` accepts anything (a `serde_json::Value`); `false` nothing, which serde does not.
        Value::Bool(accepts) => *accepts,
        _ => false,
    }
}

/// `Option<T>` of a named `T`: `"anyOf": [T, {"type": "null"}]`.
fn is_option(branches: &Value) -> bool {
    let Some([first, second]) = branches.as_array().map(Vec::as_slice) else { return false };
    let null =
        |schema: &Value| schema.as_object().is_some_and(|s| s.len() == 1 && s.get("type") == Some(&"null".into()));
    (null(second) && subschema(first, Place::Value)) || (null(first) && subschema(second, Place::Value))
}

/// Whether `keyword` only describes (`x-` extensions such as `x-mcp-header` included).
fn is_annotation(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword) || keyword == "$schema" || keyword.starts_with("x-")
}

/// Whether a `minimum`/`maximum` is only the range of the integer type its `format` names
/// (schemars writes `"format": "uint8", "minimum": 0, "maximum": 255` for a `u8`).
fn integer_bound(schema: &Map<String, Value>, bound: &str, value: &Value) -> bool {
    let Some(format) = schema.get("format").and_then(Value::as_str) else { return false };
    let range: (f64, f64) = match format {
        "uint8" => (0.0, u8::MAX as f64),
        "uint16" => (0.0, u16::MAX as f64),
        "uint32" => (0.0, u32::MAX as f64),
        "uint64" | "uint" => (0.0, u64::MAX as f64),
        "uint128" => (0.0, u128::MAX as f64),
        "int8" => (i8::MIN as f64, i8::MAX as f64),
        "int16" => (i16::MIN as f64, i16::MAX as f64),
        "int32" => (i32::MIN as f64, i32::MAX as f64),
        "int64" | "int" => (i64::MIN as f64, i64::MAX as f64),
        _ => return false,
    };
    let implied = if bound == "minimum" { range.0 } else { range.1 };
    value.as_f64() == Some(implied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::schema::input_schema_for;
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;
    use std::collections::{BTreeMap, HashMap};

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    enum Size {
        Small,
        Large,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    enum Documented {
        /// Small.
        Small,
        /// Large.
        Large,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    enum Shape {
        Point,
        Circle(u32),
        Rect { width: u16, height: u16 },
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "kind")]
    enum Tagged {
        A,
        B { x: i8 },
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        A,
        B(String),
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    #[serde(untagged)]
    enum Either {
        Number(i64),
        Text(String),
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Inner {
        size: Option<Size>,
        sizes: Vec<Documented>,
        note: Option<String>,
        #[serde(default)]
        flag: bool,
    }

    /// Every plain type, each a field: serde refuses whatever this schema refuses.
    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Plain {
        a: u8,
        b: i8,
        c: u16,
        d: i32,
        e: u32,
        f: u64,
        g: i64,
        h: usize,
        i: u128,
        j: f32,
        k: f64,
        l: bool,
        m: String,
        n: Option<u32>,
        o: Vec<String>,
        p: HashMap<String, u32>,
        q: BTreeMap<String, Inner>,
        r: Size,
        s: Documented,
        t: Shape,
        u: Tagged,
        v: Adjacent,
        w: Either,
        x: Inner,
        y: Option<Shape>,
        z: serde_json::Value,
        boxed: Box<Inner>,
        path: std::path::PathBuf,
    }

    #[test]
    fn a_derived_schema_of_plain_types_says_nothing_serde_does_not_enforce() {
        assert!(!beyond_types(&input_schema_for::<Plain>(), SchemaSource::Derived));
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Ranged {
        #[schemars(range(min = 1, max = 5))]
        stars: u8,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Listed {
        #[schemars(extend("enum" = ["small", "large"]))]
        size: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    #[schemars(deny_unknown_fields)]
    struct Closed {
        name: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Nested {
        closed: Closed,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Contact {
        #[schemars(email)]
        email: String,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Tags {
        tags: std::collections::HashSet<String>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct InVariant {
        shape: Option<Bounded>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    enum Bounded {
        Circle(#[schemars(range(max = 10))] u32),
    }

    #[test]
    fn a_derived_schema_with_constraints_beyond_its_types_is_checked() {
        let derived = |schema: Map<String, Value>| beyond_types(&schema, SchemaSource::Derived);
        assert!(derived(input_schema_for::<Ranged>()), "a range beyond u8's");
        assert!(derived(input_schema_for::<Listed>()), "an enum written on a String");
        assert!(derived(input_schema_for::<Nested>()), "additionalProperties: false on a struct");
        assert!(derived(input_schema_for::<Contact>()), "format: email");
        assert!(
            derived(input_schema_for::<Tags>()),
            "a set's uniqueItems: serde keeps duplicates out, it does not refuse them"
        );
        assert!(derived(input_schema_for::<InVariant>()), "a bound inside an enum's variant");
        for unknown in ["not", "allOf", "if", "dependentRequired", "propertyNames", "x", "minItems"] {
            let schema = json!({"type": "object", "properties": {"a": {"type": "string", unknown: {}}}});
            assert!(derived(schema.as_object().unwrap().clone()), "{unknown}");
        }
    }

    #[test]
    fn a_hand_written_schema_is_checked_unless_it_says_only_type_object() {
        let verbatim = |schema: Value| beyond_types(schema.as_object().unwrap(), SchemaSource::Verbatim);
        assert!(!verbatim(json!({})));
        assert!(!verbatim(json!({"type": "object", "properties": {}, "description": "anything"})));
        assert!(verbatim(json!({"type": "object", "properties": {"a": {"type": "string"}}})));
        assert!(verbatim(json!({"type": "object", "required": ["a"]})));
        assert!(verbatim(json!({"type": "object", "additionalProperties": false})));
        assert!(verbatim(json!({"type": "array"})));
    }
}
