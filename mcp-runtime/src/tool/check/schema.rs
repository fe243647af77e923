//! A JSON Schema compiled into a tree of keyword checks (`compile.rs` builds it, `validate.rs`
//! runs it): subschemas live in one arena and refer to each other by index, so a `$ref` that
//! leads back to a schema containing it is an edge, not an infinite tree.

use super::format::Format;
use regex_lite::Regex;
use serde_json::{Number, Value};

/// A subschema's index in [`Schema::nodes`].
pub(super) type NodeId = usize;

/// A compiled schema: its subschemas, the root first.
pub(super) struct Schema {
    pub nodes: Vec<Node>,
}

impl Schema {
    /// The root's index.
    pub const ROOT: NodeId = 0;
}

/// One subschema.
pub(super) enum Node {
    /// `true` accepts any value, `false` none.
    Bool(bool),
    /// An object schema: every keyword must hold.
    Keywords(Keywords),
}

/// An object schema's checks, in the order they run.
#[derive(Default)]
pub(super) struct Keywords {
    pub checks: Vec<Keyword>,
    /// The `unevaluatedProperties` schema, run after the others since it needs what they
    /// evaluated.
    pub unevaluated_properties: Option<NodeId>,
    /// The `unevaluatedItems` schema, likewise.
    pub unevaluated_items: Option<NodeId>,
}

/// The JSON types `type` names, as bits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Types(pub u8);

impl Types {
    pub const NULL: u8 = 1;
    pub const BOOLEAN: u8 = 2;
    pub const OBJECT: u8 = 4;
    pub const ARRAY: u8 = 8;
    pub const NUMBER: u8 = 16;
    pub const STRING: u8 = 32;
    pub const INTEGER: u8 = 64;
    /// The names, in the order of the bits.
    pub const NAMES: [&'static str; 7] = ["null", "boolean", "object", "array", "number", "string", "integer"];

    /// The bit of a type's name.
    pub fn bit(name: &str) -> Option<u8> {
        Self::NAMES.iter().position(|known| *known == name).map(|i| 1 << i)
    }
}

/// A bound on a number, a length or a count.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

/// One keyword's check.
pub(super) enum Keyword {
    Type(Types),
    Enum(Box<[Value]>),
    Const(Value),
    /// A number's bound.
    Number(Bound, Number),
    MultipleOf(Number),
    /// `minLength` (`Bound::Minimum`) or `maxLength`, in Unicode scalar values.
    Length(Bound, u64),
    /// The regex, and the pattern as written (for the message).
    Pattern(Regex, Box<str>),
    Format(Format),
    /// `minItems` or `maxItems`.
    Items(Bound, u64),
    UniqueItems,
    Contains {
        schema: NodeId,
        min: u64,
        max: Option<u64>,
    },
    /// `minProperties` or `maxProperties`.
    Properties(Bound, u64),
    Required(Box<[String]>),
    /// Each name present requires the others.
    DependentRequired(Box<[(String, Box<[String]>)]>),
    /// Each name present applies a schema to the whole object.
    DependentSchemas(Box<[(String, NodeId)]>),
    /// `properties`, `patternProperties` and `additionalProperties` together, since the last
    /// applies to the members the first two leave.
    Members(Members),
    PropertyNames(NodeId),
    /// `prefixItems` and `items` together (and a draft-07 `items` array with `additionalItems`).
    Elements {
        prefix: Box<[NodeId]>,
        rest: Option<NodeId>,
    },
    AllOf(Box<[NodeId]>),
    AnyOf(Box<[NodeId]>),
    OneOf(Box<[NodeId]>),
    Not(NodeId),
    IfThenElse {
        condition: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
    },
    Ref(NodeId),
}

/// The schemas an object's members get.
pub(super) struct Members {
    pub properties: Box<[(String, NodeId)]>,
    pub patterns: Box<[(Regex, NodeId)]>,
    pub additional: Option<NodeId>,
}

impl Members {
    /// Whether `properties` or `patternProperties` names `name`.
    pub fn names(&self, name: &str) -> bool {
        self.properties.iter().any(|(known, _)| known == name) || self.patterns.iter().any(|(re, _)| re.is_match(name))
    }
}
