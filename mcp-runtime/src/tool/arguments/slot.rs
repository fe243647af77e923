//! A parameter's place in a call: an `Option` of its type, filled from the member that names it
//! by a decoder shared by every parameter of that type.

use super::failure;
use crate::tool::result::CallToolResult;
use serde::de::DeserializeOwned;

/// What the arguments' decoder needs of a parameter, whatever its type: the code generated for a
/// tool hands its parameters over as `&mut dyn Slot`, so the decoder is compiled once for every
/// tool and each type's decoding once for every parameter of that type.
pub trait Slot {
    /// Decodes the JSON value `json` starts with into the slot, and returns the length of its
    /// text; `None` when it is no value of the slot's type.
    fn fill(&mut self, json: &str) -> Option<usize>;
    /// Whether a member has filled it.
    fn is_filled(&self) -> bool;
    /// Empties it.
    fn clear(&mut self);
    /// The error result of `member`, a value that does not decode into the slot, naming the path
    /// to the bad value under `name`.
    fn failure(&self, tool: &str, name: &str, member: &str) -> CallToolResult;
}

impl<T: DeserializeOwned> Slot for Option<T> {
    fn fill(&mut self, json: &str) -> Option<usize> {
        // A stream of values stops at the end of the first and says where that is: the member is
        // decoded where it stands in the object, scanned once.
        let mut values = serde_json::Deserializer::from_str(json).into_iter::<T>();
        *self = Some(values.next()?.ok()?);
        Some(values.byte_offset())
    }

    fn is_filled(&self) -> bool {
        self.is_some()
    }

    fn clear(&mut self) {
        *self = None;
    }

    fn failure(&self, tool: &str, name: &str, member: &str) -> CallToolResult {
        failure::decoding::<T>(tool, name, member)
    }
}
