//! Tools: what `#[mcp_tool]` describes, and the traits its generated code relies on.

pub(crate) mod arguments;
pub(crate) mod check;
mod confirm;
mod constraints;
pub(crate) mod descriptor;
pub(crate) mod profile;
mod result;
pub(crate) mod schema;
mod vocabulary;

pub(crate) use confirm::confirm;
pub use result::{CallToolResult, IntoToolResult, Json};

pub use crate::protocol::Icon;
pub use descriptor::Str;
pub use descriptor::TaskSupport;
pub use descriptor::ToolDescriptor;
pub(crate) use descriptor::raw_meta;
pub use profile::SchemaProfile;
use serde::Serialize;

/// Implemented by the hidden item `#[mcp_tool]` puts next to a function (a struct with the
/// function's name, in the type namespace), so `tools![add]` can find the descriptor of `add`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP tool",
    label = "not marked with `#[mcp_tool]`",
    note = "put `#[mcp_tool]` on the function before listing it in `tools![...]`"
)]
pub trait ToolDef {
    /// The tool's wire name, for the compile-time duplicate check.
    const NAME: &'static str;
    /// The tool's descriptor.
    fn descriptor() -> ToolDescriptor;
}

/// The hints a client may show about a tool (`ToolAnnotations` on the wire; read from it too,
/// e.g. from a file of tool definitions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    #[serde(rename = "readOnlyHint", skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may destroy data.
    #[serde(rename = "destructiveHint", skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling it twice with the same arguments has no further effect.
    #[serde(rename = "idempotentHint", skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// The tool reaches outside systems.
    #[serde(rename = "openWorldHint", skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// The tools of a server, in the order they were listed; built by `tools![...]`, or collected
/// from descriptors ([`ToolDescriptor::builder`]: `ToolSet::from_iter([a, b])`, `a.into()`).
#[derive(Default)]
pub struct ToolSet {
    pub(crate) tools: Vec<ToolDescriptor>,
}

impl From<ToolDescriptor> for ToolSet {
    fn from(item: ToolDescriptor) -> Self {
        Self { tools: vec![item] }
    }
}

impl FromIterator<ToolDescriptor> for ToolSet {
    fn from_iter<I: IntoIterator<Item = ToolDescriptor>>(items: I) -> Self {
        Self { tools: items.into_iter().collect() }
    }
}

impl ToolSet {
    /// What the list macro builds: each item's descriptor function, called once here (a
    /// slice of functions rather than an array of descriptors, which the caller would build
    /// on its stack and copy).
    #[doc(hidden)]
    pub fn from_fns(descriptors: &[fn() -> ToolDescriptor]) -> Self {
        Self { tools: descriptors.iter().map(|descriptor| descriptor()).collect() }
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}
