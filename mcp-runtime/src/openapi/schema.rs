//! The schemas of an OpenAPI document as the JSON Schema 2020-12 a tool lists: each local
//! `$ref` (`#/definitions/..`, `#/components/..`) replaced by what it points at, and the
//! keywords of OpenAPI 3.0 and Swagger 2.0 that mean something else in 2020-12 rewritten
//! (`nullable`, `x-nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`). A 3.1 schema is
//! 2020-12 already and passes through.

use serde_json::{Map, Value};

/// How deep references are followed: deeper, or back into a schema being expanded (a recursive
/// type), the schema is left open (`{}`), which accepts what the service accepts.
const MAX_DEPTH: usize = 32;

/// `schema` with its references inlined from `document` and its keywords made 2020-12.
pub(super) fn resolve(schema: &Value, document: &Value) -> Value {
    Resolver { document, expanding: Vec::new() }.value(schema)
}

/// What a `$ref` points at in `document` (a JSON pointer after `#`), references inside it left as
/// they are: for parameters and bodies given by reference.
pub(super) fn follow<'a>(value: &'a Value, document: &'a Value) -> &'a Value {
    let mut value = value;
    for _ in 0..MAX_DEPTH {
        match target(value, document) {
            Some(target) => value = target,
            None => break,
        }
    }
    value
}

fn target<'a>(value: &Value, document: &'a Value) -> Option<&'a Value> {
    let pointer = value.get("$ref")?.as_str()?.strip_prefix('#')?;
    document.pointer(pointer)
}

struct Resolver<'a> {
    document: &'a Value,
    /// The references being expanded, outermost first.
    expanding: Vec<String>,
}

impl Resolver<'_> {
    fn value(&mut self, value: &Value) -> Value {
        match value {
            Value::Object(map) => self.object(map),
            Value::Array(items) => Value::Array(items.iter().map(|item| self.value(item)).collect()),
            other => other.clone(),
        }
    }

    fn object(&mut self, map: &Map<String, Value>) -> Value {
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.reference(reference);
        }
        let mut out = Map::with_capacity(map.len());
        for (key, value) in map {
            // `example`, `xml`, `discriminator`...: annotations a JSON Schema validator ignores.
            out.insert(key.clone(), self.value(value));
        }
        dialect(&mut out);
        Value::Object(out)
    }

    fn reference(&mut self, reference: &str) -> Value {
        let Some(found) = reference.strip_prefix('#').and_then(|pointer| self.document.pointer(pointer)) else {
            tracing::warn!(reference, "an OpenAPI reference that is not in the document is left open");
            return Value::Object(Map::new());
        };
        if self.expanding.len() >= MAX_DEPTH || self.expanding.iter().any(|open| open == reference) {
            return Value::Object(Map::new());
        }
        self.expanding.push(reference.to_owned());
        let resolved = self.value(found);
        self.expanding.pop();
        resolved
    }
}

/// OpenAPI 3.0's and Swagger 2.0's keywords as 2020-12 says them.
fn dialect(schema: &mut Map<String, Value>) {
    let nullable = [schema.remove("nullable"), schema.remove("x-nullable")].into_iter().flatten().any(|n| n == true);
    if nullable {
        match schema.get_mut("type") {
            Some(Value::String(single)) => {
                let single = std::mem::take(single);
                schema.insert("type".into(), Value::Array(vec![single.into(), "null".into()]));
            }
            Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => types.push("null".into()),
            _ => {}
        }
    }
    for (exclusive, bound) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
        if let Some(Value::Bool(is_exclusive)) = schema.get(exclusive) {
            let is_exclusive = *is_exclusive;
            schema.remove(exclusive);
            if is_exclusive && let Some(bound_value) = schema.remove(bound) {
                schema.insert(exclusive.into(), bound_value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_are_inlined_and_a_recursive_one_left_open() {
        let document = json!({
            "definitions": {
                "Pet": {"type": "object", "properties": {"tag": {"$ref": "#/definitions/Tag"}, "parent": {"$ref": "#/definitions/Pet"}}},
                "Tag": {"type": "string", "nullable": true, "minimum": 1, "exclusiveMinimum": true},
            }
        });
        let resolved = resolve(&json!({"$ref": "#/definitions/Pet"}), &document);
        assert_eq!(resolved["properties"]["tag"], json!({"type": ["string", "null"], "exclusiveMinimum": 1}));
        assert_eq!(resolved["properties"]["parent"], json!({}));
        assert_eq!(resolve(&json!({"$ref": "#/definitions/Missing"}), &document), json!({}));
    }
}
