//! One tool's argument check: its input schema compiled once by this crate's validator
//! (`compile.rs`, `validate.rs`, `format` checked), and the message a call that breaks it gets.
//! A schema with a part the validator cannot check fails closed: every call of the tool is
//! refused, saying which keyword of which argument this build cannot check.

use super::compile::{Unchecked, compile};
use super::messages::argument_at;
use super::schema::Schema;
use super::validate::problems;
use crate::clip::clip_problem;
use crate::tool::constraints::{SchemaSource, beyond_types};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// How many broken rules a message lists: arguments can break as many as they are long.
const PROBLEMS_SHOWN: usize = 8;

/// The compiled input schema of one tool.
pub(crate) struct ArgumentCheck(Compiled);

enum Compiled {
    Schema(Schema),
    /// What a schema this build cannot check says to each call, which it refuses.
    Refused(String),
}

impl ArgumentCheck {
    /// The check of `tool`'s input schema, if the schema says more than serde enforces
    /// (see `constraints.rs`). A schema with parts the validator cannot check gives a check
    /// that refuses every call, and a warning naming them; keywords with malformed values are
    /// warned about and left out, the rest checked.
    pub fn of(tool: &str, schema: Map<String, Value>, source: SchemaSource) -> Option<Self> {
        if !beyond_types(&schema, source) {
            return None;
        }
        match compile(&Value::Object(schema)) {
            Ok(compiled) => {
                if !compiled.ignored.is_empty() {
                    let parts = describe(&compiled.ignored);
                    tracing::warn!(
                        tool,
                        "the input schema has malformed keywords, which constrain nothing and are not checked: {parts}"
                    );
                }
                Some(Self(Compiled::Schema(compiled.schema)))
            }
            Err(unchecked) => {
                let parts = describe(&unchecked);
                tracing::warn!(
                    tool,
                    "the input schema has parts this build cannot check, so every call of the tool is refused: {parts}"
                );
                Some(Self(Compiled::Refused(format!(
                    "tool `{tool}` cannot be called: this build cannot check its input schema: {parts}"
                ))))
            }
        }
    }

    /// `Err` with a message naming each field of `arguments` that breaks a rule (the first
    /// [`PROBLEMS_SHOWN`]), each clipped.
    pub fn check(&self, tool: &str, arguments: Option<&RawValue>) -> Result<(), String> {
        let schema = match &self.0 {
            Compiled::Schema(schema) => schema,
            Compiled::Refused(message) => return Err(message.clone()),
        };
        // Arguments that do not parse fail with serde's message when the call decodes them.
        let Ok(value) = serde_json::from_str::<Value>(arguments.map_or("{}", RawValue::get)) else { return Ok(()) };
        if super::validate::is_valid(schema, &value) {
            return Ok(());
        }
        let found = problems(schema, &value, PROBLEMS_SHOWN);
        let mut shown: Vec<String> =
            found.iter().take(PROBLEMS_SHOWN).map(|problem| clip_problem(&problem.to_string()).to_string()).collect();
        if found.len() > PROBLEMS_SHOWN {
            shown.push("and more".to_owned());
        }
        Err(format!("invalid arguments for tool `{tool}`: {}", shown.join("; ")))
    }
}

/// `` `pattern` of `name` (why); ... ``, clipped.
fn describe(parts: &[Unchecked]) -> String {
    let described: Vec<String> = parts
        .iter()
        .map(|part| {
            let argument = argument_at(&part.at);
            let of = match argument.is_empty() {
                true => "the arguments".to_owned(),
                false => format!("`{argument}`"),
            };
            format!("`{}` of {of} ({})", part.keyword, part.why)
        })
        .collect();
    clip_problem(&described.join("; ")).to_string()
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

    #[test]
    fn a_schema_this_build_cannot_check_refuses_every_call_naming_the_keyword_and_argument() {
        let written = json!({"type": "object", "properties": {"to": {"properties": {"name": {"type": "string", "pattern": "^(?!admin)"}}}}});
        let check = ArgumentCheck::of("t", schema(written), SchemaSource::Verbatim).expect("refusing");
        let error = check.check("t", Some(&arguments(json!({"to": {"name": "ada"}})))).unwrap_err();
        assert!(
            error.starts_with("tool `t` cannot be called: this build cannot check its input schema: `pattern` of `to.name` (regex-lite cannot compile `^(?!admin)`"),
            "{error}"
        );
        let remote = json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}});
        let error =
            ArgumentCheck::of("t", schema(remote), SchemaSource::Verbatim).unwrap().check("t", None).unwrap_err();
        assert!(error.contains("`$ref` of `a` (`https://example.com/a.json` is outside the schema"), "{error}");
    }

    #[test]
    fn a_malformed_keyword_is_left_out_and_the_rest_of_the_schema_checked() {
        // httpbin's Swagger document types a path parameter `int`.
        let written =
            json!({"type": "object", "properties": {"n": {"type": "int"}, "m": {"type": "integer", "maximum": 5}}});
        let check = ArgumentCheck::of("t", schema(written), SchemaSource::Verbatim).expect("checked");
        assert_eq!(check.check("t", Some(&arguments(json!({"n": "1", "m": 5})))), Ok(()));
        let error = check.check("t", Some(&arguments(json!({"n": "1", "m": 6})))).unwrap_err();
        assert_eq!(error, "invalid arguments for tool `t`: `m`: 6 is greater than the maximum of 5 (maximum)");
    }

    #[test]
    fn messages_name_each_rule_in_its_words() {
        let written = json!({
            "type": "object",
            "properties": {
                "n": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 2},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 2},
                "code": {"type": "string", "pattern": "^[A-Z]+$", "minLength": 2},
                "when": {"type": "string", "format": "date-time"}
            },
            "dependentRequired": {"n": ["code"]}
        });
        let check = ArgumentCheck::of("t", schema(written), SchemaSource::Verbatim).expect("checked");
        let error = check
            .check("t", Some(&arguments(json!({"n": -3, "tags": ["a", "a", 1], "when": "2024-02-30T00:00:00Z"}))))
            .unwrap_err();
        let expected = [
            "`code`: missing, required when `n` is given (dependentRequired)",
            "`n`: -3 is less than or equal to the minimum of 0 (exclusiveMinimum)",
            "`n`: -3 is not a multiple of 2 (multipleOf)",
            "`tags.2`: 1 is not of type \"string\" (type)",
            "`tags`: [\"a\",\"a\",1] has non-unique elements (uniqueItems)",
            "`tags`: [\"a\",\"a\",1] has more than 2 items (maxItems)",
            "`when`: \"2024-02-30T00:00:00Z\" is not a \"date-time\" (format)",
        ];
        for problem in expected {
            assert!(error.contains(problem), "{problem} in {error}");
        }
        let error = check.check("t", Some(&arguments(json!({"n": 2, "code": "a"})))).unwrap_err();
        assert_eq!(
            error,
            "invalid arguments for tool `t`: `code`: \"a\" is shorter than 2 characters (minLength); `code`: \"a\" does not match \"^[A-Z]+$\" (pattern)"
        );
    }
}
