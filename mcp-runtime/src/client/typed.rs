//! What the typed calls the macros generate (`add::call(&client, 1.0, 2.0)`, `mcp-macros/src/stub.rs`)
//! run: arguments to JSON, template variables and prompt arguments to text, and answers read
//! back into the function's return type. Reached through `__private`; not a public API.
//!
//! A server that compiles without the `client` feature must compile with it, so what a type
//! cannot do here is an error of the call, at run time, naming the type: each conversion is
//! picked by autoref specialization on the concrete type at the call site (as the parameter
//! probes of `param.rs` are), with a last resort that explains.
// Public only for generated code, through `__private` (hidden): documented here, not item by item.
#![allow(missing_docs)]

use super::ClientError;
use crate::content::ResourceContents;
use crate::resource::ReadResourceResult;
use crate::tool::CallToolResult;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

fn invalid(message: String) -> ClientError {
    ClientError::InvalidResponse(message)
}

/// A tool's text.
pub fn read_text(result: CallToolResult) -> Result<String, ClientError> {
    result.text().map(str::to_owned).ok_or_else(|| invalid("the tool's result has no text".into()))
}

/// A tool's text, parsed (numbers, `bool`, `char`: what their `Display` wrote).
pub fn read_parsed<T: FromStr>(result: CallToolResult) -> Result<T, ClientError>
where
    T::Err: Display,
{
    let text = read_text(result)?;
    text.trim()
        .parse()
        .map_err(|e| invalid(format!("the tool's result `{text}` is not a `{}`: {e}", std::any::type_name::<T>())))
}

/// A tool's structured content (its text parsed, from a server that sent none).
pub fn tool_json(result: CallToolResult) -> Result<Value, ClientError> {
    if let Some(value) = result.structured_content {
        return Ok(value);
    }
    serde_json::from_str(&read_text(result)?).map_err(|e| invalid(format!("the tool's result is not JSON: {e}")))
}

fn first(result: ReadResourceResult) -> Result<ResourceContents, ClientError> {
    result.contents.into_iter().next().ok_or_else(|| invalid("the resource has no contents".into()))
}

/// A resource's text.
pub fn read_resource_text(result: ReadResourceResult) -> Result<String, ClientError> {
    match first(result)? {
        ResourceContents::Text { text, .. } => Ok(text),
        ResourceContents::Blob { .. } => Err(invalid("the resource is binary, not text".into())),
    }
}

/// A resource's bytes (a text resource's UTF-8).
pub fn read_resource_bytes(result: ReadResourceResult) -> Result<Vec<u8>, ClientError> {
    use base64::Engine as _;
    match first(result)? {
        ResourceContents::Blob { blob, .. } => base64::engine::general_purpose::STANDARD
            .decode(blob)
            .map_err(|e| invalid(format!("the resource's blob is not base64: {e}"))),
        ResourceContents::Text { text, .. } => Ok(text.into_bytes()),
    }
}

/// A resource's text, parsed as JSON.
pub fn resource_json(result: ReadResourceResult) -> Result<Value, ClientError> {
    serde_json::from_str(&read_resource_text(result)?).map_err(|e| invalid(format!("the resource is not JSON: {e}")))
}

/// Reads JSON into `T`: `(&&ReadJson::<T>::new()).read_json(value)`.
pub struct ReadJson<T>(PhantomData<T>);

impl<T> ReadJson<T> {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

pub trait ReadDeserialize<T> {
    fn read_json(&self, value: Value) -> Result<T, ClientError>;
}

/// `T: Deserialize`. A value that is not an object travels as `{"result": value}` (structured
/// content must be an object): unwrapped when `T` does not read the object itself.
impl<T: DeserializeOwned> ReadDeserialize<T> for &ReadJson<T> {
    fn read_json(&self, value: Value) -> Result<T, ClientError> {
        let wrapped = match &value {
            Value::Object(members) if members.len() == 1 => members.get("result").cloned(),
            _ => None,
        };
        let error = match serde_json::from_value(value) {
            Ok(output) => return Ok(output),
            Err(error) => error,
        };
        match wrapped.map(serde_json::from_value) {
            Some(Ok(output)) => Ok(output),
            _ => Err(invalid(format!("the structured result is not a `{}`: {error}", std::any::type_name::<T>()))),
        }
    }
}

pub trait ReadOther<T> {
    fn read_json(&self, value: Value) -> Result<T, ClientError>;
}

impl<T> ReadOther<T> for &&ReadJson<T> {
    fn read_json(&self, _: Value) -> Result<T, ClientError> {
        Err(invalid(format!(
            "`{}` does not implement `Deserialize`: derive it to read this result with a typed call",
            std::any::type_name::<T>()
        )))
    }
}

/// An argument of a typed call: `(&&StubArgument(&value)).to_json()`.
pub struct StubArgument<'a, T: ?Sized>(pub &'a T);

pub trait ArgumentSerialize {
    fn to_json(&self) -> Result<Value, ClientError>;
}

impl<T: Serialize + ?Sized> ArgumentSerialize for &StubArgument<'_, T> {
    fn to_json(&self) -> Result<Value, ClientError> {
        to_argument(self.0)
    }
}

pub trait ArgumentOther {
    fn to_json(&self) -> Result<Value, ClientError>;
}

impl<T: ?Sized> ArgumentOther for &&StubArgument<'_, T> {
    fn to_json(&self) -> Result<Value, ClientError> {
        Err(ClientError::InvalidArguments(format!(
            "`{}` does not implement `Serialize`: derive it to pass this argument in a typed call",
            std::any::type_name::<T>()
        )))
    }
}

/// A flattened argument (`#[mcp(flatten)]`) of a typed call: its fields join the arguments
/// (nothing, for an `Option` that is `None`).
pub fn flatten_into(arguments: &mut serde_json::Map<String, Value>, value: Value) {
    if let Value::Object(fields) = value {
        arguments.extend(fields);
    }
}

/// An argument of a call generated from a surface file (its types come from JSON Schema, all
/// serializable).
pub fn to_argument<T: Serialize + ?Sized>(value: &T) -> Result<Value, ClientError> {
    serde_json::to_value(value).map_err(|e| ClientError::InvalidArguments(e.to_string()))
}

/// A template variable or prompt argument as text: `(&&&StubText(&value)).stub_text()`;
/// `None` for an optional one left out.
pub struct StubText<'a, T: ?Sized>(pub &'a T);

pub trait TextOfOption {
    fn stub_text(&self) -> Result<Option<String>, ClientError>;
}

impl<T: Display> TextOfOption for &&StubText<'_, Option<T>> {
    fn stub_text(&self) -> Result<Option<String>, ClientError> {
        Ok(self.0.as_ref().map(ToString::to_string))
    }
}

pub trait TextOfDisplay {
    fn stub_text(&self) -> Result<Option<String>, ClientError>;
}

impl<T: Display + ?Sized> TextOfDisplay for &&&StubText<'_, T> {
    fn stub_text(&self) -> Result<Option<String>, ClientError> {
        Ok(Some(self.0.to_string()))
    }
}

pub trait TextOfOther {
    fn stub_text(&self) -> Result<Option<String>, ClientError>;
}

impl<T: ?Sized> TextOfOther for &StubText<'_, T> {
    fn stub_text(&self) -> Result<Option<String>, ClientError> {
        Err(ClientError::InvalidArguments(format!(
            "`{}` does not implement `Display`: implement it to pass this value as text in a typed call",
            std::any::type_name::<T>()
        )))
    }
}

/// The URI of a resource template filled with these variables.
pub fn expand_uri(template: &str, values: &[(&str, Option<String>)]) -> String {
    match mcp_runtime_uri_template::UriTemplate::parse(template) {
        Ok(template) => {
            template.expand(|name| values.iter().find(|(wire, _)| *wire == name).and_then(|(_, value)| value.clone()))
        }
        Err(_) => template.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The borrows pick the conversion, as in generated code.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn conversions_are_picked_by_type_and_explain_what_they_cannot_do() {
        struct Opaque;
        #[allow(unused_imports)]
        use super::{ArgumentOther as _, ArgumentSerialize as _};
        assert_eq!((&&StubArgument(&vec![1, 2])).to_json().unwrap(), serde_json::json!([1, 2]));
        let refused = (&&StubArgument(&Opaque)).to_json().unwrap_err().to_string();
        assert!(refused.contains("Opaque") && refused.contains("Serialize"), "{refused}");

        #[allow(unused_imports)]
        use super::{TextOfDisplay as _, TextOfOption as _, TextOfOther as _};
        assert_eq!((&&&StubText(&5)).stub_text().unwrap(), Some("5".into()));
        assert_eq!((&&&StubText(&Some("a"))).stub_text().unwrap(), Some("a".into()));
        assert_eq!((&&&StubText(&None::<u8>)).stub_text().unwrap(), None);
        assert!((&&&StubText(&Opaque)).stub_text().is_err());

        #[allow(unused_imports)]
        use super::{ReadDeserialize as _, ReadOther as _};
        let read: u32 = (&&ReadJson::<u32>::new()).read_json(serde_json::json!({"result": 7})).unwrap();
        assert_eq!(read, 7);
        assert!((&&ReadJson::<Opaque>::new()).read_json(serde_json::json!({})).is_err());
    }
}
