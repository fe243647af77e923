//! A parameter's place in a call: filled from the member that names it, by a decoder shared by
//! every parameter of its type, or as an absent member (its default, `None` for an `Option`).

use super::{failure, missing};
use crate::tool::result::CallToolResult;
use serde::de::DeserializeOwned;
use std::marker::PhantomData;

/// What the arguments' decoder needs of a parameter, whatever its type: the code generated for a
/// tool hands its parameters over as `&mut dyn Slot`, so the decoder is compiled once for every
/// tool and each type's decoding once for every parameter of that type.
pub trait Slot {
    /// Decodes the JSON value `json` starts with into the slot, and returns the length of its
    /// text; `None` when it is no value of the slot's type.
    fn fill(&mut self, json: &str) -> Option<usize>;
    /// Fills the slot for a member the client left out: with its default, or as a derived struct
    /// does (`None` for an `Option`); `false` when the member is required.
    fn fill_absent(&mut self) -> bool;
    /// Whether it is filled.
    fn is_filled(&self) -> bool;
    /// Empties it.
    fn clear(&mut self);
    /// The error result of `member`, a value that does not decode into the slot, naming the path
    /// to the bad value under `name`.
    fn failure(&self, tool: &str, name: &str, member: &str) -> CallToolResult;
}

/// The slot of a parameter of type `T`.
pub struct Argument<T> {
    pub(super) value: Option<T>,
    default: Option<fn() -> T>,
}

impl<T> Argument<T> {
    /// A parameter without a default.
    pub fn new() -> Self {
        Argument { value: None, default: None }
    }

    /// A parameter that takes `default()` when absent (`#[mcp(default = ...)]`).
    pub fn with_default(default: fn() -> T) -> Self {
        Argument { value: None, default: Some(default) }
    }

    /// A parameter of the type a probe picked (`#[mcp_tool]`'s parameters whose role their type
    /// decides).
    pub fn shaped(_shape: PhantomData<T>) -> Self {
        Self::new()
    }

    /// The parameter, once the arguments' decoder has filled the slot.
    #[inline(never)] // once per type, not in every tool's code
    pub fn into_value(self) -> T {
        self.value.expect("decoding the arguments fills every slot")
    }
}

impl<T> Default for Argument<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: DeserializeOwned> Slot for Argument<T> {
    fn fill(&mut self, json: &str) -> Option<usize> {
        // A stream of values stops at the end of the first and says where that is: the member is
        // decoded where it stands in the object, scanned once.
        let mut values = serde_json::Deserializer::from_str(json).into_iter::<T>();
        self.value = Some(values.next()?.ok()?);
        Some(values.byte_offset())
    }

    fn fill_absent(&mut self) -> bool {
        self.value = match self.default {
            Some(default) => Some(default()),
            None => T::deserialize(missing::Member).ok(),
        };
        self.value.is_some()
    }

    fn is_filled(&self) -> bool {
        self.value.is_some()
    }

    fn clear(&mut self) {
        self.value = None;
    }

    fn failure(&self, tool: &str, name: &str, member: &str) -> CallToolResult {
        failure::decoding::<T>(tool, name, member)
    }
}
