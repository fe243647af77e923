//! Typed values from strings: URI template variables and prompt arguments arrive as text and
//! bind to parameters of any `FromStr` type, or failing that any `Deserialize` type.
//!
//! Generated code calls `(&TextValue::<T>::new()).parse_text(s)`: method resolution picks the
//! `FromStr` impl (on `&TextValue<T>`) when `T` has one, and the `Deserialize` impl otherwise
//! (autoref specialization, resolved at compile time for each concrete `T`).

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

impl<T: DeserializeOwned> ParseViaDeserialize<T> for TextValue<T> {
    fn parse_text(&self, text: &str) -> Result<T, String> {
        serde_json::from_value(serde_json::Value::String(text.to_owned()))
            .or_else(|first| serde_json::from_str(text).map_err(|_| first.to_string()))
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
        assert_eq!((&TextValue::<u32>::new()).parse_text("42"), Ok(42));
        assert!((&TextValue::<u32>::new()).parse_text("x").is_err());
        assert_eq!((&TextValue::<String>::new()).parse_text("a b"), Ok("a b".to_owned()));
        assert_eq!((&TextValue::<Language>::new()).parse_text("rust"), Ok(Language::Rust));
    }
}
