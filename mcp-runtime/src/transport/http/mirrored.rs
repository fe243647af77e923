//! Header values that mirror a 2026-07-28 request's body: the `=?base64?...?=` form any of
//! them may take, and a tool's `Mcp-Param-{Name}` headers (`x-mcp-header`), checked against
//! the call's arguments.

use super::headers::seen;
use crate::clip::clip;
use crate::tool::descriptor::ParamHeader;
use base64::Engine as _;
use hyper::header::HeaderMap;
use serde_json::value::RawValue;
use serde_json::{Number, Value};
use std::borrow::Cow;
use std::fmt;

/// A header value, decoding the `=?base64?...?=` sentinel form (canonical padding, UTF-8);
/// `None` when it is malformed. A value without both markers is literal.
pub(super) fn decode_sentinel(value: &str) -> Option<Cow<'_, str>> {
    match value.strip_prefix("=?base64?").and_then(|rest| rest.strip_suffix("?=")) {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
            String::from_utf8(bytes).ok().map(Cow::Owned)
        }
        None => Some(Cow::Borrowed(value)),
    }
}

/// `Some(message)` when the `Mcp-Param-*` headers of a call to a tool mirroring `params` do
/// not match its `arguments`: an argument with a value needs its header, equal once decoded
/// (integers compared as numbers); a header whose argument is absent or `null`, a header sent
/// twice, or one that is not text or not valid Base64, is refused. Headers the tool does not
/// declare are ignored, as the spec asks of anyone who does not recognise them.
pub(super) fn param_mismatch(
    headers: &HeaderMap,
    params: &[ParamHeader],
    arguments: Option<&RawValue>,
) -> Option<String> {
    let arguments: Option<Value> = arguments.and_then(|raw| serde_json::from_str(raw.get()).ok());
    for param in params {
        // For messages only: nothing is allocated while the headers match.
        let (header, argument) = (Label(param.name), Path(param.path));
        let value = match seen(headers, param.header).mirror() {
            Ok(value) => value,
            Err(why) => return Some(why.message(header)),
        };
        let body = arguments.as_ref().and_then(|arguments| at(arguments, param.path)).filter(|v| !v.is_null());
        let mirrorable = body.is_some_and(|body| !matches!(body, Value::Array(_) | Value::Object(_)));
        let Some(value) = value else {
            if mirrorable {
                return Some(format!(
                    "Header mismatch: the {header} header is required: the body gives the argument `{argument}`"
                ));
            }
            continue;
        };
        let Some(body) = body.filter(|_| mirrorable) else {
            return Some(format!(
                "Header mismatch: the {header} header is sent but the body gives no value to mirror for the argument `{argument}`"
            ));
        };
        let Some(decoded) = decode_sentinel(value) else {
            return Some(format!("Header mismatch: {header} header value '{}' is not valid Base64", clip(value)));
        };
        if !same(&decoded, body) {
            let body = match body {
                Value::String(text) => clip(text).to_string(),
                other => other.to_string(),
            };
            return Some(format!(
                "Header mismatch: {header} header value '{}' does not match body value '{body}'",
                clip(&decoded)
            ));
        }
    }
    None
}

/// `Mcp-Param-{name}`, in messages.
struct Label(&'static str);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mcp-Param-{}", self.0)
    }
}

/// An argument's path, `job.id`, in messages.
struct Path(&'static [&'static str]);

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, key) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(key)?;
        }
        Ok(())
    }
}

/// The value at a chain of `properties` keys.
fn at<'a>(arguments: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(arguments, |value, key| value.as_object()?.get(*key))
}

/// Whether a header's text mirrors a body value: a string as is, a boolean as `true` or
/// `false`, a number by its value (`42.0` is `42`).
fn same(text: &str, body: &Value) -> bool {
    match body {
        Value::String(body) => text == body,
        Value::Bool(body) => text == if *body { "true" } else { "false" },
        Value::Number(body) => same_number(text, body),
        Value::Null | Value::Array(_) | Value::Object(_) => false,
    }
}

fn same_number(text: &str, body: &Number) -> bool {
    let whole = body.as_i64().map(i128::from).or_else(|| body.as_u64().map(i128::from));
    match (whole, integer(text)) {
        (Some(body), Some(text)) => body == text,
        (Some(_), None) => false,
        // A fractional or huge body: compared as floats (`x-mcp-header` is for integers).
        (None, _) => text.parse::<f64>().ok().zip(body.as_f64()).is_some_and(|(text, body)| text == body),
    }
}

/// A decimal integer, optionally written with a zero fraction (`42`, `-7`, `42.0`).
fn integer(text: &str) -> Option<i128> {
    let whole = match text.split_once('.') {
        Some((whole, fraction)) if !fraction.is_empty() && fraction.bytes().all(|b| b == b'0') => whole,
        Some(_) => return None,
        None => text,
    };
    let digits = whole.strip_prefix('-').unwrap_or(whole);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    whole.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[test]
    fn sentinel_values_are_decoded() {
        assert_eq!(decode_sentinel("get_weather"), Some("get_weather".into()));
        assert_eq!(decode_sentinel("=?base64?SGVsbG8sIOS4lueVjA==?="), Some("Hello, 世界".into()));
        assert_eq!(decode_sentinel("=?base64?!!!?="), None);
        assert_eq!(decode_sentinel("=?base64?SGVsbG8?="), None, "padding is required");
        assert_eq!(decode_sentinel("=?base64?SGVsbG8="), Some("=?base64?SGVsbG8=".into()), "no suffix: literal");
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(same("42", &serde_json::json!(42)));
        assert!(same("42.0", &serde_json::json!(42)));
        assert!(same("42", &serde_json::json!(42.0)));
        assert!(same("-7", &serde_json::json!(-7)));
        assert!(!same("+42", &serde_json::json!(42)));
        assert!(!same("42.5", &serde_json::json!(42)));
        assert!(!same("4 2", &serde_json::json!(42)));
        assert!(!same("42.", &serde_json::json!(42)));
        assert!(same("18446744073709551615", &serde_json::json!(u64::MAX)));
        assert!(same("true", &serde_json::json!(true)));
        assert!(!same("True", &serde_json::json!(true)));
    }

    const PARAMS: &[ParamHeader] = &[
        ParamHeader { name: "Region", header: "mcp-param-region", path: &["region"] },
        ParamHeader { name: "Job", header: "mcp-param-job", path: &["job", "id"] },
    ];

    fn check(arguments: &str, headers: &[(&'static str, &'static str)]) -> Option<String> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(*name, HeaderValue::from_static(value));
        }
        let raw = RawValue::from_string(arguments.to_owned()).unwrap();
        param_mismatch(&map, PARAMS, Some(&raw))
    }

    #[test]
    fn headers_mirror_the_arguments_at_their_paths() {
        let args = r#"{"region":"us-west1","job":{"id":7}}"#;
        assert_eq!(check(args, &[("mcp-param-region", "us-west1"), ("mcp-param-job", "7")]), None);
        assert!(check(args, &[("mcp-param-region", "us-east1"), ("mcp-param-job", "7")]).is_some());
        assert!(check(args, &[("mcp-param-job", "7")]).unwrap().contains("required"));
        assert_eq!(check(r#"{"region":null}"#, &[]), None, "null is no value");
        assert!(check(r#"{}"#, &[("mcp-param-region", "x")]).is_some(), "a header without its argument");
        assert!(check(r#"{"region":"a"}"#, &[("mcp-param-region", "a"), ("mcp-param-region", "a")]).is_some(), "twice");
        assert_eq!(check(r#"{"region":" padded "}"#, &[("mcp-param-region", "=?base64?IHBhZGRlZCA=?=")]), None);
        assert_eq!(check(r#"{"region":"a"}"#, &[("mcp-param-region", "a"), ("mcp-param-other", "b")]), None);
    }
}
