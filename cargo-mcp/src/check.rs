//! The surface check: a server's current surface against the recorded `mcp-surface.json`, and
//! its `tools/list` against the token budget. `cargo mcp surface --check` runs it on a process;
//! [`assert_surface_compatible`] runs it in a unit test on an in-process server:
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::testing::TestClient;
//!
//! /// Add two numbers.
//! #[mcp_tool]
//! fn add(a: f64, b: f64) -> f64 {
//!     a + b
//! }
//!
//! # #[mcp_runtime::main]
//! # async fn main() {
//! let client = TestClient::connect(server!().tools(tools![add])).await;
//! cargo_mcp::check::assert_surface_compatible(&client, "mcp-surface.json").await;
//! # }
//! ```

use crate::compat::{Change, compare};
use crate::connection::{Connection, ConnectionError, METHOD_NOT_FOUND};
use crate::surface::Surface;
use mcp_runtime::testing::TestClient;
use serde_json::Value;
use std::fmt;
use std::path::Path;

/// What a server shows now: its surface, with the token count of `tools/list` filled in.
pub async fn fetch(connection: &mut impl Connection) -> Result<Surface, ConnectionError> {
    let tools = connection.list_tools().await.or_else(absent)?;
    let resources = connection.list_resources().await.or_else(absent)?;
    let templates = connection.list_resource_templates().await.or_else(absent)?;
    let prompts = connection.list_prompts().await.or_else(absent)?;
    let mut surface = Surface::from_lists(&tools, &resources, &templates, &prompts);
    surface.tokens = Some(crate::tokens::tools_list(&tools));
    Ok(surface)
}

/// A list the server does not serve (it has no prompts...) is an empty one.
fn absent(error: ConnectionError) -> Result<Vec<Value>, ConnectionError> {
    match error {
        ConnectionError::Rpc { code: METHOD_NOT_FOUND, .. } => Ok(Vec::new()),
        other => Err(other),
    }
}

/// The outcome of a check.
#[derive(Clone, Debug)]
pub struct Report {
    /// Every change from the recorded surface, breaking ones first.
    pub changes: Vec<Change>,
    /// The tokens of the current `tools/list`.
    pub tokens: u64,
    /// The recorded budget, if the file sets one.
    pub token_budget: Option<u64>,
}

impl Report {
    /// Compares `current` with `recorded`, and `current`'s token count with `recorded`'s budget.
    pub fn new(recorded: &Surface, current: &Surface) -> Self {
        Report {
            changes: compare(recorded, current),
            tokens: current.tokens.unwrap_or(0),
            token_budget: recorded.token_budget,
        }
    }

    /// The changes that can break a client.
    pub fn breaking(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.is_breaking())
    }

    /// Whether `tools/list` takes more tokens than the budget allows.
    pub fn over_budget(&self) -> bool {
        self.token_budget.is_some_and(|budget| self.tokens > budget)
    }

    /// No breaking change, and within the budget.
    pub fn passed(&self) -> bool {
        self.breaking().next().is_none() && !self.over_budget()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for change in &self.changes {
            writeln!(f, "{change}")?;
        }
        let encoding = crate::tokens::ENCODING;
        match self.token_budget {
            Some(budget) if self.over_budget() => writeln!(
                f,
                "over budget: tools/list takes {} tokens ({encoding}), over the budget of {budget} (\"tokenBudget\"); shorten descriptions or schemas, or raise the budget",
                self.tokens
            )?,
            Some(budget) => writeln!(f, "tools/list takes {} of {budget} tokens ({encoding})", self.tokens)?,
            None => writeln!(f, "tools/list takes {} tokens ({encoding}); no \"tokenBudget\" set", self.tokens)?,
        }
        let breaking = self.breaking().count();
        if breaking > 0 {
            writeln!(
                f,
                "{breaking} breaking change(s): restore what clients rely on, or, if the break is intended, record the new surface (`cargo mcp surface`) and bump the major version"
            )?;
        } else if !self.changes.is_empty() {
            writeln!(f, "compatible; record the new surface with `cargo mcp surface` to keep the file current")?;
        }
        Ok(())
    }
}

/// Reads a surface file, with a message that says how to make one when it is missing.
pub fn read(path: &Path) -> Result<Surface, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "no surface file at {}: record one first with `cargo mcp surface --stdio target/debug/<server>` (without --check)",
                path.display()
            )
        } else {
            format!("cannot read {}: {e}", path.display())
        }
    })?;
    Surface::from_json_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `surface` to `path`, keeping the budget recorded there (when `surface` sets none).
/// Returns whether the file changed.
pub fn write(path: &Path, surface: &Surface) -> Result<bool, String> {
    let previous = std::fs::read_to_string(path).ok();
    let mut surface = surface.clone();
    if surface.token_budget.is_none() {
        surface.token_budget =
            previous.as_deref().and_then(|text| Surface::from_json_str(text).ok()).and_then(|s| s.token_budget);
    }
    let text = surface.to_json_string();
    if previous.as_deref() == Some(text.as_str()) {
        return Ok(false);
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(true)
}

/// Panics (failing the test) when the server behind `client` breaks the surface recorded in
/// `path` (relative to the crate's directory when run by `cargo test`), or exceeds its
/// `"tokenBudget"`. The message lists each breaking change.
pub async fn assert_surface_compatible(client: &TestClient, path: impl AsRef<Path>) {
    let path = path.as_ref();
    let recorded = read(path).unwrap_or_else(|e| panic!("{e}"));
    let report = check(client, &recorded).await;
    assert!(report.passed(), "the server's surface is not compatible with {}:\n{report}", path.display());
}

/// Checks the server behind `client` against `recorded`.
pub async fn check(client: &TestClient, recorded: &Surface) -> Report {
    let mut connection = client;
    let current = fetch(&mut connection).await.unwrap_or_else(|e| panic!("cannot list the server's surface: {e}"));
    Report::new(recorded, &current)
}

/// Records the surface of the server behind `client` in `path` (keeping its budget).
pub async fn record_surface(client: &TestClient, path: impl AsRef<Path>) {
    let mut connection = client;
    let current = fetch(&mut connection).await.unwrap_or_else(|e| panic!("cannot list the server's surface: {e}"));
    write(path.as_ref(), &current).unwrap_or_else(|e| panic!("{e}"));
}
