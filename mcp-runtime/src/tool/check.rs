//! Tool arguments checked against every constraint their input schema advertises, before the
//! function runs (feature `validation`, on by default): a call that breaks one gets a tool
//! error result naming each field and the rule it breaks, so the model can correct its call.
//!
//! A tool is checked only when its schema says more than serde enforces as it decodes the
//! arguments (`constraints.rs`). That is decided, and the validator compiled, once per tool,
//! when the tool is first called rather than when the server is built: deriving a hundred
//! schemas would be most of a server's start-up. A server built without the feature, or with
//! [`Server::check_arguments(false)`](crate::Server::check_arguments), checks nothing, and says
//! so in its log when its tools are registered, naming those whose constraints go unchecked.

#[cfg(feature = "validation")]
mod compile;
#[cfg(feature = "validation")]
mod format;
#[cfg(feature = "validation")]
mod json;
#[cfg(feature = "validation")]
mod messages;
#[cfg(feature = "validation")]
mod pattern;
#[cfg(feature = "validation")]
mod resources;
#[cfg(feature = "validation")]
mod schema;
#[cfg(all(test, feature = "validation"))]
mod suite;
#[cfg(feature = "validation")]
mod validate;
#[cfg(feature = "validation")]
mod validator;

use super::constraints::{SchemaSource, beyond_types};
use super::descriptor::ToolDescriptor;
use serde_json::value::RawValue;
use std::sync::{Arc, OnceLock};
#[cfg(feature = "validation")]
pub(crate) use validator::ArgumentCheck;

/// The argument checks of a catalog's tools, by the tools' indexes in its listing.
pub(crate) struct ArgumentChecks {
    /// Whether tools are checked: built with feature `validation`, and not switched off.
    enabled: bool,
    /// Tool `i`'s check, decided when the tool is first called (`None`: its schema says
    /// nothing serde does not enforce); empty when checks are off.
    cells: Box<[OnceLock<Option<Arc<ArgumentCheck>>>]>,
}

impl ArgumentChecks {
    /// The checks of a catalog without tools yet: on when `wanted` and built with the feature.
    pub fn new(wanted: bool) -> Self {
        Self { enabled: wanted && cfg!(feature = "validation"), cells: Box::default() }
    }

    /// The checks of the next snapshot of the catalog. `tools` says, for each of its tools,
    /// which tool of this snapshot it was (`Some(i)`: its check carries over, compiled or
    /// not) or that it is new (`None`).
    pub fn next(&self, tools: impl Iterator<Item = Option<usize>>) -> Self {
        let cells = match self.enabled {
            true => tools.map(|old| old.and_then(|i| self.cells.get(i)).cloned().unwrap_or_default()).collect(),
            false => Box::default(),
        };
        Self { enabled: self.enabled, cells }
    }

    /// `Err` with a message naming each field of `arguments` that breaks a constraint of
    /// `tool`, tool `index` of the listing.
    pub fn check(&self, index: usize, tool: &ToolDescriptor, arguments: Option<&RawValue>) -> Result<(), String> {
        let Some(cell) = self.cells.get(index) else { return Ok(()) };
        let check =
            cell.get_or_init(|| ArgumentCheck::of(&tool.name, (tool.input_schema)(), source(tool)).map(Arc::new));
        match check {
            Some(check) => check.check(&tool.name, arguments),
            None => Ok(()),
        }
    }

    /// Logs, when checks are off, which of `tools` advertise constraints that no one checks.
    pub fn warn_unchecked(&self, tools: &[ToolDescriptor]) {
        if self.enabled {
            return;
        }
        let unchecked: Vec<&str> =
            tools.iter().filter(|tool| beyond_types(&(tool.input_schema)(), source(tool))).map(|t| &*t.name).collect();
        if unchecked.is_empty() {
            return;
        }
        let why = match cfg!(feature = "validation") {
            true => "argument checks are off (`Server::check_arguments(false)`)",
            false => "mcp-runtime is built without its feature `validation`",
        };
        tracing::warn!(
            tools = ?unchecked,
            "{why}: the constraints the input schemas of these tools advertise are not checked before they run: {}",
            unchecked.join(", ")
        );
    }
}

fn source(tool: &ToolDescriptor) -> SchemaSource {
    if tool.input_schema_verbatim { SchemaSource::Verbatim } else { SchemaSource::Derived }
}

/// Without feature `validation` there are no checks: the type has no values.
#[cfg(not(feature = "validation"))]
pub(crate) enum ArgumentCheck {}

#[cfg(not(feature = "validation"))]
impl ArgumentCheck {
    fn of(_tool: &str, _schema: serde_json::Map<String, serde_json::Value>, _source: SchemaSource) -> Option<Self> {
        None
    }

    fn check(&self, _tool: &str, _arguments: Option<&RawValue>) -> Result<(), String> {
        match *self {}
    }
}
