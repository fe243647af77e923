//! One tool's argument check: its input schema compiled by jsonschema (with `format` checked),
//! and the message a call that breaks it gets.

use crate::clip::clip_problem;
use crate::tool::constraints::{SchemaSource, beyond_types};
use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// How many broken rules a message lists: arguments can break as many as they are long.
const PROBLEMS_SHOWN: usize = 8;

/// The compiled input schema of one tool.
pub(crate) struct ArgumentCheck(jsonschema::Validator);

impl ArgumentCheck {
    /// The check of `tool`'s input schema, if the schema says more than serde enforces
    /// (see `constraints.rs`) and compiles.
    pub fn of(tool: &str, schema: Map<String, Value>, source: SchemaSource) -> Option<Self> {
        if !beyond_types(&schema, source) {
            return None;
        }
        // Formats are annotations in 2020-12 unless asked for; a schema that says `email`
        // means it. External `$ref`s are not fetched (jsonschema's resolvers are left out).
        match jsonschema::options().should_validate_formats(true).build(&Value::Object(schema)) {
            Ok(validator) => Some(Self(validator)),
            Err(err) => {
                let err = clip_problem(&err.to_string()).to_string();
                tracing::warn!(tool, "the input schema does not compile, so its constraints are not checked: {err}");
                None
            }
        }
    }

    /// `Err` with a message naming each field of `arguments` that breaks a rule (the first
    /// [`PROBLEMS_SHOWN`]), each clipped.
    pub fn check(&self, tool: &str, arguments: Option<&RawValue>) -> Result<(), String> {
        // Arguments that do not parse fail with serde's message when the call decodes them.
        let Ok(value) = serde_json::from_str::<Value>(arguments.map_or("{}", RawValue::get)) else { return Ok(()) };
        let mut errors = self.0.iter_errors(&value);
        let mut problems: Vec<String> = errors.by_ref().take(PROBLEMS_SHOWN).map(|e| problem(&e)).collect();
        if problems.is_empty() {
            return Ok(());
        }
        if errors.next().is_some() {
            problems.push("and more".to_owned());
        }
        Err(format!("invalid arguments for tool `{tool}`: {}", problems.join("; ")))
    }
}

/// One broken rule: the field (a dotted path into the arguments), what is wrong with it, and
/// the keyword that says so.
fn problem(error: &ValidationError<'_>) -> String {
    let at = error.instance_path().as_str().trim_start_matches('/').replace('/', ".");
    let field = |name: &str| if at.is_empty() { name.to_owned() } else { format!("{at}.{name}") };
    let (field, what) = match error.kind() {
        ValidationErrorKind::Required { property } => (field(property.as_str().unwrap_or_default()), "missing".into()),
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let names: Vec<String> = unexpected.iter().take(PROBLEMS_SHOWN).map(|name| field(name)).collect();
            (names.join("`, `"), "not allowed".into())
        }
        _ => (at.clone(), error.to_string()),
    };
    let keyword = error.schema_path().as_str().rsplit('/').next().unwrap_or_default();
    let problem = match field.is_empty() {
        true => format!("{what} ({keyword})"),
        false => format!("`{field}`: {what} ({keyword})"),
    };
    clip_problem(&problem).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn arguments(value: Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&value).unwrap()
    }

    #[test]
    fn only_schemas_that_constrain_more_than_their_types_are_checked() {
        let plain = json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}, "s": {"type": "string"}}});
        assert!(ArgumentCheck::of("t", schema(plain), SchemaSource::Derived).is_none());
        let ranged = json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint8", "minimum": 1, "maximum": 5}}});
        let check = ArgumentCheck::of("t", schema(ranged), SchemaSource::Derived).expect("a range beyond u8's");
        assert!(check.check("t", Some(&arguments(json!({"n": 3})))).is_ok());
        let error = check.check("t", Some(&arguments(json!({"n": 9})))).unwrap_err();
        assert_eq!(error, "invalid arguments for tool `t`: `n`: 9 is greater than the maximum of 5 (maximum)");
    }

    #[allow(dead_code)]
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    enum Size {
        Small,
        Large,
    }

    /// Arguments of plain types: serde enforces all their schema says.
    #[allow(dead_code)]
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Plain {
        count: u32,
        name: String,
        size: Option<Size>,
        sizes: Vec<Size>,
    }

    #[test]
    fn a_derived_schema_of_plain_types_gets_no_check_and_a_hand_written_keyword_gets_one() {
        let derived = crate::tool::schema::input_schema_for::<Plain>();
        assert!(ArgumentCheck::of("t", derived, SchemaSource::Derived).is_none());
        let keywords = [
            json!({"properties": {"a": {"enum": ["x"]}}}),
            json!({"properties": {"a": {"const": 1}}}),
            json!({"required": ["a"]}),
            json!({"additionalProperties": false}),
            json!({"properties": {"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}),
            json!({"properties": {"a": {"format": "email"}}}),
            json!({"properties": {"a": {"format": "uri"}}}),
        ];
        for keywords in keywords {
            let mut written = schema(json!({"type": "object"}));
            written.extend(schema(keywords.clone()));
            assert!(ArgumentCheck::of("t", written, SchemaSource::Verbatim).is_some(), "{keywords}");
        }
    }

    #[test]
    fn each_keyword_a_hand_written_schema_says_is_enforced_and_named() {
        let written = json!({
            "type": "object",
            "properties": {
                "color": {"type": "string", "enum": ["red", "green"]},
                "version": {"const": 2},
                "contact": {"type": "string", "format": "email"},
                "home": {"type": "string", "format": "uri"},
                "amount": {"oneOf": [{"type": "integer", "multipleOf": 5}, {"type": "integer", "multipleOf": 3}]},
                "note": {"type": "string"}
            },
            "required": ["color", "note"],
            "additionalProperties": false
        });
        let check = ArgumentCheck::of("t", schema(written), SchemaSource::Verbatim).expect("checked");
        let good = json!({"color": "red", "version": 2, "contact": "a@example.com", "home": "https://example.com", "amount": 10, "note": ""});
        assert_eq!(check.check("t", Some(&arguments(good.clone()))), Ok(()));
        let cases = [
            ("color", json!("blue"), "`color`: \"blue\" is not one of \"red\" or \"green\" (enum)"),
            ("version", json!(3), "`version`: 2 was expected (const)"),
            ("contact", json!("nobody"), "`contact`: \"nobody\" is not a \"email\" (format)"),
            ("home", json!("not a uri"), "`home`: \"not a uri\" is not a \"uri\" (format)"),
            (
                "amount",
                json!(15),
                "`amount`: 15 is valid under more than one of the schemas listed in the 'oneOf' keyword (oneOf)",
            ),
            ("admin", json!(true), "`admin`: not allowed (additionalProperties)"),
        ];
        for (field, value, expected) in cases {
            let mut bad = good.clone();
            bad[field] = value;
            let error = check.check("t", Some(&arguments(bad))).unwrap_err();
            assert_eq!(error, format!("invalid arguments for tool `t`: {expected}"), "{field}");
        }
        let mut missing = good.clone();
        missing.as_object_mut().unwrap().remove("note");
        let error = check.check("t", Some(&arguments(missing))).unwrap_err();
        assert_eq!(error, "invalid arguments for tool `t`: `note`: missing (required)");
    }

    #[test]
    fn a_huge_input_is_not_echoed_and_only_the_first_problems_are_listed() {
        let written = json!({"type": "object", "properties": {"text": {"type": "string", "maxLength": 5}, "items": {"type": "array", "items": {"type": "integer"}}}});
        let check = ArgumentCheck::of("t", schema(written), SchemaSource::Verbatim).expect("checked");
        let error = check.check("t", Some(&arguments(json!({"text": "x".repeat(1_000_000)})))).unwrap_err();
        assert!(error.len() < 400 && error.starts_with("invalid arguments for tool `t`: `text`: \"xxx"), "{error}");
        assert!(error.ends_with(" bytes)"), "clipped, saying how long it was: {error}");
        let error = check.check("t", Some(&arguments(json!({"items": vec!["no"; 100_000]})))).unwrap_err();
        assert_eq!(error.matches("is not of type").count(), PROBLEMS_SHOWN, "{error}");
        assert!(
            error.starts_with("invalid arguments for tool `t`: `items.0`: ") && error.ends_with("; and more"),
            "{error}"
        );
    }
}
