//! Which items a caller may see and use: the `scopes = [...]` of `#[mcp_tool]`,
//! `#[mcp_resource]` and `#[mcp_prompt]` against the scopes of the caller's token.

use super::caller::{AuthInfo, current_caller};
use crate::completion::Reference;
use crate::message::Request;
use crate::protocol::Method;
use crate::registry::{Referenced, Registry};
use std::sync::Arc;

/// The scopes in `required` that `caller` was not granted.
pub(crate) fn missing<'a>(required: &[&'a str], caller: &AuthInfo) -> Vec<&'a str> {
    required.iter().copied().filter(|scope| !caller.has_scope(scope)).collect()
}

/// The verified caller of the request being handled, as far as listings go: it sees the items
/// whose scopes its token holds.
pub(crate) struct Viewer(Arc<AuthInfo>);

impl Viewer {
    /// The current request's caller; `None` without a verified one (stdio, or a server that
    /// authorizes nothing), who sees everything.
    pub fn current() -> Option<Self> {
        current_caller().map(Self)
    }

    /// Whether it holds every one of `scopes`.
    pub fn sees(&self, scopes: &[&str]) -> bool {
        scopes.iter().all(|scope| self.0.has_scope(scope))
    }
}

/// An item a request acts on, with the scopes it needs.
pub(crate) struct Guarded<'a> {
    /// `tool`, `resource`, `prompt`, `resource template`: for the refusal's message.
    pub what: &'static str,
    /// Its name, or the URI the request reads.
    pub name: &'a str,
    pub scopes: &'static [&'static str],
}

/// The item `request` acts on, found as the router will find it: the tool of a `tools/call`,
/// the resource (or template) a `resources/read` or `resources/subscribe` reaches, the prompt of
/// a `prompts/get`, the prompt or template a `completion/complete` names. `None` for other
/// methods, and for an unknown item (answered as one by the router; nothing runs).
pub(crate) fn guarded<'a>(registry: &'a Registry, request: &'a Request<'_>) -> Option<Guarded<'a>> {
    let target = request.target.as_deref();
    let (what, name, scopes) = match request.method? {
        Method::ToolsCall => ("tool", target?, registry.tools.get(target?)?.scopes),
        Method::ResourcesRead | Method::ResourcesSubscribe => {
            ("resource", target?, registry.resource_for(target?)?.0.scopes)
        }
        Method::PromptsGet => ("prompt", target?, registry.prompts.get(target?)?.scopes),
        Method::CompletionComplete => {
            let reference = Reference::parse(request.reference).ok()?;
            match registry.referenced(&reference).ok()? {
                Referenced::Prompt(prompt) => ("prompt", &*prompt.name, prompt.scopes),
                Referenced::Template(template) => {
                    ("resource template", &*template.descriptor.uri, template.descriptor.scopes)
                }
            }
        }
        _ => return None,
    };
    Some(Guarded { what, name, scopes })
}
