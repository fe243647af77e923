//! Arguments checked against the constraints a tool's input schema advertises (feature
//! `validation`): ranges, lengths, patterns, item counts, from `#[mcp(range(..))]`,
//! `#[schemars(..)]` on fields, or a hand-written `input_schema`. Checked before the function
//! runs; a violation is a tool error result naming the field, so the model can correct its call.
//!
//! Only tools whose schema constrains something beyond its types get a check (a validator
//! compiled once, when the catalog is built): what a Rust type implies (an integer's bounds, an
//! enum's values) serde enforces while decoding, so plain tools keep their single decode.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The compiled constraints of one tool's arguments.
pub(crate) struct ArgumentCheck(jsonschema::Validator);

/// Keywords that constrain a value beyond its type.
const CONSTRAINTS: [&str; 11] = [
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minProperties",
    "maxProperties",
];

impl ArgumentCheck {
    /// The check of `schema`, if it constrains anything its types do not.
    pub fn of(tool: &str, schema: &Map<String, Value>) -> Option<Self> {
        let schema = Value::Object(schema.clone());
        if !constrains(&schema) {
            return None;
        }
        match jsonschema::validator_for(&schema) {
            Ok(validator) => Some(Self(validator)),
            Err(err) => {
                tracing::warn!(tool, "the input schema does not compile, so its constraints are not checked: {err}");
                None
            }
        }
    }

    /// `Err` with a message naming each field that breaks a constraint.
    pub fn check(&self, tool: &str, arguments: Option<&RawValue>) -> Result<(), String> {
        // Arguments that do not parse fail with serde's message when the call decodes them.
        let Ok(value) = serde_json::from_str::<Value>(arguments.map_or("{}", RawValue::get)) else { return Ok(()) };
        let problems: Vec<String> = self
            .0
            .iter_errors(&value)
            .map(|error| {
                let path = error.instance_path().to_string();
                let field = path.trim_start_matches('/').replace('/', ".");
                if field.is_empty() { error.to_string() } else { format!("`{field}`: {error}") }
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!("invalid arguments for tool `{tool}`: {}", problems.join("; ")))
        }
    }
}

/// Whether `schema` (anywhere inside) constrains a value beyond what its type says.
fn constrains(schema: &Value) -> bool {
    match schema {
        Value::Object(object) => {
            CONSTRAINTS.iter().any(|keyword| object.contains_key(*keyword))
                || ["minimum", "maximum"]
                    .iter()
                    .any(|bound| object.get(*bound).is_some_and(|v| !implied(object, bound, v)))
                || object.values().any(constrains)
        }
        Value::Array(items) => items.iter().any(constrains),
        _ => false,
    }
}

/// Whether a `minimum`/`maximum` is only the range of the integer type its `format` names
/// (schemars writes `"format": "uint8", "minimum": 0, "maximum": 255` for a `u8`).
fn implied(object: &Map<String, Value>, bound: &str, value: &Value) -> bool {
    let Some(format) = object.get("format").and_then(Value::as_str) else { return false };
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
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn only_schemas_that_constrain_more_than_their_types_are_checked() {
        let plain = json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}, "s": {"type": "string"}}});
        assert!(ArgumentCheck::of("t", &object(plain)).is_none());
        let ranged = json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint8", "minimum": 1, "maximum": 5}}});
        let check = ArgumentCheck::of("t", &object(ranged)).expect("a range beyond u8's");
        assert!(check.check("t", Some(&RawValue::from_string(r#"{"n": 3}"#.into()).unwrap())).is_ok());
        let error = check.check("t", Some(&RawValue::from_string(r#"{"n": 9}"#.into()).unwrap())).unwrap_err();
        assert!(
            error.starts_with("invalid arguments for tool `t`: `n`: 9 is greater than the maximum of 5"),
            "{error}"
        );
    }
}
