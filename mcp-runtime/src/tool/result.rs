//! Tool results, and the conversion from what a tool function returns.

use super::schema::output_schema_for;
use crate::content::{Audio, Content, EmbeddedResource, Image, ResourceLink, Text};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt::Display;

/// The result of a tool call, as sent on the wire.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The unstructured result.
    pub content: Vec<Content>,
    /// The structured result, matching the tool's output schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed. Tool failures are results so the model can see them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// `_meta`: what the result says beyond the protocol, under keys of your own prefix
    /// (see [`with_meta`](Self::with_meta)).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl CallToolResult {
    /// A successful result with these blocks.
    pub fn success(content: impl IntoIterator<Item = Content>) -> Self {
        Self { content: content.into_iter().collect(), ..Self::default() }
    }

    /// A failed result carrying `message` as its text.
    pub fn error(message: impl Into<String>) -> Self {
        Self { content: vec![Content::text(message)], is_error: true, ..Self::default() }
    }

    /// The first text block, for tests and logs.
    pub fn text(&self) -> Option<&str> {
        self.content.iter().find_map(Content::as_text)
    }

    /// Adds `key` to the result's `_meta` (keys of your own prefix, `com.example/trace`;
    /// `io.modelcontextprotocol/` ones are the protocol's).
    ///
    /// ```
    /// use mcp_runtime::{CallToolResult, Content};
    ///
    /// let result = CallToolResult::success([Content::text("42")]).with_meta("com.example/took-ms", 3);
    /// assert_eq!(result.meta.unwrap()["com.example/took-ms"], 3);
    /// ```
    pub fn with_meta(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.meta.get_or_insert_default().insert(key.into(), value.into());
        self
    }
}

/// Structured tool output: the value becomes `structuredContent`, its schema the tool's
/// `outputSchema`, and its JSON text a text block for clients that read only `content`.
///
/// A value whose JSON is not an object is wrapped as `{"result": value}`, since the protocol
/// requires structured content to be an object.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Json<T>(pub T);

/// Turns what a tool function returns into a [`CallToolResult`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP tool",
    label = "this return type is not a tool result",
    note = "return a `String`, a number, `bool`, `()`, a content block (`Content`, `Image`...), `Vec<Content>`, `Json<T>` for structured output, a `CallToolResult`, or a `Result<T, E>` of one of these where `E: Display`"
)]
pub trait IntoToolResult {
    /// The conversion.
    fn into_tool_result(self) -> CallToolResult;

    /// The `outputSchema` this return type declares, if any.
    fn output_schema() -> Option<Map<String, Value>> {
        None
    }

    /// The conversion a sync tool's generated code makes: a text result stays its string.
    #[doc(hidden)]
    fn into_finished(self) -> Finished
    where
        Self: Sized,
    {
        Finished::Result(self.into_tool_result())
    }
}

/// A sync tool's result, as the engine serializes it at once. The commonest result, one text
/// block, is written from its string, without the `CallToolResult` and content vector it
/// would take to say the same.
#[doc(hidden)]
pub enum Finished {
    Result(CallToolResult),
    Text(Cow<'static, str>),
}

impl From<CallToolResult> for Finished {
    fn from(result: CallToolResult) -> Self {
        Self::Result(result)
    }
}

impl From<Finished> for CallToolResult {
    fn from(finished: Finished) -> Self {
        match finished {
            Finished::Result(result) => result,
            Finished::Text(text) => Self::success([Content::text(text)]), // a `String` moves in, uncopied
        }
    }
}

impl Serialize for Finished {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        /// A text block as `Content::text` serializes.
        #[derive(Serialize)]
        #[serde(tag = "type", rename = "text")]
        struct Block<'a> {
            text: &'a str,
        }
        match self {
            Self::Result(result) => result.serialize(s),
            Self::Text(text) => {
                let mut result = s.serialize_struct("CallToolResult", 1)?;
                result.serialize_field("content", &[Block { text }])?;
                result.end()
            }
        }
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::default()
    }
}

macro_rules! texts {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> CallToolResult {
                self.into_finished().into()
            }

            fn into_finished(self) -> Finished {
                Finished::Text(self.into())
            }
        }
    )*};
}
texts!(String, &'static str, Cow<'static, str>);

macro_rules! displayed {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> CallToolResult {
                self.into_finished().into()
            }

            fn into_finished(self) -> Finished {
                Finished::Text(self.to_string().into())
            }
        }
    )*};
}
displayed!(bool, char);
displayed!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

macro_rules! block {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> CallToolResult {
                CallToolResult::success([Content::from(self)])
            }
        }
    )*};
}
block!(Content, Text, Image, Audio, ResourceLink, EmbeddedResource);

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

impl<T: IntoToolResult, E: Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> CallToolResult {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(err) => CallToolResult::error(err.to_string()),
        }
    }

    fn output_schema() -> Option<Map<String, Value>> {
        T::output_schema()
    }

    fn into_finished(self) -> Finished {
        match self {
            Ok(value) => value.into_finished(),
            Err(err) => Finished::Result(CallToolResult::error(err.to_string())),
        }
    }
}

impl<T: Serialize + schemars::JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> CallToolResult {
        let failed = |err: serde_json::Error| format!("the tool's result could not be serialized: {err}");
        // The text is serialized from the value itself, so it keeps the fields' order as a
        // resource's `Json<T>` does (a `Value`'s map sorts its keys).
        let (value, text) = match serde_json::to_value(&self.0).and_then(|v| Ok((v, serde_json::to_string(&self.0)?))) {
            Ok((Value::Object(map), text)) => (Value::Object(map), text),
            Ok((other, text)) => {
                (Value::Object(Map::from_iter([("result".to_owned(), other)])), format!(r#"{{"result":{text}}}"#))
            }
            Err(err) => return CallToolResult::error(failed(err)),
        };
        CallToolResult {
            content: vec![Content::text(text)],
            structured_content: Some(value),
            is_error: false,
            meta: None,
        }
    }

    fn output_schema() -> Option<Map<String, Value>> {
        Some(output_schema_for::<T>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Clone, Serialize, schemars::JsonSchema)]
    struct Point {
        x: i32,
    }

    #[test]
    fn errors_become_error_results() {
        let result: Result<f64, String> = Err("cannot divide by zero".into());
        let result = result.into_tool_result();
        assert!(result.is_error);
        assert_eq!(result.text(), Some("cannot divide by zero"));
    }

    #[test]
    fn json_gives_structured_content_and_a_text_mirror() {
        let result = Json(Point { x: 3 }).into_tool_result();
        assert_eq!(result.structured_content, Some(json!({"x": 3})));
        assert_eq!(result.text(), Some(r#"{"x":3}"#));
        assert_eq!(<Json<Point>>::output_schema().unwrap()["type"], "object");
    }

    #[derive(Serialize, schemars::JsonSchema)]
    struct Todo {
        title: String,
        done: bool,
        added: u32,
    }

    #[test]
    fn json_text_keeps_the_fields_order_as_a_resource_does() {
        let todo = || Todo { title: "milk".into(), done: false, added: 1 };
        let result = Json(todo()).into_tool_result();
        assert_eq!(result.text(), Some(r#"{"title":"milk","done":false,"added":1}"#));
        let read = crate::resource::IntoReadResult::into_read_result(Json(todo()), "todo://1", None).unwrap();
        assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], result.text().unwrap());
        let listed = Json(vec![todo()]).into_tool_result();
        assert_eq!(listed.text(), Some(r#"{"result":[{"title":"milk","done":false,"added":1}]}"#));
        assert_eq!(listed.structured_content.unwrap()["result"][0]["title"], "milk");
    }

    #[test]
    fn non_object_json_is_wrapped_consistently_with_its_schema() {
        let result = Json(vec![1, 2]).into_tool_result();
        assert_eq!(result.structured_content, Some(json!({"result": [1, 2]})));
        let schema = <Json<Vec<i32>>>::output_schema().unwrap();
        assert_eq!(schema["required"], json!(["result"]));
    }

    #[test]
    fn a_finished_result_serializes_as_its_tool_result() {
        fn same<T: IntoToolResult + Clone>(value: T) {
            let finished = serde_json::to_string(&value.clone().into_finished()).unwrap();
            assert_eq!(finished, serde_json::to_string(&value.into_tool_result()).unwrap());
        }
        same("hello, \"world\"\n\u{7f}é 🦀".to_owned());
        same(String::new());
        same("static");
        same(Cow::<'static, str>::Borrowed("cow"));
        same(2.5f64);
        same(Ok::<_, String>("fine".to_owned()));
        same(Err::<String, _>("failed".to_owned()));
        same(Json(Point { x: 1 }));
        assert!(matches!("text".into_finished(), Finished::Text(_)));
    }

    #[test]
    fn numbers_render_without_noise() {
        assert_eq!(5.0f64.into_tool_result().text(), Some("5"));
        assert_eq!(0.25f64.into_tool_result().text(), Some("0.25"));
    }
}
