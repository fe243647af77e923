//! A tool's arguments decoded one parameter at a time: what `#[mcp_tool]` expands to.
//!
//! The object is split into its members by [`split`], compiled once for every tool; each
//! parameter is then decoded from its member by [`argument`], generic over the parameter's type
//! only. A hundred tools taking a `String` and a `u32` share two decoders, where a derived
//! `Deserialize` per tool gave each its own visitor, twice (once more under
//! `serde_path_to_error` for the message of a failure): two-thirds of a 103-tool server's LLVM IR
//! (bench/NOTES.md, issue 37).
//!
//! The answers are the derived struct's: unknown members are ignored, a member given twice is an
//! error, an absent one is `None` for an `Option` and "missing field" otherwise, and a failure
//! names the path to the value (`count`, `filter.range[1]`).

mod missing;

use crate::clip::clip;
use crate::jsonrpc::without_position;
use crate::tool::result::CallToolResult;
use serde::de::{DeserializeOwned, DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// The members of `arguments` named in `names`, in their order (`None` for an absent one).
pub fn split<'a, const N: usize>(
    tool: &str,
    arguments: Option<&'a RawValue>,
    names: &[&str; N],
) -> Result<[Option<&'a RawValue>; N], CallToolResult> {
    let mut members = [None; N];
    split_into(tool, arguments, names, &mut members)?;
    Ok(members)
}

/// [`split`] for any number of names: the part compiled once.
fn split_into<'a>(
    tool: &str,
    arguments: Option<&'a RawValue>,
    names: &[&str],
    members: &mut [Option<&'a RawValue>],
) -> Result<(), CallToolResult> {
    let Some(arguments) = arguments else { return Ok(()) };
    let mut deserializer = serde_json::Deserializer::from_str(arguments.get());
    serde::Deserializer::deserialize_map(&mut deserializer, Members { names, members })
        .map_err(|error| invalid(tool, ".", &error))
}

/// Decodes one parameter from its member; `member` is `None` when the client left it out.
pub fn argument<T: DeserializeOwned>(tool: &str, name: &str, member: Option<&RawValue>) -> Result<T, CallToolResult> {
    let Some(member) = member else {
        // What a derived struct does for an absent field: `None` for an `Option`, else an error.
        return T::deserialize(missing::Member).map_err(|_| missing(tool, name));
    };
    // The fast path without a path; only a failure decodes again to learn where it failed.
    serde_json::from_str(member.get()).map_err(|_| failure::<T>(tool, name, member))
}

/// [`argument`] into the type a probe picked (`#[mcp_tool]`'s parameters whose role their type
/// decides).
pub fn argument_as<T: DeserializeOwned>(
    tool: &str,
    name: &str,
    member: Option<&RawValue>,
    _shape: std::marker::PhantomData<T>,
) -> Result<T, CallToolResult> {
    argument(tool, name, member)
}

/// [`argument`], or `default()` when the member is absent (`#[mcp(default = ...)]`).
pub fn argument_or<T: DeserializeOwned>(
    tool: &str,
    name: &str,
    member: Option<&RawValue>,
    default: fn() -> T,
) -> Result<T, CallToolResult> {
    match member {
        None => Ok(default()),
        Some(_) => argument(tool, name, member),
    }
}

/// The error result of a member that does not decode, naming the path to the bad value.
#[cold]
fn failure<T: DeserializeOwned>(tool: &str, name: &str, member: &RawValue) -> CallToolResult {
    let deserializer = &mut serde_json::Deserializer::from_str(member.get());
    match serde_path_to_error::deserialize::<_, T>(deserializer) {
        Ok(_) => CallToolResult::error(format!("invalid arguments for tool `{tool}`: `{name}`")),
        Err(error) => invalid(tool, &joined(name, &error.path().to_string()), error.inner()),
    }
}

/// `name` followed by the path inside its value, as `serde_path_to_error` writes paths.
fn joined(name: &str, inner: &str) -> String {
    match inner {
        "." => name.to_owned(),
        seq if seq.starts_with('[') => format!("{name}{seq}"),
        inner => format!("{name}.{inner}"),
    }
}

#[cold]
fn invalid(tool: &str, path: &str, error: &serde_json::Error) -> CallToolResult {
    let problem = without_position(error);
    let message = match path {
        "." => format!("invalid arguments for tool `{tool}`: {problem}"),
        path => format!("invalid arguments for tool `{tool}`: `{}`: {problem}", clip(path)),
    };
    CallToolResult::error(message)
}

#[cold]
fn missing(tool: &str, name: &str) -> CallToolResult {
    CallToolResult::error(format!("invalid arguments for tool `{tool}`: missing field `{name}`"))
}

/// Visits the arguments' object, keeping the raw value of each named member.
struct Members<'n, 'm, 'a> {
    names: &'n [&'n str],
    members: &'m mut [Option<&'a RawValue>],
}

impl<'de: 'a, 'a> Visitor<'de> for Members<'_, '_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of arguments")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(index) = map.next_key_seed(Key(self.names))? {
            let Some(index) = index else {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            };
            if self.members[index].is_some() {
                // serde's `duplicate_field` message, which wants a `'static` name.
                return Err(serde::de::Error::custom(format_args!("duplicate field `{}`", self.names[index])));
            }
            self.members[index] = Some(map.next_value::<&'de RawValue>()?);
        }
        Ok(())
    }
}

/// A member's key: the index of the name it matches, `None` for an unknown one.
struct Key<'n>(&'n [&'n str]);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = Option<usize>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an argument's name")
    }

    fn visit_str<E>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|name| *name == key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    fn error_text(result: CallToolResult) -> String {
        assert!(result.is_error);
        result.text().unwrap().to_owned()
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Range {
        min: u32,
        max: u32,
    }

    #[test]
    fn members_are_split_by_name_and_others_ignored() {
        let arguments = raw(r#"{"count": 3, "extra": {"deep": [1, 2]}, "te\u0078t": "hi"}"#);
        let [text, count, absent] = split("t", Some(&arguments), &["text", "count", "absent"]).unwrap();
        assert_eq!(text.map(RawValue::get), Some(r#""hi""#), "an escaped key is matched by its text");
        assert_eq!(count.map(RawValue::get), Some("3"));
        assert!(absent.is_none());
        let [absent] = split("t", None, &["text"]).unwrap();
        assert!(absent.is_none(), "no arguments at all: every member absent");
    }

    #[test]
    fn a_member_given_twice_is_refused() {
        let arguments = raw(r#"{"text": "a", "text": "b"}"#);
        let error = split("t", Some(&arguments), &["text"]).unwrap_err();
        assert_eq!(error_text(error), "invalid arguments for tool `t`: duplicate field `text`");
    }

    #[test]
    fn an_absent_member_is_none_for_an_option_and_missing_otherwise() {
        assert_eq!(argument::<Option<u32>>("t", "count", None).unwrap(), None);
        let error = argument::<u32>("t", "count", None).unwrap_err();
        assert_eq!(error_text(error), "invalid arguments for tool `t`: missing field `count`");
        assert_eq!(argument_or::<u32>("t", "count", None, || 7).unwrap(), 7);
        assert_eq!(argument_or::<u32>("t", "count", Some(&raw("2")), || 7).unwrap(), 2);
    }

    #[test]
    fn a_failure_names_the_path_to_the_bad_value() {
        let error = argument::<u32>("t", "count", Some(&raw(r#""x""#))).unwrap_err();
        assert_eq!(
            error_text(error),
            "invalid arguments for tool `t`: `count`: invalid type: string \"x\", expected u32"
        );
        let error = argument::<Range>("t", "range", Some(&raw(r#"{"min": 1, "max": -1}"#))).unwrap_err();
        assert_eq!(
            error_text(error),
            "invalid arguments for tool `t`: `range.max`: invalid value: integer `-1`, expected u32"
        );
        let error = argument::<Vec<Range>>("t", "ranges", Some(&raw(r#"[{"min": 1, "max": 2}, {"min": 1}]"#)));
        assert_eq!(error_text(error.unwrap_err()), "invalid arguments for tool `t`: `ranges[1]`: missing field `max`");
        let decoded = argument::<Vec<Range>>("t", "ranges", Some(&raw(r#"[{"min": 1, "max": 2}]"#))).unwrap();
        assert_eq!(decoded, [Range { min: 1, max: 2 }]);
    }

    #[test]
    fn a_parameter_the_server_provides_needs_no_member() {
        let shape = std::marker::PhantomData::<crate::param::NotAnArgument>;
        assert!(argument_as("t", "context", None, shape).is_ok());
        assert!(argument_as("t", "context", Some(&raw(r#"{"any": "thing"}"#)), shape).is_ok());
    }
}
