//! A `SKILL.md`'s YAML front matter, as the JSON object a skill entry carries verbatim, and the
//! Agent Skills rules on its `name` and `description`.

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};
use yaml_rust2::{ScanError, Yaml};

/// How deep collections may nest in front matter (a skill's metadata is a few levels at most).
const MAX_DEPTH: usize = 32;

/// The longest `description` the Agent Skills specification allows, in characters.
const MAX_DESCRIPTION: usize = 1024;

/// The front matter of `text` (a `SKILL.md`) as a JSON object with a valid `name` and a
/// non-empty `description`; why not, otherwise.
pub(super) fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let block = block(text).ok_or("it does not begin with YAML front matter between `---` lines")?;
    let fields = match to_json(block)? {
        Value::Object(fields) => fields,
        _ => return Err("its front matter is not a YAML mapping".into()),
    };
    let name = fields.get("name").and_then(Value::as_str).ok_or("its front matter has no `name` string")?;
    if !is_valid_name(name) {
        return Err(format!(
            "its name {name:?} breaks the Agent Skills naming rules (1-64 characters: lowercase letters, \
             digits and hyphens, no hyphen first, last or twice in a row)"
        ));
    }
    match fields.get("description").and_then(Value::as_str) {
        Some(description) if !description.trim().is_empty() && description.chars().count() <= MAX_DESCRIPTION => {}
        Some(_) => return Err(format!("its description must be 1-{MAX_DESCRIPTION} characters")),
        None => return Err("its front matter has no `description` string".into()),
    }
    Ok(fields)
}

/// The Agent Skills naming rules: 1-64 characters, lowercase ASCII letters, digits and hyphens,
/// no hyphen first, last or twice in a row.
pub(super) fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The YAML between an opening `---` line and the next `---` line (a byte-order mark, `\r\n`
/// line ends and spaces after the closing `---` allowed): the block hosts compare.
fn block(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        let end = start + line.len();
        if line.trim_end_matches(['\n', '\r']).trim_end_matches([' ', '\t']) == "---" {
            return Some(body[..start].trim_end_matches(['\n', '\r']));
        }
        start = end;
    }
    None
}

/// One YAML document as JSON. Aliases are refused (each copy would be a fresh value: a few
/// lines of anchors can stand for gigabytes), and so are keys that are collections, duplicate
/// keys, nesting past [`MAX_DEPTH`] and numbers JSON cannot hold.
fn to_json(yaml: &str) -> Result<Value, String> {
    let mut builder = Builder::default();
    let parsed = Parser::new_from_str(yaml).load(&mut builder, false);
    if let Some(error) = builder.error {
        return Err(format!("its front matter {error}"));
    }
    parsed.map_err(|e: ScanError| format!("its front matter is not valid YAML: {e}"))?;
    Ok(builder.done.unwrap_or(Value::Null))
}

/// Builds JSON from the parser's events.
#[derive(Default)]
struct Builder {
    /// Open collections, innermost last, each with the key waiting for its value (maps).
    open: Vec<(Value, Option<String>)>,
    done: Option<Value>,
    error: Option<String>,
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, _: Marker) {
        if self.error.is_none()
            && let Err(error) = self.take(event)
        {
            self.error = Some(error);
        }
    }
}

impl Builder {
    fn take(&mut self, event: Event) -> Result<(), String> {
        match event {
            Event::Alias(_) => Err("uses a YAML alias (`*name`), which skills do not accept".into()),
            Event::SequenceStart(..) | Event::MappingStart(..) if self.open.len() >= MAX_DEPTH => {
                Err(format!("nests deeper than {MAX_DEPTH} levels"))
            }
            Event::SequenceStart(..) => {
                self.open.push((Value::Array(Vec::new()), None));
                Ok(())
            }
            Event::MappingStart(..) => {
                self.open.push((Value::Object(Map::new()), None));
                Ok(())
            }
            Event::SequenceEnd | Event::MappingEnd => match self.open.pop() {
                Some((value, _)) => self.add(value, None),
                None => Ok(()),
            },
            Event::Scalar(text, style, ..) => {
                let value = if style == TScalarStyle::Plain { scalar(&text)? } else { Value::String(text.clone()) };
                self.add(value, Some(text))
            }
            _ => Ok(()),
        }
    }

    /// Puts a finished value where it belongs: the document, an array, or a map (as its next
    /// key when it is a scalar standing where a key goes; `key_text` is the scalar's text).
    fn add(&mut self, value: Value, key_text: Option<String>) -> Result<(), String> {
        let Some((parent, pending)) = self.open.last_mut() else {
            self.done = Some(value);
            return Ok(());
        };
        match parent {
            Value::Array(items) => items.push(value),
            Value::Object(fields) => match pending.take() {
                None => *pending = Some(key_text.ok_or("has a key that is a list or a mapping")?),
                Some(key) if fields.contains_key(&key) => return Err(format!("repeats the key {key:?}")),
                Some(key) => {
                    fields.insert(key, value);
                }
            },
            _ => {}
        }
        Ok(())
    }
}

/// A plain scalar by YAML 1.2's core schema: null, booleans, integers, floats, else a string.
fn scalar(text: &str) -> Result<Value, String> {
    Ok(match Yaml::from_str(text) {
        Yaml::Null => Value::Null,
        Yaml::Boolean(flag) => Value::Bool(flag),
        Yaml::Integer(integer) => Value::Number(integer.into()),
        Yaml::Real(real) => {
            let number = Yaml::Real(real).as_f64().and_then(Number::from_f64);
            Value::Number(number.ok_or_else(|| format!("has the number {text}, which JSON cannot hold"))?)
        }
        _ => Value::String(text.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn front_matter_becomes_the_json_a_yaml_parser_gives() {
        let text = "---\nname: pdf-processing\ndescription: \"Extract: fill\"\nlicense: Apache-2.0\nmetadata:\n  version: 2.1\n  tags: [a, 'b']\n  draft: false\n  count: 0x10\n  none: ~\n---\n# Body\n";
        let fields = parse(text).expect("valid");
        assert_eq!(
            Value::Object(fields),
            json!({"name": "pdf-processing", "description": "Extract: fill", "license": "Apache-2.0",
                   "metadata": {"version": 2.1, "tags": ["a", "b"], "draft": false, "count": 16, "none": null}})
        );
    }

    #[test]
    fn crlf_a_byte_order_mark_and_spaces_after_the_closing_line_are_accepted() {
        let text = "\u{feff}---\r\nname: a\r\ndescription: b\r\n---  \r\nbody";
        assert_eq!(Value::Object(parse(text).expect("valid")), json!({"name": "a", "description": "b"}));
    }

    #[test]
    fn what_a_skill_cannot_be_is_named() {
        let cases = [
            ("no front matter", "# Title\n", "does not begin"),
            ("unclosed", "---\nname: a\n", "does not begin"),
            ("a list", "---\n- a\n---\n", "not a YAML mapping"),
            ("no name", "---\ndescription: b\n---\n", "no `name`"),
            ("a bad name", "---\nname: PDF--x\ndescription: b\n---\n", "naming rules"),
            ("no description", "---\nname: a\n---\n", "no `description`"),
            ("an alias", "---\nname: &n a\ndescription: *n\n---\n", "alias"),
            ("a repeated key", "---\nname: a\nname: b\ndescription: c\n---\n", "repeats the key"),
            ("a collection as a key", "---\n? [a]\n: b\nname: a\ndescription: c\n---\n", "a list or a mapping"),
            ("invalid YAML", "---\nname: [a\ndescription: b\n---\n", "not valid YAML"),
            ("infinity", "---\nname: a\ndescription: b\nx: .inf\n---\n", "JSON cannot hold"),
        ];
        for (case, text, expected) in cases {
            let error = parse(text).expect_err(case);
            assert!(error.contains(expected), "{case}: {error}");
        }
        let deep = format!("---\nname: a\ndescription: b\nx: {}{}\n---\n", "[".repeat(40), "]".repeat(40));
        assert!(parse(&deep).expect_err("deep").contains("nests deeper"));
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "pdf-processing", "x1", &"a".repeat(64)] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", "../x", "a/b", &"a".repeat(65), "é"] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }
}
