//! [`ResourceBuilder`]: a resource or resource template served by a closure.

use super::interned;
use crate::completion::{CompleteFn, CompletionRequest, IntoCompletion};
use crate::content::Annotations;
use crate::context::Context;
use crate::error::{Error, ErrorKind, Result};
use crate::resource::uri_template::UriTemplate;
use crate::resource::{IntoReadResult, ListFn, ReadFn, ResourceDescriptor, ResourceEntry, ResourceRequest};
use crate::tool::Str;
use futures_util::FutureExt as _;
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::Arc;

/// Builds a [`ResourceDescriptor`] at run time: what `#[mcp_resource]` generates. A URI with
/// `{variables}` (RFC 6570) is a template, whose reads get the variables it bound in
/// [`ResourceRequest::variables`]; a static one is listed by `resources/list`.
///
/// ```
/// use mcp_runtime::{ResourceDescriptor, Server};
///
/// # fn main() -> mcp_runtime::Result<()> {
/// let note = ResourceDescriptor::builder("note://{id}", "note")
///     .mime_type("text/plain")
///     .read(|request, _ctx| async move { format!("note {}", request.variables["id"]) })
///     .build()?;
/// let server = Server::new("notes", "1.0").resources(note.into());
/// # let _ = server; Ok(()) }
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct ResourceBuilder {
    descriptor: ResourceDescriptor,
    scopes: Vec<String>,
    has_read: bool,
}

impl ResourceDescriptor {
    /// A resource, or a template when `uri` holds `{variables}`, named `name`, to be described
    /// and given a read function: see [`ResourceBuilder`].
    pub fn builder(uri: impl Into<String>, name: impl Into<String>) -> ResourceBuilder {
        // Until `read` gives one (`build` refuses a resource without it).
        let unread = ReadFn::Static(&|request, ctx| {
            std::future::ready(Err(crate::protocol::resource_not_found(&request.uri, ctx.protocol_version()))).boxed()
        });
        ResourceBuilder {
            descriptor: ResourceDescriptor::new(uri.into(), name.into(), unread),
            scopes: Vec::new(),
            has_read: false,
        }
    }
}

impl ResourceBuilder {
    /// A display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.descriptor.title = Some(title.into().into());
        self
    }

    /// What it holds.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.descriptor.description = Some(description.into().into());
        self
    }

    /// The MIME type of its contents.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.descriptor.mime_type = Some(mime_type.into().into());
        self
    }

    /// Its size in bytes, when known ahead.
    pub fn size(mut self, size: u64) -> Self {
        self.descriptor.size = Some(size);
        self
    }

    /// Audience, priority, last modification.
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.descriptor.annotations = Some(annotations);
        self
    }

    /// `_meta` of its definition.
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.descriptor.meta = Some(Value::Object(meta).to_string().into());
        self
    }

    /// OAuth scopes a caller must hold to see it listed, read it and subscribe to it (HTTP with
    /// feature `auth`).
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Lets template variables hold path-like values (`..` segments, absolute paths), refused
    /// by default.
    pub fn allow_dot_segments(mut self, allow: bool) -> Self {
        self.descriptor.allow_dot_segments = allow;
        self
    }

    /// What a read returns: an async closure given the request (its URI and, for a template,
    /// the variables it bound) and the [`Context`], returning anything a resource function may
    /// ([`IntoReadResult`]: text, bytes, [`Json`](crate::Json), `Result<T, ResourceNotFound>`...).
    pub fn read<F, Fut>(mut self, read: F) -> Self
    where
        F: Fn(ResourceRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output: IntoReadResult> + Send + 'static,
    {
        let mime_type = self.descriptor.mime_type.clone();
        self.descriptor.read = ReadFn::Arc(Arc::new(move |request, ctx| {
            let (uri, mime_type) = (request.uri.clone(), mime_type.clone());
            read(request, ctx.clone())
                .map(move |value| crate::__private::read_result(value, &uri, mime_type.as_deref(), &ctx))
                .boxed()
        }));
        self.has_read = true;
        self
    }

    /// For a template: the concrete resources it stands for, listed by `resources/list`.
    pub fn list<F, Fut>(mut self, list: F) -> Self
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<ResourceEntry>> + Send + 'static,
    {
        self.descriptor.list = Some(ListFn::Arc(Arc::new(move |ctx| list(ctx).map(Ok).boxed())));
        self
    }

    /// For a template: completes the values of its variable `variable`.
    pub fn complete<F, Fut>(mut self, variable: impl Into<String>, complete: F) -> Self
    where
        F: Fn(CompletionRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output: IntoCompletion> + Send + 'static,
    {
        let complete =
            CompleteFn::Arc(Arc::new(move |request, ctx| complete(request, ctx).map(|c| c.into_completion()).boxed()));
        self.descriptor.complete.push((Str::from(variable.into()), complete));
        self
    }

    /// The descriptor; an error of kind [`Config`](ErrorKind::Config) names what is wrong: a
    /// URI template that does not parse, a completion of a variable it does not have, no read
    /// function.
    pub fn build(self) -> Result<ResourceDescriptor> {
        let mut descriptor = self.descriptor;
        let uri = descriptor.uri.clone();
        let refused = |what: String| Error::new(ErrorKind::Config, format!("resource `{uri}`: {what}"));
        let template = UriTemplate::parse(&uri).map_err(|e| refused(format!("invalid URI template: {e}")))?;
        if !self.has_read {
            return Err(refused("no read function: give one with `ResourceBuilder::read`".into()));
        }
        if let Some((unknown, _)) =
            descriptor.complete.iter().find(|(variable, _)| !template.variables().any(|v| v == &**variable))
        {
            return Err(refused(format!("completes `{unknown}`, which is not a variable of its URI")));
        }
        if template.is_static() && descriptor.list.is_some() {
            return Err(refused("only a template lists resources: its URI has no `{variable}`".into()));
        }
        descriptor.scopes = interned::scopes(self.scopes);
        Ok(descriptor)
    }
}
