//! The router: method name to handler. Handlers that need no user code answer at once
//! ([`Route::Reply`]); the others return a [`Task`] of user code for the engine to run.

mod completion;
mod lifecycle;
mod prompts;
pub(crate) mod reply;
mod resources;
pub(crate) mod task;
mod tools;
pub(crate) mod visibility;

pub(crate) use lifecycle::{capabilities, initialize};

use crate::message::Request;
use crate::protocol::{Method, ProtocolVersion};
use crate::registry::{ListItem, Listing, Registry};
use crate::session::Session;
use crate::tool::SchemaProfile;
use reply::{Reply, cursor};
use serde_json::value::RawValue;
use std::sync::Arc;
use task::Route;

/// The list page `params`' cursor points at, as the caller may see it.
fn page<'a, T: ListItem>(listing: &'a Listing<T>, params: Option<&RawValue>) -> Route<'a> {
    let page = cursor(params).and_then(|cursor| listing.page(cursor.as_deref()));
    Route::Reply(page.and_then(|page| visibility::seen(listing, page)))
}

/// Routes a request of an initialized session, or a stateless one (`version` is the
/// protocol version the request is served under; `profile`, the form of the tool schemas a
/// stateless request's client gets, `None` for the session's). The lifecycle methods
/// (`initialize`, `ping`) and the stateless era's own are the engine's.
pub(crate) fn route<'a>(
    registry: &'a Arc<Registry>,
    session: &Session,
    version: Option<ProtocolVersion>,
    profile: Option<SchemaProfile>,
    request: &Request<'a>,
) -> Route<'a> {
    let params = request.params;
    let Some(method) = request.method else { return Reply::method_not_found(&request.name).into() };
    match method {
        Method::ToolsList => match cursor(params) {
            Ok(cursor) => {
                let profile = profile.unwrap_or_else(|| session.schema_profile());
                tools::list(registry, session, profile, cursor.as_deref()).into()
            }
            Err(error) => Route::Reply(Err(error)),
        },
        Method::ToolsCall => tools::call(registry, session, request),
        Method::ResourcesList => resources::list(registry, params),
        Method::ResourcesTemplatesList => page(&registry.templates, params),
        Method::ResourcesRead => resources::read(registry, version, request),
        Method::ResourcesSubscribe => resources::subscribe(registry, session, request, true).into(),
        Method::ResourcesUnsubscribe => resources::subscribe(registry, session, request, false).into(),
        Method::PromptsList => page(&registry.prompts, params),
        Method::PromptsGet => prompts::get(registry, request),
        Method::CompletionComplete => completion::complete(registry, request),
        Method::LoggingSetLevel => lifecycle::set_level(session, params).into(),
        Method::Initialize
        | Method::Ping
        | Method::Shutdown
        | Method::Discover
        | Method::SubscriptionsListen
        | Method::TasksGet
        | Method::TasksUpdate
        | Method::TasksCancel
        | Method::TasksResult => Reply::method_not_found(&request.name).into(),
    }
}
