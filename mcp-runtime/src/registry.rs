//! The tables the macros describe: tools, resources, resource templates and prompts, kept as
//! immutable snapshots. List pages are serialized once, when first asked for, and sent as raw
//! JSON; a change (a tool added at run time) builds a new snapshot and tells every session.

use crate::clip::clip;
use crate::completion::{CompleteFn, Reference};
use crate::error::{Error, ErrorKind};
use crate::jsonrpc::{ErrorObject, code};
use crate::prompt::PromptDescriptor;
use crate::resource::ResourceDescriptor;
use crate::resource::uri_template::{Bindings, UriTemplate};
use crate::sync::{Broadcast, lock};
use crate::tool::SchemaProfile;
use crate::tool::check::ArgumentChecks;
use crate::tool::descriptor::{Str, ToolDescriptor};
use arc_swap::ArcSwap;
use foldhash::HashMap;
use foldhash::HashMapExt as _;
use serde_json::value::RawValue;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::broadcast;

/// One kind of listed item, in registration order, with its wire forms and list pages.
///
/// The items are kept as registered, moved in rather than copied (a copy of 103 tool
/// descriptors touched eight fresh pages of memory, each a page fault, before the first
/// answer). Wire forms and pages are serialized when first listed, not when the server is
/// built: a server answers `initialize` before it has serialized its catalog (with 103 tools,
/// that was 5.2 M of the 5.9 M instructions from `exec` to the first answer).
pub(crate) struct Listing<T> {
    items: Vec<T>,
    /// Keys are the items' own `Str`s: a name the macros wrote costs no allocation.
    by_key: HashMap<Str, usize>,
    /// Each item's wire form in each of [`ListItem::FORMS`] forms (item `i`'s form `f` at
    /// `i * FORMS + f`), computed when first listed, the cells too; an edit's new snapshot
    /// keeps the ones its items computed.
    json: OnceLock<Box<[OnceLock<Box<RawValue>>]>>,
    /// The array's name in the list result (`tools`, `prompts`...).
    field: &'static str,
    page_size: usize,
    /// The pages of each wire form (tools: one per schema profile).
    pages: Box<[OnceLock<Vec<Box<RawValue>>>]>,
    /// Whether an item's wire forms differ, found when first asked.
    forms_differ: OnceLock<bool>,
}

/// How an item is found and how it appears in its list method's answer.
pub(crate) trait ListItem: Clone {
    /// How many wire forms an item has: one, but a tool has one per schema profile
    /// ([`SchemaProfile::index`](crate::SchemaProfile)), each serialized when first listed.
    const FORMS: usize = 1;
    /// The member of its wire form that holds its key (`name`, `uri`, `uriTemplate`).
    const KEY_MEMBER: &'static str;
    /// What the item is looked up by: a name or a URI.
    fn key(&self) -> &Str;
    /// The OAuth scopes a caller needs to see and use it (HTTP with feature `auth`).
    fn scopes(&self) -> &'static [&'static str];
    /// Shown by the list method; an unlisted item can still be called by name.
    fn listed(&self) -> bool {
        true
    }
    fn to_wire(&self, form: usize) -> serde_json::Result<Box<RawValue>>;
}

impl ListItem for ToolDescriptor {
    const FORMS: usize = SchemaProfile::ALL.len();
    const KEY_MEMBER: &'static str = "name";
    fn key(&self) -> &Str {
        &self.name
    }
    fn scopes(&self) -> &'static [&'static str] {
        self.scopes
    }
    fn listed(&self) -> bool {
        !self.hidden
    }
    fn to_wire(&self, form: usize) -> serde_json::Result<Box<RawValue>> {
        let profile = SchemaProfile::ALL.get(form).copied().unwrap_or_default();
        serde_json::value::to_raw_value(&self.wire(profile))
    }
}

impl ListItem for ResourceDescriptor {
    const KEY_MEMBER: &'static str = "uri";
    fn key(&self) -> &Str {
        &self.uri
    }
    fn scopes(&self) -> &'static [&'static str] {
        self.scopes
    }
    fn to_wire(&self, _: usize) -> serde_json::Result<Box<RawValue>> {
        serde_json::value::to_raw_value(&self.wire(false))
    }
}

impl ListItem for Template {
    const KEY_MEMBER: &'static str = "uriTemplate";
    fn key(&self) -> &Str {
        &self.descriptor.uri
    }
    fn scopes(&self) -> &'static [&'static str] {
        self.descriptor.scopes
    }
    fn to_wire(&self, _: usize) -> serde_json::Result<Box<RawValue>> {
        serde_json::value::to_raw_value(&self.descriptor.wire(true))
    }
}

impl ListItem for PromptDescriptor {
    const KEY_MEMBER: &'static str = "name";
    fn key(&self) -> &Str {
        &self.name
    }
    fn scopes(&self) -> &'static [&'static str] {
        self.scopes
    }
    fn to_wire(&self, _: usize) -> serde_json::Result<Box<RawValue>> {
        serde_json::value::to_raw_value(&self.wire())
    }
}

/// `count` empty cells.
fn cells<V>(count: usize) -> Box<[OnceLock<V>]> {
    (0..count).map(|_| OnceLock::new()).collect()
}

impl<T: ListItem> Listing<T> {
    /// `field` names the array in the list result (`tools`, `prompts`...); `what` names an item
    /// in error messages.
    fn build(items: Vec<T>, field: &'static str, what: &str, page_size: usize) -> Result<Self, Error> {
        Self::with_json(items, None, field, what, page_size)
    }

    /// [`build`](Self::build), with the wire forms the first items computed already, if any
    /// did (the rest start empty).
    fn with_json(
        items: Vec<T>,
        known: Option<Vec<OnceLock<Box<RawValue>>>>,
        field: &'static str,
        what: &str,
        page_size: usize,
    ) -> Result<Self, Error> {
        let mut by_key = HashMap::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            if by_key.insert(item.key().clone(), index).is_some() {
                return Err(Error::new(
                    ErrorKind::Config,
                    format!("two {what}s are named `{}`: names must be unique", item.key()),
                ));
            }
        }
        let json = OnceLock::new();
        if let Some(mut known) = known {
            known.resize_with(items.len() * T::FORMS, OnceLock::new);
            let _ = json.set(known.into_boxed_slice());
        }
        Ok(Self {
            items,
            by_key,
            json,
            field,
            page_size: page_size.max(1),
            pages: cells(T::FORMS),
            forms_differ: OnceLock::new(),
        })
    }

    pub fn get(&self, key: &str) -> Option<&T> {
        self.by_key.get(key).map(|&i| &self.items[i])
    }

    /// The index of the item `key` names, for what is kept beside the items by index.
    pub fn position(&self, key: &str) -> Option<usize> {
        self.by_key.get(key).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn item(&self, index: usize) -> &T {
        &self.items[index]
    }

    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }

    /// The array's name in the list result (`tools`, `prompts`...).
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The wire form of every listed item `keep` accepts, in order.
    pub fn wire_items_where(&self, keep: impl Fn(&T) -> bool) -> Result<Vec<&RawValue>, ErrorObject> {
        self.wire_items_in(0, keep)
    }

    /// The wire form `form` (see [`ListItem::FORMS`]) of every listed item `keep` accepts,
    /// in order.
    fn wire_items_in(&self, form: usize, keep: impl Fn(&T) -> bool) -> Result<Vec<&RawValue>, ErrorObject> {
        let items = self.items.iter().enumerate();
        items.filter(|(_, item)| item.listed() && keep(item)).map(|(i, _)| self.json(i, form)).collect()
    }

    /// Item `index`'s wire form `form`, serialized now if it is the first time.
    fn json(&self, index: usize, form: usize) -> Result<&RawValue, ErrorObject> {
        let cells = self.json.get_or_init(|| cells(self.items.len() * T::FORMS));
        let cell = &cells[index * T::FORMS + form.min(T::FORMS - 1)];
        if let Some(json) = cell.get() {
            return Ok(json);
        }
        let item = &self.items[index];
        let json = item.to_wire(form).map_err(|e| {
            tracing::error!("cannot serialize `{}` for its list: {e}", item.key());
            ErrorObject::new(code::INTERNAL_ERROR, "cannot serialize a list item")
        })?;
        Ok(cell.get_or_init(|| json))
    }

    /// Whether some item's wire forms differ (for tools: whether a schema profile reshapes some
    /// schema), so that what the list says depends on which client asks. Found once per
    /// snapshot; an item that does not serialize counts as differing.
    pub fn forms_differ(&self) -> bool {
        *self.forms_differ.get_or_init(|| {
            (0..self.items.len()).any(|i| {
                let first = self.json(i, 0).map(RawValue::get).ok();
                (1..T::FORMS).any(|form| self.json(i, form).map(RawValue::get).ok() != first || first.is_none())
            })
        })
    }

    /// The list page a cursor points at (cursors are page numbers, opaque to clients).
    pub fn page(&self, cursor: Option<&str>) -> Result<&RawValue, ErrorObject> {
        self.page_in(cursor, 0)
    }

    /// [`page`](Self::page) in wire form `form` (for tools: a schema profile's index).
    pub fn page_in(&self, cursor: Option<&str>, form: usize) -> Result<&RawValue, ErrorObject> {
        let form = form.min(self.pages.len() - 1);
        let count = self.items.iter().filter(|item| item.listed()).count().div_ceil(self.page_size).max(1);
        let index = match cursor {
            None => 0,
            Some(cursor) => cursor.parse::<usize>().ok().filter(|&i| i < count).ok_or_else(|| {
                ErrorObject::invalid_params(format!("invalid cursor: {:?}", clip(cursor).to_string()))
            })?,
        };
        if let Some(pages) = self.pages[form].get() {
            return Ok(&pages[index]);
        }
        let pages = self.build_pages(form)?;
        Ok(&self.pages[form].get_or_init(|| pages)[index])
    }

    /// `{"<field>":[...],"nextCursor":"<n>"}` per page, the items' raw JSON joined as it is.
    fn build_pages(&self, form: usize) -> Result<Vec<Box<RawValue>>, ErrorObject> {
        let raw = self.wire_items_in(form, |_| true)?;
        let chunks: Vec<&[&RawValue]> = if raw.is_empty() { vec![&[]] } else { raw.chunks(self.page_size).collect() };
        let last = chunks.len() - 1;
        let mut pages = Vec::with_capacity(chunks.len());
        for (i, chunk) in chunks.into_iter().enumerate() {
            let mut page = format!("{{\"{}\":[", self.field);
            for (j, item) in chunk.iter().enumerate() {
                if j > 0 {
                    page.push(',');
                }
                page.push_str(item.get());
            }
            page.push(']');
            if i < last {
                page.push_str(&format!(",\"nextCursor\":\"{}\"", i + 1));
            }
            page.push('}');
            pages.push(
                RawValue::from_string(page)
                    .map_err(|_| ErrorObject::new(code::INTERNAL_ERROR, "cannot build a list page"))?,
            );
        }
        Ok(pages)
    }

    /// The next snapshot: the items not `removed`, with what they serialized, then `added`.
    fn with(
        &self,
        added: Vec<T>,
        removed: &[&str],
        field: &'static str,
        what: &str,
        page_size: usize,
    ) -> Result<Self, Error> {
        if self.items.is_empty() {
            return Self::build(added, field, what, page_size);
        }
        let kept: Vec<usize> =
            (0..self.items.len()).filter(|&i| !removed.contains(&self.items[i].key().as_ref())).collect();
        let json = self
            .json
            .get()
            .map(|json| kept.iter().flat_map(|&i| json[i * T::FORMS..(i + 1) * T::FORMS].iter().cloned()).collect());
        let items = kept.iter().map(|&i| self.items[i].clone()).chain(added).collect();
        Self::with_json(items, json, field, what, page_size)
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
    /// Whether any tool mirrors arguments in `Mcp-Param-*` headers: if none does, HTTP checks
    /// no call's headers and looks up no tool for it.
    #[cfg(feature = "http")]
    pub has_param_headers: bool,
    /// Whether any tool runs as a task (the tasks capability and extension are advertised), and
    /// whether any runs only as one: if none does, a call that asks for no task looks up no tool
    /// for it.
    pub has_task_tools: bool,
    pub has_required_tasks: bool,
    /// The tools' argument checks (feature `validation`), by their indexes in `tools`.
    pub argument_checks: ArgumentChecks,
    /// The tags switched off for the whole server.
    pub disabled_tags: crate::tags::ServerTags,
    /// Whether some tool has a tag switched off: if none has, lists are shared as they are.
    pub has_disabled_tools: bool,
}

impl Registry {
    /// What `uri` reads: the resource of that URI, else the most specific template matching
    /// it, with the variables it binds (none for a resource). `resources/read` and
    /// `resources/subscribe` are routed by it and HTTP's scope check finds the item by it, so
    /// the two cannot disagree.
    pub fn resource_for(&self, uri: &str) -> Option<(&ResourceDescriptor, Bindings)> {
        match self.resources.get(uri) {
            Some(resource) => Some((resource, Bindings::new())),
            None => self
                .match_order
                .iter()
                .map(|&i| self.templates.item(i))
                .find_map(|template| Some((&template.descriptor, template.template.matches(uri)?))),
        }
    }

    /// What a `completion/complete` reference names: a prompt by its name, or a resource
    /// template by its template text. Completion is routed by it and HTTP's scope check finds
    /// the item by it, so the two cannot disagree.
    pub fn referenced(&self, reference: &Reference) -> Result<Referenced<'_>, ErrorObject> {
        match reference {
            Reference::Prompt { name } => self
                .prompts
                .get(name)
                .map(Referenced::Prompt)
                .ok_or_else(|| ErrorObject::invalid_params(format!("Unknown prompt: {}", clip(name)))),
            Reference::Resource { uri } => self
                .templates
                .get(uri)
                .map(Referenced::Template)
                .ok_or_else(|| ErrorObject::invalid_params(format!("Unknown resource template: {}", clip(uri)))),
        }
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

/// The prompt or resource template a `completion/complete` reference names.
pub(crate) enum Referenced<'a> {
    Prompt(&'a PromptDescriptor),
    Template(&'a Template),
}

impl<'a> Referenced<'a> {
    /// Its completion functions, per argument or variable.
    pub fn completers(&self) -> &'a [(Str, CompleteFn)] {
        match self {
            Self::Prompt(prompt) => &prompt.complete,
            Self::Template(template) => &template.descriptor.complete,
        }
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

impl Change {
    /// The notification that tells a client of this change: its method and params.
    pub fn notification(&self) -> (&'static str, serde_json::Value) {
        match self {
            Self::Tools => ("notifications/tools/list_changed", serde_json::json!({})),
            Self::Resources => ("notifications/resources/list_changed", serde_json::json!({})),
            Self::Prompts => ("notifications/prompts/list_changed", serde_json::json!({})),
            Self::ResourceUpdated(uri) => ("notifications/resources/updated", serde_json::json!({ "uri": &**uri })),
        }
    }
}

/// Everything registered, before it is indexed.
#[derive(Default)]
pub(crate) struct Definitions {
    pub tools: Vec<ToolDescriptor>,
    pub resources: Vec<ResourceDescriptor>,
    pub prompts: Vec<PromptDescriptor>,
}

impl Definitions {
    /// Adds `more` after what is here. The first set added is moved in whole, not copied into
    /// a new vector (with a hundred tools, a copy is pages of memory touched at start-up).
    pub fn append(&mut self, more: Definitions) {
        fn append<T>(to: &mut Vec<T>, more: Vec<T>) {
            if to.is_empty() {
                *to = more;
            } else {
                to.extend(more);
            }
        }
        append(&mut self.tools, more.tools);
        append(&mut self.resources, more.resources);
        append(&mut self.prompts, more.prompts);
    }

    /// Refuses handlers that take a `State<T>` not in `registered` (see `required_state`).
    pub fn check_required_state(&self, registered: &crate::type_map::TypeMap) -> crate::Result<()> {
        use crate::required_state::check;
        for tool in &self.tools {
            check("tool", &tool.name, &tool.required_state, registered)?;
        }
        for resource in &self.resources {
            check("resource", &resource.uri, &resource.required_state, registered)?;
        }
        for prompt in &self.prompts {
            check("prompt", &prompt.name, &prompt.required_state, registered)?;
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
    /// Tags to switch on (`true`) or off for the whole server.
    pub switch_tags: Option<(&'a [&'a str], bool)>,
}

/// The live registry: readers take the current snapshot; writers swap in a new one.
pub(crate) struct Catalog {
    /// Read on every request: a load takes no lock and bumps no shared count (an `RwLock` and
    /// an `Arc` clone were four atomic updates of one cache line every worker shares).
    current: ArcSwap<Registry>,
    /// Serializes edits, each of which builds the next snapshot from the last.
    editing: Mutex<()>,
    page_size: usize,
    changes: Broadcast<Change>,
    /// The changes made here (not announced on behalf of another replica), for the relay
    /// that tells the other replicas of the server.
    local_changes: Broadcast<Change>,
}

impl Catalog {
    /// A catalog of `definitions`; `check_arguments: false` turns the argument checks off.
    pub fn new(definitions: Definitions, page_size: Option<usize>, check_arguments: bool) -> Result<Self, Error> {
        let page_size = page_size.unwrap_or(usize::MAX);
        let empty = Registry {
            tools: Listing::build(Vec::new(), "tools", "tool", page_size)?,
            resources: Listing::build(Vec::new(), "resources", "resource", page_size)?,
            templates: Listing::build(Vec::new(), "resourceTemplates", "resource template", page_size)?,
            match_order: Vec::new(),
            prompts: Listing::build(Vec::new(), "prompts", "prompt", page_size)?,
            page_size,
            #[cfg(feature = "http")]
            has_param_headers: false,
            has_task_tools: false,
            has_required_tasks: false,
            argument_checks: ArgumentChecks::new(check_arguments),
            disabled_tags: Default::default(),
            has_disabled_tools: false,
        };
        let registry = apply(&empty, Edit { add: definitions, ..Edit::default() }, page_size)?;
        Ok(Self {
            current: ArcSwap::from_pointee(registry),
            editing: Mutex::new(()),
            page_size,
            changes: Broadcast::new(64),
            local_changes: Broadcast::new(64),
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
        let editing = lock(&self.editing);
        let base = self.current.load();
        let next = apply(&base, edit, self.page_size)?;
        // Switching tags changes the list when some tool has one of them.
        let tags_changed = next.disabled_tags != base.disabled_tags
            && next.tools.items().any(|tool| {
                tool.tags.iter().any(|tag| next.disabled_tags.contains(*tag) != base.disabled_tags.contains(*tag))
            });
        self.current.store(Arc::new(next));
        drop(editing);
        let kinds = kinds.map(|(changed, change)| (changed || (tags_changed && change == Change::Tools), change));
        for (changed, change) in kinds {
            if changed {
                self.announce(change);
            }
        }
        Ok(())
    }

    pub fn announce(&self, change: Change) {
        self.local_changes.send(change.clone());
        self.changes.send(change);
    }

    /// What a store shared by several processes of the server (HTTP replicas) relays between
    /// them, so that every session hears of every change wherever it was made: the changes
    /// made in this process ([`announce`](Self::announce)d here), for the others; and where a
    /// change another one made is announced to the sessions here (and not relayed back).
    #[cfg(feature = "http")] // the HTTP transport's shared store
    pub fn relay(&self) -> (broadcast::Receiver<Change>, broadcast::Sender<Change>) {
        (self.local_changes.subscribe(), self.changes.sender())
    }
}

fn apply(base: &Registry, edit: Edit<'_>, page_size: usize) -> Result<Registry, Error> {
    let Edit { add, remove_tools, remove_resources, remove_prompts, switch_tags } = edit;
    let mut disabled_tags = base.disabled_tags.clone();
    if let Some((tags, on)) = switch_tags {
        crate::tags::switch(&mut disabled_tags, tags, on);
    }
    let (mut statics, mut templates) = (Vec::new(), Vec::new());
    for resource in add.resources {
        let template = UriTemplate::parse(&resource.uri).map_err(|e| {
            Error::new(ErrorKind::Config, format!("invalid URI template `{}`", resource.uri)).with_source(e)
        })?;
        if template.is_static() {
            statics.push(resource);
        } else {
            templates.push(Template { descriptor: resource, template });
        }
    }
    let templates =
        base.templates.with(templates, remove_resources, "resourceTemplates", "resource template", page_size)?;
    let mut match_order: Vec<usize> = (0..templates.len()).collect();
    match_order.sort_by_key(|&i| std::cmp::Reverse(templates.item(i).template.specificity()));
    base.argument_checks.warn_unchecked(&add.tools);
    let added = add.tools.len();
    let tools = base.tools.with(add.tools, remove_tools, "tools", "tool", page_size)?;
    // The tools kept come first, in their order, then the ones added (`Listing::with`).
    let kept = tools.len() - added;
    let argument_checks = base
        .argument_checks
        .next(tools.items().enumerate().map(|(i, tool)| if i < kept { base.tools.position(&tool.name) } else { None }));
    #[cfg(feature = "http")]
    let has_param_headers = tools.items().any(|tool| !tool.param_headers.is_empty());
    let has_task_tools = tools.items().any(|tool| tool.task != crate::tool::TaskSupport::Forbidden);
    let has_required_tasks = tools.items().any(|tool| tool.task == crate::tool::TaskSupport::Required);
    let has_disabled_tools = tools.items().any(|tool| !crate::tags::enabled(tool.tags, &disabled_tags, None));
    Ok(Registry {
        tools,
        resources: base.resources.with(statics, remove_resources, "resources", "resource", page_size)?,
        templates,
        match_order,
        prompts: base.prompts.with(add.prompts, remove_prompts, "prompts", "prompt", page_size)?,
        page_size,
        #[cfg(feature = "http")]
        has_param_headers,
        has_task_tools,
        has_required_tasks,
        argument_checks,
        disabled_tags,
        has_disabled_tools,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared_fn::SharedFn;
    use crate::tool::TaskSupport;

    fn tool(name: &'static str, hidden: bool) -> ToolDescriptor {
        ToolDescriptor {
            name: Str::Borrowed(name),
            title: None,
            description: None,
            annotations: Default::default(),
            icons: &[],
            meta: None,
            confirm: false,
            hidden,
            scopes: &[],
            tags: &[],
            param_headers: &[],
            timeout: None,
            task: TaskSupport::Forbidden,
            input_schema: SharedFn::Static(&serde_json::Map::new),
            input_schema_verbatim: false,
            output_schema: SharedFn::Static(&|| None),
            call: SharedFn::Static(&|_, _| unreachable!("not called")),
            required_state: Vec::new(),
        }
    }

    fn tools(tools: Vec<ToolDescriptor>) -> Definitions {
        Definitions { tools, ..Definitions::default() }
    }

    /// The tool names a list page shows, and its next cursor.
    fn page(listing: &Listing<ToolDescriptor>, cursor: Option<&str>, form: usize) -> (Vec<String>, Option<String>) {
        let page: serde_json::Value = serde_json::from_str(listing.page_in(cursor, form).unwrap().get()).unwrap();
        let names = page["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
        (names, page.get("nextCursor").map(|c| c.as_str().unwrap().to_owned()))
    }

    #[test]
    fn switching_tags_announces_a_change_only_when_a_tool_has_one_of_them() {
        let tagged = ToolDescriptor { tags: &["beta"], ..tool("b", false) };
        let catalog = Catalog::new(tools(vec![tool("a", false), tagged]), None, true).unwrap();
        let mut changes = catalog.subscribe();
        let switch = |tags, on| catalog.edit(Edit { switch_tags: Some((tags, on)), ..Edit::default() }).unwrap();
        switch(&["alpha"], false);
        assert!(changes.try_recv().is_err(), "no tool has `alpha`");
        assert!(!catalog.snapshot().has_disabled_tools);
        switch(&["beta"], false);
        assert_eq!(changes.try_recv().unwrap(), Change::Tools);
        assert!(catalog.snapshot().has_disabled_tools);
        switch(&["beta"], false);
        assert!(changes.try_recv().is_err(), "already off");
        switch(&["beta", "alpha"], true);
        assert_eq!(changes.try_recv().unwrap(), Change::Tools);
        assert!(!catalog.snapshot().has_disabled_tools && catalog.snapshot().disabled_tags.is_empty());
    }

    #[test]
    fn an_edit_keeps_the_items_left_with_their_wire_forms_and_adds_the_new_ones() {
        let catalog =
            Catalog::new(tools(vec![tool("a", false), tool("b", false), tool("c", true)]), Some(1), true).unwrap();
        let before = catalog.snapshot();
        assert!(before.tools.json.get().is_none(), "nothing serialized, nor room made for it, before a list");
        assert_eq!(page(&before.tools, None, 2), (vec!["a".to_owned()], Some("1".to_owned())));
        assert_eq!(page(&before.tools, Some("1"), 2), (vec!["b".to_owned()], None), "c is hidden");
        assert!(before.tools.get("c").is_some(), "a hidden tool is still found by name");

        catalog.edit(Edit { add: tools(vec![tool("d", false)]), remove_tools: &["a"], ..Edit::default() }).unwrap();
        let after = catalog.snapshot();
        assert!(after.tools.get("a").is_none());
        assert_eq!(after.tools.items().map(|t| t.name.as_ref()).collect::<Vec<_>>(), ["b", "c", "d"]);
        // b's form 2 came over from the last snapshot, serialized; d's forms wait for a list.
        let json = after.tools.json.get().expect("carried over");
        let form = |index: usize, form: usize| json[index * ToolDescriptor::FORMS + form].get();
        assert!(form(0, 2).is_some() && form(0, 0).is_none());
        assert!(form(2, 2).is_none());
        assert_eq!(page(&after.tools, None, 0), (vec!["b".to_owned()], Some("1".to_owned())));
        assert_eq!(page(&after.tools, Some("1"), 0), (vec!["d".to_owned()], None));
        assert!(after.tools.page_in(Some("2"), 0).is_err(), "past the last page");
    }

    /// A tool with a hand-written schema that caps `field` at 1.
    #[cfg(feature = "validation")]
    fn capped(name: &'static str, field: &'static str) -> ToolDescriptor {
        let schema = format!(r#"{{"properties": {{"{field}": {{"maximum": 1}}}}}}"#);
        let schema: crate::tool::descriptor::SchemaFn =
            SharedFn::Arc(Arc::new(move || crate::tool::schema::verbatim_schema(&schema)));
        ToolDescriptor { input_schema: schema, input_schema_verbatim: true, ..tool(name, false) }
    }

    #[cfg(feature = "validation")]
    #[test]
    fn after_an_edit_each_tool_keeps_its_own_argument_check() {
        let arguments = |json: &str| serde_json::value::RawValue::from_string(json.to_owned()).unwrap();
        let (n, m) = (arguments(r#"{"n": 5}"#), arguments(r#"{"m": 5}"#));
        let check = |registry: &Registry, name: &str, arguments| {
            let index = registry.tools.position(name).unwrap();
            registry.argument_checks.check(index, registry.tools.item(index), Some(arguments))
        };
        let catalog = Catalog::new(tools(vec![capped("a", "n"), tool("b", false)]), None, true).unwrap();
        let before = catalog.snapshot();
        assert!(check(&before, "a", &n).unwrap_err().contains("`n`"));
        assert_eq!(check(&before, "b", &n), Ok(()));

        let add = tools(vec![capped("c", "m"), capped("d", "n")]);
        catalog.edit(Edit { add, remove_tools: &["a"], ..Edit::default() }).unwrap();
        let after = catalog.snapshot();
        assert_eq!(check(&after, "b", &n), Ok(()), "b, now first, did not inherit a's check");
        assert!(check(&after, "c", &m).unwrap_err().contains("`m`"));
        assert_eq!(check(&after, "c", &n), Ok(()));
        assert!(check(&after, "d", &n).unwrap_err().contains("`n`"));

        let unchecked = Catalog::new(tools(vec![capped("a", "n")]), None, false).unwrap();
        assert_eq!(check(&unchecked.snapshot(), "a", &n), Ok(()), "checks off");
    }

    #[test]
    fn two_tools_of_one_name_are_refused() {
        let error = Catalog::new(tools(vec![tool("a", false), tool("a", true)]), None, true).err().expect("refused");
        assert_eq!(error.kind(), ErrorKind::Config);
        assert!(error.to_string().contains("two tools are named `a`"), "{error}");
    }
}
