//! `resources/list`, `resources/read`, `resources/subscribe` and `resources/unsubscribe`.
//! The lists show what the caller may see (`visibility.rs`).

use super::reply::{Reply, cursor, to_raw, to_raw_value};
use super::task::{Handler, PanicAnswer, Route, Task};
use super::visibility::{self, Viewer};
use crate::clip::clip;
use crate::jsonrpc::ErrorObject;
use crate::message::Request;
use crate::protocol::{self, ProtocolVersion};
use crate::registry::Registry;
use crate::resource::uri_template::path_escape;
use crate::resource::{ResourceDescriptor, ResourceRequest};
use crate::session::Session;
use crate::session::budget::OverBudget;
use serde_json::Map;
use serde_json::value::RawValue;
use std::sync::Arc;

pub(crate) fn list<'a>(registry: &'a Arc<Registry>, params: Option<&RawValue>) -> Route<'a> {
    let cursor = match cursor(params) {
        Ok(cursor) => cursor,
        Err(error) => return Route::Reply(Err(error)),
    };
    if !registry.has_resource_lists() {
        let page = registry.resources.page(cursor.as_deref());
        return Route::Reply(page.and_then(|page| visibility::seen(&registry.resources, page)));
    }
    // Templates enumerate their resources at request time: user code, so a task. Who may see
    // what is read now, while the request's caller is current.
    let viewer = Viewer::current();
    let registry = Arc::clone(registry);
    Route::Spawn(Task {
        meta: None,
        http: Default::default(),
        on_panic: PanicAnswer::InternalError,
        run: Handler::waiting(move |ctx| async move {
            let seen = |resource: &ResourceDescriptor| visibility::sees(viewer.as_ref(), resource.scopes);
            let listed = registry.resources.wire_items_where(seen)?;
            let mut all: Vec<Box<RawValue>> = listed.into_iter().map(ToOwned::to_owned).collect();
            for template in registry.templates.items().filter(|template| seen(&template.descriptor)) {
                if let Some(list) = &template.descriptor.list {
                    for entry in list(ctx.clone()).await? {
                        all.push(to_raw_value(&entry)?);
                    }
                }
            }
            let start =
                match cursor.as_deref() {
                    None => 0,
                    Some(c) => c.parse::<usize>().ok().filter(|&i| i < all.len()).ok_or_else(|| {
                        ErrorObject::invalid_params(format!("invalid cursor: {:?}", clip(c).to_string()))
                    })?,
                };
            let end = start.saturating_add(registry.page_size).min(all.len());
            let mut page = Map::new();
            page.insert("resources".into(), serde_json::to_value(&all[start..end]).unwrap_or_default());
            if end < all.len() {
                page.insert("nextCursor".into(), end.to_string().into());
            }
            to_raw(&page)
        }),
    })
}

pub(crate) fn read<'a>(registry: &'a Registry, version: Option<ProtocolVersion>, request: &Request<'_>) -> Route<'a> {
    let (uri, meta) = match request.required_target().and_then(|uri| Ok((uri, request.meta_object()?))) {
        Ok(read) => read,
        Err(error) => return Route::Reply(Err(error)),
    };
    // The resource the caller's scopes were checked against (`transport/http/policy.rs`):
    // the same decoded URI, looked up the same way.
    let Some((descriptor, variables)) = registry.resource_for(uri) else {
        return Route::Reply(Err(protocol::resource_not_found(uri, version)));
    };
    if !descriptor.allow_dot_segments
        && let Some(escape) = variables.values().find_map(|v| path_escape(v))
    {
        let message = format!("refused: {escape} in a variable of {}", clip(uri));
        return Route::Reply(Err(ErrorObject::invalid_params(message)));
    }
    let http = request.http_for(&descriptor.required_state);
    let descriptor = descriptor.clone();
    let request = ResourceRequest { uri: uri.to_owned(), variables };
    // The resource's own caching hints, for the stateless decoration to keep.
    let stateless = version.is_some_and(ProtocolVersion::is_stateless);
    Route::Spawn(Task {
        meta,
        http,
        on_panic: PanicAnswer::InternalError,
        run: Handler::waiting(move |ctx| async move {
            let result = (descriptor.read)(request, ctx).await?;
            match (stateless, descriptor.ttl_ms, descriptor.cache_scope) {
                (true, ttl, scope) if ttl.is_some() || scope.is_some() => {
                    let mut value = serde_json::to_value(&result).unwrap_or_default();
                    if let Some(ttl) = ttl {
                        value["ttlMs"] = ttl.into();
                    }
                    if let Some(scope) = scope {
                        value["cacheScope"] = scope.into();
                    }
                    to_raw(&value)
                }
                _ => to_raw(&result),
            }
        }),
    })
}

/// `resources/subscribe` (`on`) and `resources/unsubscribe`. Only a URI that a resource or a
/// template serves can be subscribed to: anything else would be kept for nothing.
pub(crate) fn subscribe(
    registry: &Registry,
    session: &Session,
    request: &Request<'_>,
    on: bool,
) -> Result<Reply<'static>, ErrorObject> {
    let uri = request.required_target()?;
    if on && registry.resource_for(uri).is_none() {
        return Err(protocol::resource_not_found(uri, session.protocol_version()));
    }
    session.set_subscribed(uri, on).map_err(OverBudget::into_error)?;
    Reply::empty()
}
