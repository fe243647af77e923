//! Typed values from strings: URI template variables and prompt arguments arrive as text and
//! bind to parameters of any `FromStr` type, or failing that any `Deserialize` type.
//!
//! Generated code calls `(&&TextValue::<T>::new()).parse_text(s)`. Method resolution tries the
//! receiver types `&TextValue<T>`, `&&TextValue<T>`, then `TextValue<T>` (autoref
//! specialization, resolved at compile time for each concrete `T`), skipping impls whose bounds
//! `T` does not meet: the `FromStr` impl comes first, then the `Deserialize` one, and last an
//! impl for every `T` whose method requires [`FromText`], so a type with neither fails to
//! compile with that trait's message, on the parameter's type.

use serde::de::DeserializeOwned;
use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

/// The parser for one target type.
pub struct TextValue<T>(PhantomData<T>);

impl<T> TextValue<T> {
    /// A parser for `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

/// Parsing through `FromStr` (preferred).
pub trait ParseViaFromStr<T> {
    /// Parses `text`.
    fn parse_text(&self, text: &str) -> Result<T, String>;
}

impl<T: FromStr> ParseViaFromStr<T> for &TextValue<T>
where
    T::Err: Display,
{
    fn parse_text(&self, text: &str) -> Result<T, String> {
        text.parse().map_err(|e: T::Err| e.to_string())
    }
}

/// Parsing through `Deserialize`: the text as a JSON string, else as JSON.
pub trait ParseViaDeserialize<T> {
    /// Parses `text`.
    fn parse_text(&self, text: &str) -> Result<T, String>;
}

impl<T: DeserializeOwned> ParseViaDeserialize<T> for &&TextValue<T> {
    fn parse_text(&self, text: &str) -> Result<T, String> {
        serde_json::from_value(serde_json::Value::String(text.to_owned()))
            .or_else(|first| serde_json::from_str(text).map_err(|_| first.to_string()))
    }
}

/// What the last resort asks of `T`, to fail with a message that says what to write. Only
/// `FromStr` types implement it (so it is never met where the last resort is reached), and
/// `do_not_recommend` keeps rustc from listing every `FromStr` type after the message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be parsed from a template variable or prompt argument, which arrive as text",
    label = "implement `FromStr` or `Deserialize` for this type",
    note = "implement `std::str::FromStr` (with an `Err: Display`), or derive `serde::Deserialize` (the text is read as a JSON string, else as JSON: a unit-only enum parses from its variant names)"
)]
pub trait FromText {}

#[diagnostic::do_not_recommend]
impl<T: FromStr> FromText for T where T::Err: Display {}

/// The last resort: chosen only for a `T` that is neither `FromStr` nor `Deserialize`, and
/// then it does not compile, as its method requires [`FromText`].
pub trait ParseUnsupported<T> {
    /// Never called.
    fn parse_text(&self, text: &str) -> Result<T, String>
    where
        T: FromText;
}

impl<T> ParseUnsupported<T> for TextValue<T> {
    fn parse_text(&self, _: &str) -> Result<T, String>
    where
        T: FromText,
    {
        unreachable!("`FromText` types are `FromStr`, parsed by `ParseViaFromStr`")
    }
}

#[cfg(test)]
#[allow(clippy::needless_borrow)] // the borrow is what selects the impl, as in generated code
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Language {
        Rust,
    }

    #[test]
    fn from_str_is_preferred_and_deserialize_is_the_fallback() {
        assert_eq!((&&TextValue::<u32>::new()).parse_text("42"), Ok(42));
        assert_eq!((&&TextValue::<u32>::new()).parse_text("042"), Ok(42), "`FromStr`, not JSON");
        assert!((&&TextValue::<u32>::new()).parse_text("x").is_err());
        assert_eq!((&&TextValue::<String>::new()).parse_text("a b"), Ok("a b".to_owned()));
        assert_eq!((&&TextValue::<Language>::new()).parse_text("rust"), Ok(Language::Rust));
        assert_eq!((&&TextValue::<Vec<u8>>::new()).parse_text("[1, 2]"), Ok(vec![1, 2]));
    }
}
