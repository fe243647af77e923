//! The tables the macros describe: tools (and, as they land, resources and prompts), kept as
//! immutable snapshots. List pages are serialized when a snapshot is built and sent as raw JSON;
//! a change (a tool added at run time) builds a new snapshot and tells every session.

use crate::error::Error;
use crate::jsonrpc::ErrorObject;
use crate::tool::descriptor::ToolDescriptor;
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use tokio::sync::broadcast;

/// One kind of listed item, in registration order, with its wire form and list pages.
pub(crate) struct Listing<T> {
    items: Vec<Listed<T>>,
    by_key: HashMap<String, usize>,
    pages: Vec<Box<RawValue>>,
}

/// An item and its serialized wire form (computed once, when it is added).
#[derive(Clone)]
pub(crate) struct Listed<T> {
    pub key: String,
    pub item: T,
    pub json: Box<RawValue>,
}

impl<T: Clone> Listed<T> {
    pub fn new(key: impl Into<String>, item: T, wire: &impl Serialize) -> Result<Self, Error> {
        let json = serde_json::value::to_raw_value(wire).map_err(|e| Error::msg(format!("cannot serialize: {e}")))?;
        Ok(Self { key: key.into(), item, json })
    }
}

impl<T: Clone> Listing<T> {
    /// `field` names the array in the list result (`tools`, `prompts`...); `what` names an item
    /// in error messages.
    fn build(items: Vec<Listed<T>>, field: &'static str, what: &str, page_size: usize) -> Result<Self, Error> {
        let mut by_key = HashMap::with_capacity(items.len());
        for (index, listed) in items.iter().enumerate() {
            if by_key.insert(listed.key.clone(), index).is_some() {
                return Err(Error::msg(format!("two {what}s are named `{}`: names must be unique", listed.key)));
            }
        }
        let raw: Vec<&RawValue> = items.iter().map(|l| &*l.json).collect();
        let chunks: Vec<&[&RawValue]> = if raw.is_empty() { vec![&[]] } else { raw.chunks(page_size.max(1)).collect() };
        let mut pages = Vec::with_capacity(chunks.len());
        for (i, chunk) in chunks.iter().enumerate() {
            let mut page = serde_json::Map::new();
            page.insert(field.into(), serde_json::to_value(chunk).unwrap_or_default());
            if i + 1 < chunks.len() {
                page.insert("nextCursor".into(), (i + 1).to_string().into());
            }
            pages.push(serde_json::value::to_raw_value(&page).map_err(|e| Error::msg(e.to_string()))?);
        }
        Ok(Self { items, by_key, pages })
    }

    pub fn get(&self, key: &str) -> Option<&T> {
        self.by_key.get(key).map(|&i| &self.items[i].item)
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The list page a cursor points at (cursors are page numbers, opaque to clients).
    pub fn page(&self, cursor: Option<&str>) -> Result<&RawValue, ErrorObject> {
        let index = match cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&i| i < self.pages.len())
                .ok_or_else(|| ErrorObject::invalid_params(format!("invalid cursor: {cursor:?}")))?,
        };
        Ok(&self.pages[index])
    }

    fn with(
        &self,
        added: Vec<Listed<T>>,
        removed: &[&str],
        field: &'static str,
        what: &str,
        page_size: usize,
    ) -> Result<Self, Error> {
        let items = self.items.iter().filter(|l| !removed.contains(&l.key.as_str())).cloned().chain(added).collect();
        Self::build(items, field, what, page_size)
    }
}

/// One immutable view of everything the server offers.
pub(crate) struct Registry {
    pub tools: Listing<ToolDescriptor>,
}

/// What changed, for the sessions to tell their clients.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    Tools,
}

/// The live registry: readers take the current snapshot; writers swap in a new one.
pub(crate) struct Catalog {
    current: RwLock<Arc<Registry>>,
    page_size: usize,
    changes: broadcast::Sender<Change>,
}

impl Catalog {
    pub fn new(tools: Vec<ToolDescriptor>, page_size: Option<usize>) -> Result<Self, Error> {
        let page_size = page_size.unwrap_or(usize::MAX);
        let tools = tools.into_iter().map(listed_tool).collect::<Result<_, _>>()?;
        let registry = Registry { tools: Listing::build(tools, "tools", "tool", page_size)? };
        Ok(Self { current: RwLock::new(Arc::new(registry)), page_size, changes: broadcast::channel(64).0 })
    }

    pub fn snapshot(&self) -> Arc<Registry> {
        Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()))
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// Adds and removes tools in one step (an added tool replaces a removed one of its name).
    pub fn change_tools(&self, added: Vec<ToolDescriptor>, removed: &[&str]) -> Result<(), Error> {
        let added = added.into_iter().map(listed_tool).collect::<Result<_, _>>()?;
        let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
        let tools = current.tools.with(added, removed, "tools", "tool", self.page_size)?;
        *current = Arc::new(Registry { tools });
        drop(current);
        let _ = self.changes.send(Change::Tools); // no session listening is fine
        Ok(())
    }
}

fn listed_tool(tool: ToolDescriptor) -> Result<Listed<ToolDescriptor>, Error> {
    let wire = tool.wire();
    Listed::new(tool.name, tool.clone(), &wire)
}
