//! The arguments' object split into the raw members a tool names, with serde's answers for an
//! object it does not take (not an object, a member given twice): the path the one pass hands
//! over to when it cannot finish.

use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// The members of `object` named in `names`, in their order (`None` for an absent one).
pub(super) fn split<'a>(object: &'a str, names: &[&str]) -> Result<Vec<Option<&'a RawValue>>, serde_json::Error> {
    let mut members = vec![None; names.len()];
    let mut deserializer = serde_json::Deserializer::from_str(object);
    serde::Deserializer::deserialize_map(&mut deserializer, Members { names, members: &mut members })?;
    Ok(members)
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
