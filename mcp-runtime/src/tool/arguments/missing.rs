//! The value of an absent member, as serde's derived structs see one: `None` to whatever asks
//! for an option (so an `Option` parameter, or one the server provides, needs no member), an
//! error to anything else.

use serde::de::{Deserializer, Visitor};
use serde::forward_to_deserialize_any;

/// An absent member.
pub(super) struct Member;

/// Why an absent member is no value of the type asked for (the caller words the message).
#[derive(Debug)]
pub(super) struct Absent;

impl std::fmt::Display for Absent {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("absent")
    }
}

impl std::error::Error for Absent {}

impl serde::de::Error for Absent {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Absent
    }
}

impl<'de> Deserializer<'de> for Member {
    type Error = Absent;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Absent> {
        Err(Absent)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Absent> {
        visitor.visit_none()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}
