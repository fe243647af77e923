//! [`Server::mount`](crate::Server::mount): another server's tools, resources and prompts,
//! served under a prefix through a [`Client`]. Each remote item becomes an ordinary descriptor
//! whose functions forward to the client, so everything the runtime does for its own items
//! (listing, paging, validation, tasks, middleware) applies to mounted ones too.
//!
//! Names: tool `add` of the mount `calc` is `calc_add`, prompt `review` is `calc_review`, and
//! resource `file:///notes/a.md` is `file://calc//notes/a.md` (the prefix as the authority
//! after `://`, or after the scheme's colon for URIs without one: FastMCP's convention).

use crate::CallToolResult;
use crate::client::{
    AnswerFn, Client, ClientError, CompletionTarget, ElicitationRequest, Notification, Progress, Prompt,
    RequestOptions, ResourceTemplate, Tool,
};
use crate::completion::{CompleteFn, Completion};
use crate::context::Context;
use crate::error::{Error, ErrorKind, Result};
use crate::jsonrpc::{ErrorObject, code};
use crate::prompt::{GetFn, GetPromptResult, PromptArgument, PromptDescriptor};
use crate::registry::{Definitions, Edit};
use crate::resource::uri_template::UriTemplate;
use crate::resource::{ReadFn, ReadResourceResult, ResourceDescriptor, ResourceEntry};
use crate::server::{Server, ServerHandle};
use crate::server_requests::Sampling;
use crate::tool::descriptor::ToolDescriptor;
use crate::tool::{Str, ToolAnnotations};
use futures_util::FutureExt as _;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::future::IntoFuture as _;
use std::sync::{Arc, Weak};
use tokio::sync::broadcast::error::RecvError;

impl Server {
    /// Serves the tools, resources and prompts of the server `client` is connected to, under
    /// `prefix` (feature `client`): a gateway in a few lines. Tool `add` becomes `{prefix}_add`,
    /// prompt `review` `{prefix}_review`, resource `file:///a.md` `file://{prefix}//a.md`.
    ///
    /// Calls are forwarded with their progress and cancellation; what the mounted server asks
    /// during a call (sampling, elicitation, roots) is asked of the caller's client when the
    /// mounted client was built with [`forward_server_requests`](crate::client::ClientBuilder::forward_server_requests).
    /// The lists are read now and again whenever the mounted server announces a change
    /// (in a 2025-11-25 session; a 2026-07-28 server is read once). A call waits as long as
    /// the client's [`timeout`](crate::client::ClientBuilder::timeout).
    ///
    /// ```no_run
    /// use mcp_runtime::Server;
    /// use mcp_runtime::client::Client;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let weather = Client::builder().forward_server_requests().connect_stdio(tokio::process::Command::new("weather")).await?;
    /// let notes = Client::http("http://127.0.0.1:8080/mcp").await?;
    /// Server::new("gateway", "1.0").mount("weather", weather).await?.mount("notes", notes).await?.serve_stdio().await?;
    /// # Ok(()) }
    /// ```
    pub async fn mount(mut self, prefix: &str, client: impl Into<Arc<Client>>) -> Result<Self> {
        let mounted = mount(prefix, client.into(), self.handle()).await?;
        self.add_definitions(mounted);
        Ok(self)
    }
}

/// Lists what the server behind `client` offers, as descriptors named under `prefix`, and
/// keeps them current while the server runs (`handle`) when it announces list changes.
async fn mount(prefix: &str, client: Arc<Client>, handle: ServerHandle) -> Result<Definitions> {
    if prefix.is_empty() || !prefix.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(Error::new(
            ErrorKind::Config,
            format!("invalid mount prefix `{prefix}`: use letters, digits, `-` and `_` (e.g. `weather`)"),
        ));
    }
    let mount = Mount { prefix: prefix.to_owned(), client };
    // Subscribed first, so a change announced while the lists are read is not missed.
    let notifications = mount.client.notifications();
    let definitions = Definitions {
        tools: mount.tools().await?,
        resources: mount.resources().await?,
        prompts: mount.prompts().await?,
    };
    let names = Names::of(&definitions);
    tokio::spawn(watch(Arc::downgrade(&mount.client), notifications, mount.prefix, names, handle));
    Ok(definitions)
}

/// One mounted server: its client and the prefix of its items.
struct Mount {
    prefix: String,
    client: Arc<Client>,
}

impl Mount {
    fn offers(&self, capability: &str) -> bool {
        self.client.server().has_capability(&[capability])
    }

    fn listing_failed(&self, what: &str, error: ClientError) -> Error {
        Error::new(
            ErrorKind::Config,
            format!("cannot list the {what} of the server mounted as `{}`: {error}", self.prefix),
        )
    }

    async fn tools(&self) -> Result<Vec<ToolDescriptor>> {
        if !self.offers("tools") {
            return Ok(Vec::new());
        }
        let tools = self.client.list_tools().await.map_err(|e| self.listing_failed("tools", e))?;
        Ok(tools.into_iter().filter_map(|tool| self.tool(tool)).collect())
    }

    async fn resources(&self) -> Result<Vec<ResourceDescriptor>> {
        if !self.offers("resources") {
            return Ok(Vec::new());
        }
        let resources = self.client.list_resources().await.map_err(|e| self.listing_failed("resources", e))?;
        let templates =
            self.client.list_resource_templates().await.map_err(|e| self.listing_failed("resource templates", e))?;
        let statics = resources.into_iter().filter_map(|resource| self.resource(resource));
        Ok(statics.chain(templates.into_iter().filter_map(|template| self.template(template))).collect())
    }

    async fn prompts(&self) -> Result<Vec<PromptDescriptor>> {
        if !self.offers("prompts") {
            return Ok(Vec::new());
        }
        let prompts = self.client.list_prompts().await.map_err(|e| self.listing_failed("prompts", e))?;
        Ok(prompts.into_iter().filter_map(|prompt| self.prompt(prompt)).collect())
    }

    /// `prefix_name`, for a remote name that is a valid tool or prompt name.
    fn name(&self, kind: &str, remote: &str) -> Option<String> {
        let name = format!("{}_{remote}", self.prefix);
        let valid = name.len() <= 128 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
        if !valid {
            tracing::warn!(prefix = %self.prefix, "skipped a mounted {kind} whose name is not a valid name: {:?}",
                crate::clip::clip(remote).to_string());
        }
        valid.then_some(name)
    }

    fn tool(&self, tool: Tool) -> Option<ToolDescriptor> {
        let name = self.name("tool", &tool.name)?;
        let hint = |key: &str| tool.annotations.as_ref().and_then(|a| a.get(key)).and_then(Value::as_bool);
        let annotations = ToolAnnotations {
            read_only: hint("readOnlyHint"),
            destructive: hint("destructiveHint"),
            idempotent: hint("idempotentHint"),
            open_world: hint("openWorldHint"),
        };
        let mut builder = ToolDescriptor::builder(name).annotations(annotations).input_schema(tool.input_schema);
        if let Some(title) = tool.title {
            builder = builder.title(title);
        }
        if let Some(description) = tool.description {
            builder = builder.description(description);
        }
        if let Some(meta) = tool.meta {
            builder = builder.meta(meta);
        }
        if let Some(schema) = tool.output_schema {
            builder = builder.output_schema(schema);
        }
        let (client, remote) = (Arc::clone(&self.client), tool.name);
        let built = builder
            .handler(move |arguments, ctx| {
                call_tool(Arc::clone(&client), remote.clone(), Value::Object(arguments), ctx)
            })
            .build();
        built.map_err(|error| tracing::warn!(prefix = %self.prefix, "skipped a mounted tool: {error}")).ok()
    }

    fn resource(&self, resource: ResourceEntry) -> Option<ResourceDescriptor> {
        // A static URI with braces would be read as a template.
        if resource.uri.contains(['{', '}']) {
            return None;
        }
        let uri = prefixed_uri(&self.prefix, &resource.uri)?;
        let mut descriptor = self.resource_descriptor(uri, resource.name);
        descriptor.title = resource.title.map(Str::from);
        descriptor.description = resource.description.map(Str::from);
        descriptor.mime_type = resource.mime_type.map(Str::from);
        descriptor.size = resource.size;
        descriptor.annotations = resource.annotations;
        Some(descriptor)
    }

    fn template(&self, template: ResourceTemplate) -> Option<ResourceDescriptor> {
        let uri = prefixed_uri(&self.prefix, &template.uri_template)?;
        let mut descriptor = self.resource_descriptor(uri, template.name);
        descriptor.title = template.title.map(Str::from);
        descriptor.description = template.description.map(Str::from);
        descriptor.mime_type = template.mime_type.map(Str::from);
        if self.offers("completions") {
            let variables = UriTemplate::parse(&template.uri_template).ok()?;
            let target = CompletionTarget::ResourceTemplate(template.uri_template.clone());
            descriptor.complete = variables
                .variables()
                .map(|variable| (Str::from(variable.to_owned()), self.completer(&target)))
                .collect();
        }
        Some(descriptor)
    }

    /// A resource or template at `uri` whose reads go to the mounted server.
    fn resource_descriptor(&self, uri: String, name: String) -> ResourceDescriptor {
        let (client, prefix) = (Arc::clone(&self.client), self.prefix.clone());
        let read = ReadFn::Arc(Arc::new(move |request, ctx| {
            read_resource(Arc::clone(&client), prefix.clone(), request.uri, ctx).boxed()
        }));
        // The mounted server judges its own URIs.
        ResourceDescriptor { allow_dot_segments: true, ..ResourceDescriptor::new(uri, name, read) }
    }

    fn prompt(&self, prompt: Prompt) -> Option<PromptDescriptor> {
        let name = self.name("prompt", &prompt.name)?;
        let arguments: Vec<PromptArgument> = prompt
            .arguments
            .into_iter()
            .map(|argument| PromptArgument {
                name: argument.name.into(),
                title: argument.title.map(Str::from),
                description: argument.description.map(Str::from),
                required: argument.required,
            })
            .collect();
        let complete = if self.offers("completions") {
            let target = CompletionTarget::Prompt(prompt.name.clone());
            arguments.iter().map(|argument| (argument.name.clone(), self.completer(&target))).collect()
        } else {
            Vec::new()
        };
        let (client, remote) = (Arc::clone(&self.client), prompt.name);
        Some(PromptDescriptor {
            name: name.into(),
            title: prompt.title.map(Str::from),
            description: prompt.description.map(Str::from),
            icons: &[],
            meta: None,
            scopes: &[],
            arguments,
            required_state: Vec::new(),
            get: GetFn::Arc(Arc::new(move |arguments, ctx| {
                let params = json!({ "name": remote, "arguments": arguments });
                forward::<GetPromptResult>(Arc::clone(&client), "prompts/get", params, ctx).boxed()
            })),
            complete,
        })
    }

    /// Completions of `target`'s arguments, asked of the mounted server.
    fn completer(&self, target: &CompletionTarget) -> CompleteFn {
        let (client, target) = (Arc::clone(&self.client), target.clone());
        CompleteFn::Arc(Arc::new(move |request, _ctx| {
            let (client, target) = (Arc::clone(&client), target.clone());
            async move { client.complete(target, request).await.unwrap_or_else(|_| Completion::default()) }.boxed()
        }))
    }
}

/// Calls the mounted tool `remote`, reporting its progress to the caller and forwarding the
/// server's requests to the caller's client; cancelled with the caller's request.
async fn call_tool(client: Arc<Client>, remote: String, arguments: Value, ctx: Context) -> CallToolResult {
    let (progress, mut reports) = tokio::sync::mpsc::unbounded_channel();
    let mut call =
        client.call_tool(remote, arguments).cancel_with(ctx.cancellation_token()).answered_by(answer_through(&ctx));
    if ctx.progress_token().is_some() {
        call = call.on_progress(move |report| {
            let _ = progress.send(report);
        });
    }
    let call = call.into_future();
    tokio::pin!(call);
    let ctx = &ctx;
    let forward = |report: Progress| async move {
        match report.message {
            Some(message) => ctx.progress_with_message(report.progress, report.total, message).await,
            None => ctx.progress(report.progress, report.total).await,
        }
    };
    let outcome = loop {
        tokio::select! {
            biased;
            Some(report) = reports.recv() => forward(report).await,
            outcome = &mut call => break outcome,
        }
    };
    // Reports that came just before the result.
    while let Ok(report) = reports.try_recv() {
        forward(report).await;
    }
    outcome.unwrap_or_else(|error| CallToolResult::error(format!("the mounted server failed: {error}")))
}

/// Reads a mounted resource, its contents named by the URIs the caller knows.
async fn read_resource(
    client: Arc<Client>,
    prefix: String,
    uri: String,
    ctx: Context,
) -> std::result::Result<ReadResourceResult, ErrorObject> {
    let remote = remote_uri(&prefix, &uri).ok_or_else(|| ErrorObject::invalid_params("not a mounted URI"))?;
    let mut result: ReadResourceResult = forward(client, "resources/read", json!({ "uri": remote }), ctx).await?;
    for contents in &mut result.contents {
        let (crate::ResourceContents::Text { uri: named, .. } | crate::ResourceContents::Blob { uri: named, .. }) =
            contents;
        if let Some(local) = prefixed_uri(&prefix, named) {
            *named = local;
        }
    }
    Ok(result)
}

/// Sends `method` to the mounted server for the caller of `ctx`, and decodes its result.
async fn forward<T: DeserializeOwned>(
    client: Arc<Client>,
    method: &str,
    params: Value,
    ctx: Context,
) -> std::result::Result<T, ErrorObject> {
    let Value::Object(params) = params else { unreachable!("a JSON object literal") };
    let options = RequestOptions { answerer: Some(answer_through(&ctx)), ..RequestOptions::default() };
    let cancelled = ctx.cancellation_token();
    let result = tokio::select! {
        result = client.request_with(method, params, &options) => result,
        () = cancelled.cancelled() => Err(ClientError::Cancelled),
    };
    let result = result.map_err(|error| match error {
        ClientError::Server(error) => error,
        other => ErrorObject::new(code::INTERNAL_ERROR, format!("the mounted server failed: {other}")),
    })?;
    serde_json::from_value(result).map_err(|e| ErrorObject::new(code::INTERNAL_ERROR, format!("{method}: {e}")))
}

/// Answers the mounted server's requests (sampling, elicitation, roots) by asking the client
/// of the call they were made for, through its context.
fn answer_through(ctx: &Context) -> AnswerFn {
    let ctx = ctx.clone();
    Arc::new(move |method, params| {
        let ctx = ctx.clone();
        async move { ask_caller(&ctx, &method, params).await }.boxed()
    })
}

async fn ask_caller(ctx: &Context, method: &str, params: Value) -> std::result::Result<Value, ErrorObject> {
    let refused = |error: crate::ClientError| match error {
        crate::ClientError::Rejected(error) => error,
        other => ErrorObject::new(code::INTERNAL_ERROR, other.to_string()),
    };
    let invalid = |why: String| ErrorObject::invalid_params(format!("Invalid params: {why}"));
    match method {
        "ping" => Ok(json!({})),
        "sampling/createMessage" => {
            let request: Sampling = serde_json::from_value(params).map_err(|e| invalid(e.to_string()))?;
            let sampled = ctx.sample(request).await.map_err(refused)?;
            serde_json::to_value(sampled).map_err(|e| ErrorObject::new(code::INTERNAL_ERROR, e.to_string()))
        }
        "elicitation/create" => {
            let request = ElicitationRequest::from_params(&params).ok_or_else(|| invalid("no url".into()))?;
            let answer = match request {
                ElicitationRequest::Form { message, requested_schema } => {
                    ctx.elicit_with_schema(message, requested_schema).await.map_err(refused)?.map(Some)
                }
                ElicitationRequest::Url { message, url, elicitation_id } => {
                    ctx.elicit_url(message, url, elicitation_id).await.map_err(refused)?.map(|()| None)
                }
            };
            Ok(crate::client::elicitation_result(answer))
        }
        "roots/list" => Ok(json!({ "roots": ctx.roots().await.map_err(refused)? })),
        _ => Err(ErrorObject::new(code::METHOD_NOT_FOUND, format!("Method not found: {method}"))),
    }
}

/// The names a mount added, by kind, to remove when it is refreshed.
#[derive(Default)]
struct Names {
    tools: Vec<String>,
    resources: Vec<String>,
    prompts: Vec<String>,
}

impl Names {
    fn of(definitions: &Definitions) -> Self {
        Self {
            tools: definitions.tools.iter().map(|t| t.name.to_string()).collect(),
            resources: definitions.resources.iter().map(|r| r.uri.to_string()).collect(),
            prompts: definitions.prompts.iter().map(|p| p.name.to_string()).collect(),
        }
    }
}

/// Re-lists what the mounted server says changed and swaps it in, in one edit per change
/// (so a client never sees the mount half there), until the client or the server is gone.
async fn watch(
    client: Weak<Client>,
    mut notifications: tokio::sync::broadcast::Receiver<Notification>,
    prefix: String,
    mut names: Names,
    handle: ServerHandle,
) {
    loop {
        let kinds = match notifications.recv().await {
            Ok(
                notification @ (Notification::ToolsListChanged
                | Notification::ResourcesListChanged
                | Notification::PromptsListChanged),
            ) => vec![notification],
            Ok(_) => continue,
            // Missed some: refresh everything.
            Err(RecvError::Lagged(_)) => vec![
                Notification::ToolsListChanged,
                Notification::ResourcesListChanged,
                Notification::PromptsListChanged,
            ],
            Err(RecvError::Closed) => return,
        };
        let Some(client) = client.upgrade() else { return };
        let mount = Mount { prefix: prefix.clone(), client };
        for kind in &kinds {
            if let Err(error) = refresh(&mount, kind, &mut names, &handle).await {
                tracing::warn!(prefix = %prefix, "cannot refresh the mounted server's lists: {error}");
            }
        }
    }
}

async fn refresh(mount: &Mount, kind: &Notification, names: &mut Names, handle: &ServerHandle) -> Result<()> {
    let mut add = Definitions::default();
    match kind {
        Notification::ToolsListChanged => add.tools = mount.tools().await?,
        Notification::ResourcesListChanged => add.resources = mount.resources().await?,
        _ => add.prompts = mount.prompts().await?,
    }
    let fresh = Names::of(&add);
    let (old, new) = match kind {
        Notification::ToolsListChanged => (&mut names.tools, fresh.tools),
        Notification::ResourcesListChanged => (&mut names.resources, fresh.resources),
        _ => (&mut names.prompts, fresh.prompts),
    };
    let removed: Vec<&str> = old.iter().map(String::as_str).collect();
    let mut edit = Edit { add, ..Edit::default() };
    match kind {
        Notification::ToolsListChanged => edit.remove_tools = &removed,
        Notification::ResourcesListChanged => edit.remove_resources = &removed,
        _ => edit.remove_prompts = &removed,
    }
    handle.edit(edit)?;
    *old = new;
    Ok(())
}

/// `uri` under `prefix`: `scheme://prefix/rest`, or `scheme:prefix/rest` without `//`;
/// `None` when it has no scheme, or a template's scheme is not plain text.
fn prefixed_uri(prefix: &str, uri: &str) -> Option<String> {
    let (scheme, rest) = uri.split_once(':')?;
    if scheme.is_empty() || scheme.contains(['{', '/']) {
        return None;
    }
    Some(match rest.strip_prefix("//") {
        Some(rest) => format!("{scheme}://{prefix}/{rest}"),
        None => format!("{scheme}:{prefix}/{rest}"),
    })
}

/// The mounted server's URI for `uri`, the inverse of [`prefixed_uri`].
fn remote_uri(prefix: &str, uri: &str) -> Option<String> {
    let (scheme, rest) = uri.split_once(':')?;
    let (slashes, rest) = match rest.strip_prefix("//") {
        Some(rest) => ("//", rest),
        None => ("", rest),
    };
    let rest = rest.strip_prefix(prefix)?.strip_prefix('/')?;
    Some(format!("{scheme}:{slashes}{rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_take_the_prefix_after_the_scheme_and_give_it_back() {
        for (remote, local) in [
            ("file:///notes/a.md", "file://calc//notes/a.md"),
            ("note://n/{id}", "note://calc/n/{id}"),
            ("urn:isbn:123", "urn:calc/isbn:123"),
            ("https://example.com/x?y=1", "https://calc/example.com/x?y=1"),
        ] {
            assert_eq!(prefixed_uri("calc", remote).as_deref(), Some(local));
            assert_eq!(remote_uri("calc", local).as_deref(), Some(remote));
        }
        assert_eq!(prefixed_uri("calc", "no-scheme"), None);
        assert_eq!(prefixed_uri("calc", "{scheme}://x"), None);
        assert_eq!(remote_uri("calc", "file://other//a"), None);
        assert_eq!(remote_uri("calc", "file://calcx/a"), None);
    }
}
