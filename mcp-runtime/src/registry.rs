//! The tables the macros describe: tools, resources, resource templates and prompts, kept as
//! immutable snapshots. List pages are serialized when a snapshot is built and sent as raw JSON;
//! a change (a tool added at run time) builds a new snapshot and tells every session.

use crate::clip::clip;
use crate::error::{Error, ErrorKind};
use crate::jsonrpc::ErrorObject;
use crate::prompt::PromptDescriptor;
use crate::resource::ResourceDescriptor;
use crate::resource::uri_template::{Bindings, UriTemplate};
use crate::tool::descriptor::ToolDescriptor;
use arc_swap::ArcSwap;
use foldhash::HashMap;
use foldhash::HashMapExt as _;
use serde::Serialize;
use serde_json::value::RawValue;
use std::sync::{Arc, Mutex, PoisonError};
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
    /// Shown by the list method; an unlisted item can still be called by name.
    pub listed: bool,
}

impl<T: Clone> Listed<T> {
    pub fn new(key: impl Into<String>, item: T, wire: &impl Serialize) -> Result<Self, Error> {
        let json = serde_json::value::to_raw_value(wire)
            .map_err(|e| Error::new(ErrorKind::Config, "cannot serialize a descriptor").with_source(e))?;
        Ok(Self { key: key.into(), item, json, listed: true })
    }

    /// Kept out of the list pages (still callable by name).
    pub fn listed(mut self, listed: bool) -> Self {
        self.listed = listed;
        self
    }
}

impl<T: Clone> Listing<T> {
    /// `field` names the array in the list result (`tools`, `prompts`...); `what` names an item
    /// in error messages.
    fn build(items: Vec<Listed<T>>, field: &'static str, what: &str, page_size: usize) -> Result<Self, Error> {
        let mut by_key = HashMap::with_capacity(items.len());
        for (index, listed) in items.iter().enumerate() {
            if by_key.insert(listed.key.clone(), index).is_some() {
                return Err(Error::new(
                    ErrorKind::Config,
                    format!("two {what}s are named `{}`: names must be unique", listed.key),
                ));
            }
        }
        let raw: Vec<&RawValue> = items.iter().filter(|l| l.listed).map(|l| &*l.json).collect();
        let chunks: Vec<&[&RawValue]> = if raw.is_empty() { vec![&[]] } else { raw.chunks(page_size.max(1)).collect() };
        let mut pages = Vec::with_capacity(chunks.len());
        for (i, chunk) in chunks.iter().enumerate() {
            let mut page = serde_json::Map::new();
            page.insert(field.into(), serde_json::to_value(chunk).unwrap_or_default());
            if i + 1 < chunks.len() {
                page.insert("nextCursor".into(), (i + 1).to_string().into());
            }
            pages.push(
                serde_json::value::to_raw_value(&page)
                    .map_err(|e| Error::new(ErrorKind::Config, "cannot serialize a list page").with_source(e))?,
            );
        }
        Ok(Self { items, by_key, pages })
    }

    pub fn get(&self, key: &str) -> Option<&T> {
        self.by_key.get(key).map(|&i| &self.items[i].item)
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn item(&self, index: usize) -> &T {
        &self.items[index].item
    }

    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.items.iter().map(|l| &l.item)
    }

    /// Every item's wire form, in order.
    pub fn wire_items(&self) -> impl Iterator<Item = &RawValue> {
        self.items.iter().filter(|l| l.listed).map(|l| &*l.json)
    }

    /// The list page a cursor points at (cursors are page numbers, opaque to clients).
    pub fn page(&self, cursor: Option<&str>) -> Result<&RawValue, ErrorObject> {
        let index = match cursor {
            None => 0,
            Some(cursor) => cursor.parse::<usize>().ok().filter(|&i| i < self.pages.len()).ok_or_else(|| {
                ErrorObject::invalid_params(format!("invalid cursor: {:?}", clip(cursor).to_string()))
            })?,
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

/// A resource template with its parsed form.
#[derive(Clone)]
pub(crate) struct Template {
    pub descriptor: ResourceDescriptor,
    pub template: UriTemplate,
}

/// One immutable view of everything the server offers.
pub(crate) struct Registry {
    pub tools: Listing<ToolDescriptor>,
    pub resources: Listing<ResourceDescriptor>,
    pub templates: Listing<Template>,
    /// Indexes into `templates`, most specific first: the order URIs are matched in.
    pub match_order: Vec<usize>,
    pub prompts: Listing<PromptDescriptor>,
    /// The most items per list page.
    pub page_size: usize,
}

impl Registry {
    /// The template a URI matches (the most specific one) and its bindings.
    pub fn match_template(&self, uri: &str) -> Option<(&Template, Bindings)> {
        self.match_order.iter().map(|&i| self.templates.item(i)).find_map(|t| Some((t, t.template.matches(uri)?)))
    }

    /// Whether any template enumerates concrete resources (then `resources/list` runs user code).
    pub fn has_resource_lists(&self) -> bool {
        self.templates.items().any(|t| t.descriptor.list.is_some())
    }

    /// Whether anything can be completed.
    pub fn has_completions(&self) -> bool {
        !self.prompts.is_empty() || !self.templates.is_empty()
    }
}

/// What changed, for the sessions to tell their clients.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    Tools,
    Resources,
    Prompts,
    ResourceUpdated(Arc<str>),
}

/// Everything registered, before it is indexed.
#[derive(Default)]
pub(crate) struct Definitions {
    pub tools: Vec<ToolDescriptor>,
    pub resources: Vec<ResourceDescriptor>,
    pub prompts: Vec<PromptDescriptor>,
}

impl Definitions {
    /// Refuses handlers that take a `State<T>` not in `registered` (see `required_state`).
    pub fn check_required_state(&self, registered: &crate::type_map::TypeMap) -> crate::Result<()> {
        use crate::required_state::check;
        for tool in &self.tools {
            check("tool", tool.name, &tool.required_state, registered)?;
        }
        for resource in &self.resources {
            check("resource", resource.uri, &resource.required_state, registered)?;
        }
        for prompt in &self.prompts {
            check("prompt", prompt.name, &prompt.required_state, registered)?;
        }
        Ok(())
    }
}

/// Additions and removals (by name, URI or template) applied in one step.
#[derive(Default)]
pub(crate) struct Edit<'a> {
    pub add: Definitions,
    pub remove_tools: &'a [&'a str],
    pub remove_resources: &'a [&'a str],
    pub remove_prompts: &'a [&'a str],
}

/// The live registry: readers take the current snapshot; writers swap in a new one.
pub(crate) struct Catalog {
    /// Read on every request: a load takes no lock and bumps no shared count (an `RwLock` and
    /// an `Arc` clone were four atomic updates of one cache line every worker shares).
    current: ArcSwap<Registry>,
    /// Serializes edits, each of which builds the next snapshot from the last.
    editing: Mutex<()>,
    page_size: usize,
    changes: broadcast::Sender<Change>,
}

impl Catalog {
    pub fn new(definitions: Definitions, page_size: Option<usize>) -> Result<Self, Error> {
        let page_size = page_size.unwrap_or(usize::MAX);
        let empty = Registry {
            tools: Listing::build(Vec::new(), "tools", "tool", page_size)?,
            resources: Listing::build(Vec::new(), "resources", "resource", page_size)?,
            templates: Listing::build(Vec::new(), "resourceTemplates", "resource template", page_size)?,
            match_order: Vec::new(),
            prompts: Listing::build(Vec::new(), "prompts", "prompt", page_size)?,
            page_size,
        };
        let registry = apply(&empty, Edit { add: definitions, ..Edit::default() }, page_size)?;
        Ok(Self {
            current: ArcSwap::from_pointee(registry),
            editing: Mutex::new(()),
            page_size,
            changes: broadcast::channel(64).0,
        })
    }

    /// The current tables, for the request at hand: hold it only while handling one message.
    pub fn snapshot(&self) -> arc_swap::Guard<Arc<Registry>> {
        self.current.load()
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// Applies an edit and tells every session what kinds of things changed.
    pub fn edit(&self, edit: Edit<'_>) -> Result<(), Error> {
        let kinds = [
            (!edit.add.tools.is_empty() || !edit.remove_tools.is_empty(), Change::Tools),
            (!edit.add.resources.is_empty() || !edit.remove_resources.is_empty(), Change::Resources),
            (!edit.add.prompts.is_empty() || !edit.remove_prompts.is_empty(), Change::Prompts),
        ];
        let editing = self.editing.lock().unwrap_or_else(PoisonError::into_inner);
        self.current.store(Arc::new(apply(&self.current.load(), edit, self.page_size)?));
        drop(editing);
        for (changed, change) in kinds {
            if changed {
                self.announce(change);
            }
        }
        Ok(())
    }

    pub fn announce(&self, change: Change) {
        let _ = self.changes.send(change); // no session listening is fine
    }
}

fn apply(base: &Registry, edit: Edit<'_>, page_size: usize) -> Result<Registry, Error> {
    let Edit { add, remove_tools, remove_resources, remove_prompts } = edit;
    let tools = add
        .tools
        .into_iter()
        .map(|t| Listed::new(t.name, t.clone(), &t.wire()).map(|l| l.listed(!t.hidden)))
        .collect::<Result<_, _>>()?;
    let (mut statics, mut templates) = (Vec::new(), Vec::new());
    for resource in add.resources {
        let template = UriTemplate::parse(resource.uri).map_err(|e| {
            Error::new(ErrorKind::Config, format!("invalid URI template `{}`", resource.uri)).with_source(e)
        })?;
        if template.is_static() {
            statics.push(Listed::new(resource.uri, resource.clone(), &resource.wire(false))?);
        } else {
            let wire = resource.wire(true);
            templates.push(Listed::new(resource.uri, Template { descriptor: resource.clone(), template }, &wire)?);
        }
    }
    let prompts =
        add.prompts.into_iter().map(|p| Listed::new(p.name, p.clone(), &p.wire())).collect::<Result<_, _>>()?;
    let templates =
        base.templates.with(templates, remove_resources, "resourceTemplates", "resource template", page_size)?;
    let mut match_order: Vec<usize> = (0..templates.len()).collect();
    match_order.sort_by_key(|&i| std::cmp::Reverse(templates.item(i).template.specificity()));
    Ok(Registry {
        tools: base.tools.with(tools, remove_tools, "tools", "tool", page_size)?,
        resources: base.resources.with(statics, remove_resources, "resources", "resource", page_size)?,
        templates,
        match_order,
        prompts: base.prompts.with(prompts, remove_prompts, "prompts", "prompt", page_size)?,
        page_size,
    })
}
