//! `key=value` words from the command line turned into a tool's JSON arguments, each value typed
//! by the property's schema: `a=2` is the number 2 for a `number`, the text "2" for a `string`.
//! `key:=JSON` passes a value as raw JSON (`tags:='["a","b"]'`), as httpie does.

use serde_json::{Map, Number, Value};

/// Arguments from `words`, typed by `schema` (a tool's `inputSchema`; `None` types nothing:
/// every value is tried as JSON, else taken as text). Errors name the argument and say what
/// was expected, listing the arguments the tool takes.
pub fn from_words(words: &[String], schema: Option<&Value>) -> Result<Value, String> {
    let properties = schema.and_then(|s| s.get("properties")).and_then(Value::as_object);
    let mut arguments = Map::new();
    for word in words {
        let (key, raw, is_json) = match (word.find(":="), word.find('=')) {
            (Some(colon), Some(eq)) if colon < eq => (&word[..colon], &word[colon + 2..], true),
            (_, Some(eq)) => (&word[..eq], &word[eq + 1..], false),
            (Some(colon), None) => (&word[..colon], &word[colon + 2..], true),
            (None, None) => {
                return Err(format!(
                    "`{word}` is not an argument: write key=value (or key:=JSON for a raw JSON value)"
                ));
            }
        };
        if key.is_empty() {
            return Err(format!("`{word}` has no argument name before `=`"));
        }
        let property = match (schema, properties.and_then(|p| p.get(key))) {
            (_, Some(property)) => Some(resolve(schema.unwrap_or(&Value::Null), property)),
            (Some(root), None) if properties.is_some() => {
                let hint = field_hint(root, key, raw).unwrap_or_default();
                return Err(format!("no argument `{key}`: {}{hint}", describe_arguments(schema)));
            }
            _ => None,
        };
        let value = if is_json {
            serde_json::from_str(raw).map_err(|e| format!("`{key}:=` needs a JSON value ({e}): {raw}"))?
        } else {
            typed(key, raw, property)?
        };
        arguments.insert(key.to_owned(), value);
    }
    if let Some(schema) = schema {
        let missing: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|name| !arguments.contains_key(*name))
            .collect();
        if !missing.is_empty() {
            let names = missing.iter().map(|n| format!("{n}=...")).collect::<Vec<_>>().join(" ");
            return Err(format!("missing required argument(s): {names} ({})", describe_arguments(Some(schema))));
        }
    }
    Ok(Value::Object(arguments))
}

/// When `key` is no argument but a field of an argument that is an object (`todo: NewTodo`):
/// how to pass that object, `; \`title\` is a field of \`todo\`: todo:='{"title": "x"}'`.
fn field_hint(root: &Value, key: &str, raw: &str) -> Option<String> {
    let properties = root.get("properties")?.as_object()?;
    properties.iter().find_map(|(argument, property)| {
        let field = resolve(root, property).get("properties")?.get(key)?;
        let value = typed(key, raw, Some(resolve(root, field))).unwrap_or_else(|_| Value::String(raw.to_owned()));
        let object = Value::Object(Map::from_iter([(key.to_owned(), value)]));
        Some(format!("; `{key}` is a field of `{argument}`, an object: pass it whole as JSON, {argument}:='{object}'"))
    })
}

/// `the tool takes a (number, required), b (string)`, for error messages and `list`.
pub fn describe_arguments(schema: Option<&Value>) -> String {
    let Some(schema) = schema else { return "the tool declares no arguments".into() };
    let signature = signature(schema);
    if signature.is_empty() { "the tool takes no arguments".into() } else { format!("the tool takes {signature}") }
}

/// `a: number, b?: string`: each property with its type, `?` when optional.
pub fn signature(schema: &Value) -> String {
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return String::new() };
    properties
        .iter()
        .map(|(name, property)| {
            let property = resolve(schema, property);
            let optional = if required.contains(&name.as_str()) { "" } else { "?" };
            format!("{name}{optional}: {}", type_name(property))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn type_name(schema: &Value) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().map(Value::to_string).collect::<Vec<_>>().join(" | ");
    }
    let types = accepted_types(schema);
    if types.is_empty() { "any".into() } else { types.join(" | ") }
}

/// Follows a local `$ref` into the root schema.
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..32 {
        match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')).and_then(|p| root.pointer(p))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

/// The JSON types a property accepts, in the order it lists them (`anyOf` variants included).
fn accepted_types(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| schema.get(*k).and_then(Value::as_array))
            .flatten()
            .flat_map(accepted_types)
            .collect(),
    }
}

fn typed(key: &str, raw: &str, property: Option<&Value>) -> Result<Value, String> {
    let types = property.map(accepted_types).unwrap_or_default();
    if types.is_empty() {
        // No type to go by: JSON if it parses (numbers, booleans, objects), else text.
        return Ok(serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned())));
    }
    if raw == "null" && types.iter().any(|t| t == "null") {
        return Ok(Value::Null);
    }
    let mut expected = Vec::new();
    for t in types.iter().filter(|t| *t != "null") {
        let parsed = match t.as_str() {
            "string" => Some(Value::String(raw.to_owned())),
            "integer" => raw.parse::<i64>().ok().map(Value::from).or_else(|| raw.parse::<u64>().ok().map(Value::from)),
            "number" => serde_json::from_str::<Number>(raw).ok().map(Value::Number),
            "boolean" => match raw {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            "array" | "object" => serde_json::from_str::<Value>(raw)
                .ok()
                .filter(|v| if t == "array" { v.is_array() } else { v.is_object() }),
            _ => None,
        };
        match parsed {
            Some(value) => return Ok(value),
            None => expected.push(t.as_str()),
        }
    }
    let hint = if expected.iter().any(|t| *t == "object" || *t == "array") {
        format!(": pass JSON with `:=`, {key}:='{{...}}' (or '[...]' for an array)")
    } else {
        String::new()
    };
    Err(format!("`{key}` must be {} (got `{raw}`){hint}", expected.join(" or ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_owned()).collect()
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "a": {"type": "number"}, "n": {"type": "integer"}, "s": {"type": "string"}, "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}}, "maybe": {"type": ["integer", "null"]},
            "place": {"$ref": "#/$defs/Place"}},
            "required": ["a"], "$defs": {"Place": {"type": "object"}}})
    }

    #[test]
    fn values_are_typed_by_the_schema() {
        let args = from_words(
            &words(&["a=2", "n=3", "s=42", "flag=true", r#"tags=["x"]"#, "maybe=null", r#"place={"city":"Oslo"}"#]),
            Some(&schema()),
        )
        .unwrap();
        assert_eq!(
            args,
            json!({"a": 2, "n": 3, "s": "42", "flag": true, "tags": ["x"], "maybe": null, "place": {"city": "Oslo"}})
        );
        assert_eq!(from_words(&words(&["a=2.5"]), Some(&schema())).unwrap(), json!({"a": 2.5}));
        assert_eq!(from_words(&words(&["a=1", "s=x=y"]), Some(&schema())).unwrap(), json!({"a": 1, "s": "x=y"}));
    }

    #[test]
    fn raw_json_and_untyped_values() {
        assert_eq!(from_words(&words(&["a:=7", "s:=\"q\""]), Some(&schema())).unwrap(), json!({"a": 7, "s": "q"}));
        assert_eq!(from_words(&words(&["x=1", "y=hi"]), None).unwrap(), json!({"x": 1, "y": "hi"}));
    }

    #[test]
    fn mistakes_are_explained() {
        let error = from_words(&words(&["a=two"]), Some(&schema())).unwrap_err();
        assert_eq!(error, "`a` must be number (got `two`)");
        let error = from_words(&words(&["a=1", "n=1.5"]), Some(&schema())).unwrap_err();
        assert_eq!(error, "`n` must be integer (got `1.5`)");
        let error = from_words(&words(&["a=1", "zz=1"]), Some(&schema())).unwrap_err();
        assert!(error.starts_with("no argument `zz`: the tool takes a: number, flag?: boolean"), "{error}");
        let error = from_words(&words(&["n=1"]), Some(&schema())).unwrap_err();
        assert!(error.starts_with("missing required argument(s): a=..."), "{error}");
        let error = from_words(&words(&["a"]), Some(&schema())).unwrap_err();
        assert!(error.contains("key=value"), "{error}");
    }

    #[test]
    fn a_field_of_an_object_argument_is_shown_passed_as_json() {
        let schema = json!({"type": "object", "properties": {
            "todo": {"type": "object", "properties": {"title": {"type": "string"}, "done": {"type": "boolean"}}}},
            "required": ["todo"]});
        let error = from_words(&words(&["title=x"]), Some(&schema)).unwrap_err();
        assert_eq!(
            error,
            r#"no argument `title`: the tool takes todo: object; `title` is a field of `todo`, an object: pass it whole as JSON, todo:='{"title":"x"}'"#
        );
        let error = from_words(&words(&["todo=x"]), Some(&schema)).unwrap_err();
        assert_eq!(
            error,
            "`todo` must be object (got `x`): pass JSON with `:=`, todo:='{...}' (or '[...]' for an array)"
        );
        let args = from_words(&words(&[r#"todo:={"title": "x", "done": false}"#]), Some(&schema)).unwrap();
        assert_eq!(args, json!({"todo": {"title": "x", "done": false}}));
    }

    #[test]
    fn the_signature_marks_optional_arguments() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "number"}, "u": {"enum": ["c", "f"]}}, "required": ["a"]});
        assert_eq!(signature(&schema), r#"a: number, u?: "c" | "f""#);
    }
}
