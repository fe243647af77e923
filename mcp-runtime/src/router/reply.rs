//! What a request's handling yields: a [`Reply`] the router answers with at once, or the
//! serialized [`Outcome`] of user code; and the parsing and serializing both share.

use crate::clip::clip;
use crate::jsonrpc::{ErrorObject, Serialized, code, without_position};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A successful answer, in whichever form is cheapest to produce.
pub(crate) enum Reply<'a> {
    /// Serialized ahead of time and shared (e.g. a `tools/list` page).
    Shared(&'a RawValue),
    /// Serialized for this answer.
    Serialized(Serialized),
    /// A value to serialize.
    Value(Value),
}

impl Reply<'_> {
    pub fn empty() -> Result<Self, ErrorObject> {
        Ok(Self::Value(Value::Object(Map::new())))
    }

    pub fn method_not_found(method: &str) -> Result<Self, ErrorObject> {
        Err(ErrorObject::new(code::METHOD_NOT_FOUND, format!("Method not found: {}", clip(method))))
    }
}

impl Serialize for Reply<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Shared(raw) => raw.serialize(s),
            Self::Serialized(result) => result.serialize(s),
            Self::Value(value) => value.serialize(s),
        }
    }
}

/// What a handler of user code yields: the serialized result, or the error to answer.
pub(crate) type Outcome = Result<Serialized, ErrorObject>;

/// Parses `params`, absent counting as `{}`; a mismatch is -32602 naming the field and the
/// problem (`Invalid params: `name`: invalid type: integer `5`, expected a string`).
pub(crate) fn parse_params<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, ErrorObject> {
    let json = params.map_or("{}", RawValue::get);
    // Plain serde_json first; only a failure pays for tracking the path (bench/NOTES.md).
    if let Ok(params) = serde_json::from_str(json) {
        return Ok(params);
    }
    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(json)).map_err(|err| {
        let path = clip(&err.path().to_string()).to_string();
        let inner = err.into_inner();
        let problem = without_position(&inner);
        match path.as_str() {
            "." => ErrorObject::invalid_params(format!("Invalid params: {problem}")),
            path => ErrorObject::invalid_params(format!("Invalid params: `{path}`: {problem}")),
        }
    })
}

/// Serializes a handler's result.
pub(crate) fn to_raw(value: &(impl Serialize + ?Sized)) -> Outcome {
    Serialized::new(value).map_err(unserializable)
}

/// Serializes a part of a result (a listed resource, a merged member) that stays raw JSON.
pub(crate) fn to_raw_value(value: &(impl Serialize + ?Sized)) -> Result<Box<RawValue>, ErrorObject> {
    serde_json::value::to_raw_value(value).map_err(unserializable)
}

/// The error for a result that would not serialize (a map with non-string keys, a failing
/// `Serialize` impl).
fn unserializable(err: serde_json::Error) -> ErrorObject {
    ErrorObject::new(code::INTERNAL_ERROR, format!("Internal error: {err}"))
}

#[derive(Deserialize)]
struct Paginated<'a> {
    #[serde(borrow)]
    cursor: Option<std::borrow::Cow<'a, str>>,
}

pub(super) fn cursor(params: Option<&RawValue>) -> Result<Option<String>, ErrorObject> {
    Ok(parse_params::<Paginated<'_>>(params)?.cursor.map(|c| c.into_owned()))
}
