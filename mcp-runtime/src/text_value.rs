//! Typed values from strings: URI template variables and prompt arguments arrive as text and
//! bind to parameters of any `FromStr` type, or failing that any `Deserialize` type.
//!
//! Generated code calls `(&&TextValue::<T>::new()).parse_text(s)`. Method resolution tries the
//! receiver types `&TextValue<T>`, `&&TextValue<T>`, then `TextValue<T>` (autoref
//! specialization, resolved at compile time for each concrete `T`), skipping impls whose bounds
//! `T` does not meet: the `FromStr` impl comes first, then the `Deserialize` one, and last an
//! impl for every `T`. Each level also answers `support()`: [`Parses`] for the first two,
//! [`DoesNotParse`] for the last, which generated code passes where a
//! [`TextArgument`](crate::param::TextArgument) is required, so a type with neither fails to
//! compile with that trait's message, on the parameter's type. (The last resort itself compiles,
//! so that a parse written for an injected parameter, never called, does not fail.)

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

/// A type that parses from text.
pub struct Parses;

/// A type that parses from neither `FromStr` nor `Deserialize`.
pub struct DoesNotParse;

/// Parsing through `FromStr` (preferred).
pub trait ParseViaFromStr<T> {
    /// Parses `text`.
    fn parse_text(&self, text: &str) -> Result<T, String>;
    /// It parses.
    fn support(&self) -> Parses {
        Parses
    }
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
    /// It parses.
    fn support(&self) -> Parses {
        Parses
    }
}

impl<T: DeserializeOwned> ParseViaDeserialize<T> for &&TextValue<T> {
    fn parse_text(&self, text: &str) -> Result<T, String> {
        serde_json::from_value(serde_json::Value::String(text.to_owned()))
            .or_else(|first| serde_json::from_str(text).map_err(|_| first.to_string()))
    }
}

/// The last resort: chosen only for a `T` that is neither `FromStr` nor `Deserialize`, whose
/// `support()` is then [`DoesNotParse`].
pub trait ParseUnsupported<T> {
    /// Never called: generated code fails to compile first, or the parameter is injected.
    fn parse_text(&self, text: &str) -> Result<T, String>;
    /// It does not parse.
    fn support(&self) -> DoesNotParse {
        DoesNotParse
    }
}

impl<T> ParseUnsupported<T> for TextValue<T> {
    fn parse_text(&self, _: &str) -> Result<T, String> {
        Err("this type does not parse from text".to_owned())
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
