//! [`ServerHandle`]: changes to what a running server offers.

use crate::context::Context;
use crate::error::{Error, ErrorKind, Result};
use crate::prompt::PromptSet;
use crate::registry::{Catalog, Change, Definitions, Edit};
use crate::resource::ResourceSet;
use crate::tool::ToolSet;
use std::sync::{Arc, OnceLock, Weak};

/// Changes what a running server offers; every connected client gets a `list_changed`
/// notification. Get one from [`Server::handle`](super::Server::handle) before serving, or from a [`Context`](crate::Context).
#[derive(Clone)]
pub struct ServerHandle {
    /// Set when the server is built; weak, so a handle kept elsewhere does not keep it alive.
    running: Arc<OnceLock<Weak<Catalog>>>,
}

impl ServerHandle {
    pub(super) fn new(running: Arc<OnceLock<Weak<Catalog>>>) -> Self {
        Self { running }
    }

    fn catalog(&self) -> Result<Arc<Catalog>> {
        self.running
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| Error::new(ErrorKind::NotRunning, "the server is not running"))
    }

    /// Adds tools; fails if one has the name of a tool already offered.
    pub fn add_tools(&self, tools: ToolSet) -> Result<()> {
        let add = Definitions { tools: tools.tools, ..Definitions::default() };
        self.edit(Edit { add, ..Edit::default() })
    }

    /// Removes the tools with these names (unknown names are ignored).
    pub fn remove_tools(&self, names: &[&str]) -> Result<()> {
        self.edit(Edit { remove_tools: names, ..Edit::default() })
    }

    /// Adds resources or templates; fails if one has the URI of one already offered.
    pub fn add_resources(&self, resources: ResourceSet) -> Result<()> {
        let add = Definitions { resources: resources.resources, ..Definitions::default() };
        self.edit(Edit { add, ..Edit::default() })
    }

    /// Removes the resources or templates with these URIs.
    pub fn remove_resources(&self, uris: &[&str]) -> Result<()> {
        self.edit(Edit { remove_resources: uris, ..Edit::default() })
    }

    /// Adds prompts; fails if one has the name of a prompt already offered.
    pub fn add_prompts(&self, prompts: PromptSet) -> Result<()> {
        let add = Definitions { prompts: prompts.prompts, ..Definitions::default() };
        self.edit(Edit { add, ..Edit::default() })
    }

    /// Removes the prompts with these names.
    pub fn remove_prompts(&self, names: &[&str]) -> Result<()> {
        self.edit(Edit { remove_prompts: names, ..Edit::default() })
    }

    /// Switches off, for every session, the tools tagged with any of `tags`: they leave
    /// `tools/list` and a call of one is answered as for an unknown tool. Clients are told with
    /// `notifications/tools/list_changed` when a tool offered changed.
    pub fn disable_tags(&self, tags: &[&str]) -> Result<()> {
        self.edit(Edit { switch_tags: Some((tags, false)), ..Edit::default() })
    }

    /// Switches tags off with [`disable_tags`](Self::disable_tags) (or [`Server::disable_tags`](super::Server::disable_tags))
    /// on again, for every session.
    pub fn enable_tags(&self, tags: &[&str]) -> Result<()> {
        self.edit(Edit { switch_tags: Some((tags, true)), ..Edit::default() })
    }

    /// Applies additions and removals in one step (one notification per kind of item).
    pub(crate) fn edit(&self, edit: Edit<'_>) -> Result<()> {
        self.catalog()?.edit(edit)
    }

    /// Tells clients the list of resources changed without a registry edit (e.g. a template's
    /// list function would now enumerate other resources).
    pub fn resource_list_changed(&self) -> Result<()> {
        self.catalog()?.announce(Change::Resources);
        Ok(())
    }

    /// Tells the clients subscribed to `uri` that it changed (`notifications/resources/updated`).
    pub fn resource_updated(&self, uri: &str) -> Result<()> {
        self.catalog()?.announce(Change::ResourceUpdated(uri.into()));
        Ok(())
    }
}

impl Context {
    /// Hides tools from this client's session only (others still see them): they leave its
    /// `tools/list`, and a call of one is answered as for an unknown tool. The client is told
    /// with `notifications/tools/list_changed`, sent to this session alone. For a stateless
    /// (2026-07-28) request, which has no session, it does nothing.
    ///
    /// ```no_run
    /// # use mcp_runtime::prelude::*;
    /// /// Enters the read-only mode: the tools that write are no longer offered here.
    /// #[mcp_tool]
    /// async fn read_only_mode(ctx: Context) -> &'static str {
    ///     ctx.hide_tools(&["write_file", "delete_file"]).await;
    ///     "read-only"
    /// }
    /// ```
    pub async fn hide_tools(&self, names: &[&str]) {
        let session = self.session();
        if !self.is_stateless() && session.hide_tools(names) {
            self.tools_changed_here().await;
        }
    }

    /// Shows tools hidden with [`hide_tools`](Self::hide_tools) again, to this session.
    pub async fn show_tools(&self, names: &[&str]) {
        let session = self.session();
        if !self.is_stateless() && session.show_tools(names) {
            self.tools_changed_here().await;
        }
    }

    /// Switches off, for this client's session only, the tools tagged with any of `tags`, as
    /// [`hide_tools`](Self::hide_tools) hides tools by name (the client is told the same way);
    /// tools added later with these tags are off here too. A stateless request's does nothing.
    ///
    /// ```no_run
    /// # use mcp_runtime::prelude::*;
    /// /// Leaves the beta: its tools are no longer offered here.
    /// #[mcp_tool]
    /// async fn leave_beta(ctx: Context) -> &'static str {
    ///     ctx.disable_tags(&["beta"]).await;
    ///     "left the beta"
    /// }
    /// ```
    pub async fn disable_tags(&self, tags: &[&str]) {
        self.switch_tags(tags, false).await;
    }

    /// Switches tags on for this client's session, whether this session or the server
    /// ([`Server::disable_tags`](crate::Server::disable_tags)) switched them off: e.g. the
    /// `admin` tools, for a session that proved it is an administrator's.
    pub async fn enable_tags(&self, tags: &[&str]) {
        self.switch_tags(tags, true).await;
    }

    async fn switch_tags(&self, tags: &[&str], on: bool) {
        if !self.is_stateless() && self.session().switch_tags(tags, on) {
            self.tools_changed_here().await;
        }
    }

    async fn tools_changed_here(&self) {
        let session = self.session();
        if session.is_initialized() {
            let (method, params) = crate::registry::Change::Tools.notification();
            session.notify(&session.unsolicited, method, &params).await;
        }
    }

    /// A handle to change what the server offers (add or remove tools...).
    pub fn server(&self) -> ServerHandle {
        // Registered by the builder in every server's state.
        let handle = self.session().settings.state.get::<ServerHandle>();
        handle.map_or_else(|| ServerHandle::new(Arc::default()), |handle| (*handle).clone())
    }
}
