//! `tools/list` and `tools/call`.

use super::reply::{Reply, to_raw};
use super::task::{Handler, PanicAnswer, Route, Task, ToolRun};
use super::visibility::{Viewer, keeping, sees};
use crate::clip::clip;
use crate::jsonrpc::ErrorObject;
use crate::message::Request;
use crate::registry::Registry;

/// A `tools/list` page, its schemas in `profile`'s form (serialized once per profile), without
/// the tools hidden from this session (`Context::hide_tools`), those with a tag switched off
/// (`tags/`) and, with feature `auth`, those
/// the HTTP caller's token lacks the scopes for.
pub(crate) fn list<'a>(
    registry: &'a Registry,
    session: &crate::session::Session,
    profile: crate::SchemaProfile,
    cursor: Option<&str>,
) -> Result<Reply<'a>, ErrorObject> {
    let page = registry.tools.page_in(cursor, profile.index())?;
    let viewer = Viewer::current();
    if viewer.is_none() && session.hidden_tools().is_empty() && !registry.has_disabled_tools && !session.switches_tags()
    {
        return Ok(Reply::Shared(page));
    }
    keeping(&registry.tools, page, |tool| {
        sees(viewer.as_ref(), tool.scopes)
            && !session.is_tool_hidden(&tool.name)
            && session.offers_tagged(tool.tags, &registry.disabled_tags)
    })
}

pub(crate) fn call<'a>(registry: &'a Registry, session: &crate::session::Session, request: &Request<'a>) -> Route<'a> {
    let call = request.required_target().and_then(|name| {
        // A tool hidden from this session is as unknown to it as one never offered.
        if session.is_tool_hidden(name) {
            return Err(ErrorObject::invalid_params(format!("Unknown tool: {}", clip(name))));
        }
        // The tool the caller's scopes were checked against (`transport/http/policy.rs`): the
        // same decoded name, looked up the same way.
        // A tool with a tag switched off, likewise.
        let index = registry
            .tools
            .position(name)
            .filter(|&index| session.offers_tagged(registry.tools.item(index).tags, &registry.disabled_tags))
            .ok_or_else(|| ErrorObject::invalid_params(format!("Unknown tool: {}", clip(name))))?;
        if request.arguments.is_some_and(|a| !a.get().starts_with('{')) {
            return Err(ErrorObject::invalid_params("tools/call: `arguments` must be an object"));
        }
        Ok((index, registry.tools.item(index), request.meta_object()?))
    });
    // Constraints the schema advertises, checked before the function runs: a tool error
    // naming the field, for the model to correct its call.
    if let Ok((index, tool, _)) = &call
        && let Err(message) = registry.argument_checks.check(*index, tool, request.arguments)
    {
        return Route::Reply(to_raw(&crate::tool::CallToolResult::error(message)).map(Reply::Serialized));
    }
    match call {
        Ok((_, tool, meta)) => Route::Spawn(Task {
            meta,
            http: request.http_for(&tool.required_state),
            run: Handler::Tool(ToolRun { tool, arguments: request.arguments }),
            on_panic: PanicAnswer::ToolError(tool.name.clone()),
        }),
        Err(error) => Route::Reply(Err(error)),
    }
}
