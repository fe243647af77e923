//! Resources: what `#[mcp_resource]` describes. A resource's URI is either static (listed by
//! `resources/list`) or an RFC 6570 template (listed by `resources/templates/list`) whose
//! variables bind to the function's parameters.

mod read;
pub(crate) mod uri_template;

pub use read::{IntoReadResult, ReadResourceResult, ResourceError, ResourceNotFound};

use crate::completion::CompleteFn;
use crate::content::Annotations;
use crate::context::Context;
use crate::jsonrpc::ErrorObject;
use crate::shared_fn::SharedFn;
use crate::tool::Icon;
use crate::tool::Str;
use futures_util::future::BoxFuture;
use serde::Serialize;
use std::collections::HashMap;
use std::future::Future;

/// A read request, as the generated shim sees it.
pub struct ResourceRequest {
    /// The URI being read.
    pub uri: String,
    /// The template variables it bound (empty for a static resource).
    pub variables: HashMap<String, String>,
}

/// A concrete resource, as a template's list function enumerates it for `resources/list`:
/// the same fields as a [`ResourceLink`](crate::ResourceLink) content block (`uri`, `name`, `title`, `description`,
/// `mimeType`, `size`, `annotations`).
pub type ResourceEntry = crate::content::ResourceLink;

/// The type-erased read function of a descriptor.
pub type ReadFn = SharedFn<
    dyn Fn(ResourceRequest, Context) -> BoxFuture<'static, Result<ReadResourceResult, ErrorObject>> + Send + Sync,
>;
/// The type-erased list function of a template descriptor.
pub type ListFn =
    SharedFn<dyn Fn(Context) -> BoxFuture<'static, Result<Vec<ResourceEntry>, ErrorObject>> + Send + Sync>;

/// Everything the runtime knows about one resource or resource template.
#[derive(Clone)]
pub struct ResourceDescriptor {
    /// The URI, or the URI template.
    pub uri: Str,
    /// The name (defaults to the function's).
    pub name: Str,
    /// A display title.
    pub title: Option<Str>,
    /// The description (from the doc comment).
    pub description: Option<Str>,
    /// The MIME type of its contents.
    pub mime_type: Option<Str>,
    /// Its size in bytes, when known ahead.
    pub size: Option<u64>,
    /// Audience, priority, last modification.
    pub annotations: Option<Annotations>,
    /// Icons.
    pub icons: &'static [Icon],
    /// `_meta` of its definition: a JSON object (`#[mcp_resource(meta = r#"{...}"#)]`, checked
    /// by the macro).
    pub meta: Option<Str>,
    /// OAuth scopes a caller must hold to see it listed, read it, subscribe to it and (a
    /// template) complete its variables (HTTP with feature `auth`).
    pub scopes: &'static [&'static str],
    /// Whether template variables may hold path-like values: `..` segments, absolute, `~`
    /// and UNC paths, NUL bytes (all refused by default).
    pub allow_dot_segments: bool,
    /// How long 2026-07-28 clients may cache a read (`ttlMs`); the server's default if `None`.
    pub ttl_ms: Option<u64>,
    /// `public` or `private` (`cacheScope`) for reads; `public` if `None`.
    pub cache_scope: Option<Str>,
    /// Reads it.
    pub read: ReadFn,
    /// Enumerates concrete resources of a template for `resources/list`.
    pub list: Option<ListFn>,
    /// Completion functions per template variable.
    pub complete: Vec<(Str, CompleteFn)>,
    /// The server states its parameters need, checked when the server is built.
    pub required_state: Vec<crate::required_state::RequiredState>,
}

impl ResourceDescriptor {
    /// A resource (or a template: `uri` holds `{variables}`) named `name`, read by `read`, with
    /// nothing else said about it: what the runtime's own resources build on (skills, mounts).
    pub fn new(uri: String, name: String, read: ReadFn) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: &[],
            meta: None,
            scopes: &[],
            allow_dot_segments: false,
            ttl_ms: None,
            cache_scope: None,
            read,
            list: None,
            complete: Vec::new(),
            required_state: Vec::new(),
        }
    }

    /// The resource (static) or template as the list methods show it.
    pub(crate) fn wire(&self, is_template: bool) -> impl Serialize + '_ {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            uri: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            uri_template: Option<&'a str>,
            name: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            title: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            description: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            mime_type: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            size: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            annotations: Option<&'a Annotations>,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            icons: &'a [Icon],
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<&'a serde_json::value::RawValue>,
        }
        Wire {
            uri: (!is_template).then_some(&*self.uri),
            uri_template: is_template.then_some(&*self.uri),
            name: &self.name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            mime_type: self.mime_type.as_deref(),
            size: if is_template { None } else { self.size },
            annotations: self.annotations.as_ref(),
            icons: self.icons,
            meta: crate::tool::raw_meta(self.meta.as_deref()),
        }
    }
}

/// A template's list function: `fn() -> Vec<ResourceEntry>` or `fn(Context) -> ...`, sync or
/// async, possibly returning `Result<Vec<ResourceEntry>, E>`. `M` only tells the shapes apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot list resources",
    note = "a list function looks like `fn() -> Vec<ResourceEntry>` or `async fn(ctx: Context) -> Result<Vec<ResourceEntry>, E>`"
)]
pub trait Lister<M>: Copy + Send + 'static {
    /// Runs the function.
    fn list(self, ctx: Context) -> BoxFuture<'static, Result<Vec<ResourceEntry>, ErrorObject>>;
}

#[doc(hidden)]
pub struct SyncList;
#[doc(hidden)]
pub struct AsyncList;
#[doc(hidden)]
pub struct SyncListWithContext;
#[doc(hidden)]
pub struct AsyncListWithContext;

impl<F, R> Lister<(SyncList, R)> for F
where
    F: Fn() -> R + Copy + Send + 'static,
    R: IntoResourceEntries,
{
    fn list(self, _: Context) -> BoxFuture<'static, Result<Vec<ResourceEntry>, ErrorObject>> {
        Box::pin(std::future::ready(entries(self())))
    }
}

impl<F, Fut> Lister<(AsyncList, Fut)> for F
where
    F: Fn() -> Fut + Copy + Send + 'static,
    Fut: Future<Output: IntoResourceEntries> + Send + 'static,
{
    fn list(self, _: Context) -> BoxFuture<'static, Result<Vec<ResourceEntry>, ErrorObject>> {
        let future = self();
        Box::pin(async move { entries(future.await) })
    }
}

impl<F, R> Lister<(SyncListWithContext, R)> for F
where
    F: Fn(Context) -> R + Copy + Send + 'static,
    R: IntoResourceEntries,
{
    fn list(self, ctx: Context) -> BoxFuture<'static, Result<Vec<ResourceEntry>, ErrorObject>> {
        Box::pin(std::future::ready(entries(self(ctx))))
    }
}

impl<F, Fut> Lister<(AsyncListWithContext, Fut)> for F
where
    F: Fn(Context) -> Fut + Copy + Send + 'static,
    Fut: Future<Output: IntoResourceEntries> + Send + 'static,
{
    fn list(self, ctx: Context) -> BoxFuture<'static, Result<Vec<ResourceEntry>, ErrorObject>> {
        let future = self(ctx);
        Box::pin(async move { entries(future.await) })
    }
}

/// What a template's list function may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource list function",
    note = "return `Vec<ResourceEntry>` or `Result<Vec<ResourceEntry>, E>` where `E: Display`"
)]
pub trait IntoResourceEntries {
    /// The conversion; `Err` carries the failure's message.
    fn into_entries(self) -> Result<Vec<ResourceEntry>, String>;
}

impl IntoResourceEntries for Vec<ResourceEntry> {
    fn into_entries(self) -> Result<Vec<ResourceEntry>, String> {
        Ok(self)
    }
}

impl<E: std::fmt::Display> IntoResourceEntries for Result<Vec<ResourceEntry>, E> {
    fn into_entries(self) -> Result<Vec<ResourceEntry>, String> {
        self.map_err(|e| e.to_string())
    }
}

fn entries(value: impl IntoResourceEntries) -> Result<Vec<ResourceEntry>, ErrorObject> {
    value.into_entries().map_err(|message| ErrorObject::new(crate::jsonrpc::code::INTERNAL_ERROR, message))
}

/// Runs a user list function (the generated shims call this).
pub fn run_lister<M, L: Lister<M>>(
    lister: L,
    ctx: Context,
) -> BoxFuture<'static, Result<Vec<ResourceEntry>, ErrorObject>> {
    lister.list(ctx)
}

/// Implemented by the hidden item `#[mcp_resource]` puts next to a function.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP resource",
    note = "put `#[mcp_resource(uri = \"...\")]` on the function before listing it in `resources![...]`"
)]
pub trait ResourceDef {
    /// The URI or template, for the compile-time duplicate check.
    const URI: &'static str;
    /// The descriptor.
    fn descriptor() -> ResourceDescriptor;
}

/// The resources of a server, in order; built by `resources![...]`, or collected from
/// descriptors ([`ResourceDescriptor::builder`]).
#[derive(Default)]
pub struct ResourceSet {
    pub(crate) resources: Vec<ResourceDescriptor>,
}

impl From<ResourceDescriptor> for ResourceSet {
    fn from(item: ResourceDescriptor) -> Self {
        Self { resources: vec![item] }
    }
}

impl FromIterator<ResourceDescriptor> for ResourceSet {
    fn from_iter<I: IntoIterator<Item = ResourceDescriptor>>(items: I) -> Self {
        Self { resources: items.into_iter().collect() }
    }
}

impl ResourceSet {
    /// What the list macro builds: each item's descriptor function, called once here (a
    /// slice of functions rather than an array of descriptors, which the caller would build
    /// on its stack and copy).
    #[doc(hidden)]
    pub fn from_fns(descriptors: &[fn() -> ResourceDescriptor]) -> Self {
        Self { resources: descriptors.iter().map(|descriptor| descriptor()).collect() }
    }
}
