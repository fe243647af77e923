//! The method table: every request method the server answers, named once, with the
//! properties the layers decide by (which era serves it, whether clients may cache its result,
//! which member of its params names what it acts on).

/// A request method this server answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    ToolsCall,
    ToolsList,
    ResourcesRead,
    ResourcesList,
    ResourcesTemplatesList,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    PromptsGet,
    PromptsList,
    CompletionComplete,
    LoggingSetLevel,
    Initialize,
    Ping,
    /// Not MCP: some clients send it out of LSP habit; answered like `ping`.
    Shutdown,
    Discover,
    SubscriptionsListen,
    /// Tasks: the 2025-11-25 experimental ones (get, cancel, result) and the tasks extension
    /// of 2026-07-28 (get, update, cancel).
    TasksGet,
    TasksUpdate,
    TasksCancel,
    /// 2025-11-25 tasks only: the result, once the task ends.
    TasksResult,
}

/// The member of a request's params that names what it acts on: the tool whose scopes a
/// caller needs, the value the 2026-07-28 `Mcp-Name` header mirrors, the target a sealed
/// `requestState` is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    None,
    /// `params.name` (a tool or a prompt).
    Name,
    /// `params.uri` (a resource).
    Uri,
    /// `params.taskId` (a task of the tasks extension).
    TaskId,
}

/// One row of the table.
struct Entry {
    method: Method,
    name: &'static str,
    /// Served in a 2025-11-25 session.
    session: bool,
    /// Served to a stateless (2026-07-28) request.
    stateless: bool,
    /// Its 2026-07-28 result carries caching hints (`ttlMs`, `cacheScope`).
    cacheable: bool,
    target: Target,
}

const fn entry(method: Method, name: &'static str, eras: (bool, bool), cacheable: bool, target: Target) -> Entry {
    Entry { method, name, session: eras.0, stateless: eras.1, cacheable, target }
}

/// Which eras serve a method: (2025-11-25 session, 2026-07-28 stateless).
const BOTH: (bool, bool) = (true, true);
const SESSION: (bool, bool) = (true, false);
const STATELESS: (bool, bool) = (false, true);

/// In the order of [`Method`]'s variants (checked by a test), the most frequent first.
const TABLE: [Entry; 20] = [
    entry(Method::ToolsCall, "tools/call", BOTH, false, Target::Name),
    entry(Method::ToolsList, "tools/list", BOTH, true, Target::None),
    entry(Method::ResourcesRead, "resources/read", BOTH, true, Target::Uri),
    entry(Method::ResourcesList, "resources/list", BOTH, true, Target::None),
    entry(Method::ResourcesTemplatesList, "resources/templates/list", BOTH, true, Target::None),
    entry(Method::ResourcesSubscribe, "resources/subscribe", SESSION, false, Target::Uri),
    entry(Method::ResourcesUnsubscribe, "resources/unsubscribe", SESSION, false, Target::Uri),
    entry(Method::PromptsGet, "prompts/get", BOTH, false, Target::Name),
    entry(Method::PromptsList, "prompts/list", BOTH, true, Target::None),
    entry(Method::CompletionComplete, "completion/complete", BOTH, false, Target::None),
    entry(Method::LoggingSetLevel, "logging/setLevel", SESSION, false, Target::None),
    entry(Method::Initialize, "initialize", SESSION, false, Target::None),
    entry(Method::Ping, "ping", SESSION, false, Target::None),
    entry(Method::Shutdown, "shutdown", SESSION, false, Target::None),
    entry(Method::Discover, "server/discover", STATELESS, true, Target::None),
    entry(Method::SubscriptionsListen, "subscriptions/listen", STATELESS, false, Target::None),
    entry(Method::TasksGet, "tasks/get", BOTH, false, Target::TaskId),
    entry(Method::TasksUpdate, "tasks/update", STATELESS, false, Target::TaskId),
    entry(Method::TasksCancel, "tasks/cancel", BOTH, false, Target::TaskId),
    entry(Method::TasksResult, "tasks/result", SESSION, false, Target::TaskId),
];

impl Method {
    /// The method called `name`, if this server answers it.
    pub fn parse(name: &str) -> Option<Self> {
        TABLE.iter().find(|entry| entry.name == name).map(|entry| entry.method)
    }

    fn entry(self) -> &'static Entry {
        &TABLE[self as usize]
    }

    /// Its name on the wire.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// Whether a 2025-11-25 session serves it.
    pub fn in_session(self) -> bool {
        self.entry().session
    }

    /// Whether a stateless (2026-07-28) request may call it; the others (`initialize`, `ping`,
    /// `logging/setLevel`, `resources/(un)subscribe`) are not part of that era.
    pub fn is_stateless(self) -> bool {
        self.entry().stateless
    }

    /// Whether its 2026-07-28 result carries caching hints.
    pub fn is_cacheable(self) -> bool {
        self.entry().cacheable
    }

    /// The member of its params that names what it acts on.
    pub fn target(self) -> Target {
        self.entry().target
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_order_of_the_variants() {
        for (index, entry) in TABLE.iter().enumerate() {
            assert_eq!(entry.method as usize, index, "{} is out of place", entry.name);
            assert_eq!(Method::parse(entry.name), Some(entry.method));
            assert_eq!(entry.method.name(), entry.name);
        }
        assert_eq!(Method::parse("tools/call "), None);
        assert_eq!(Method::parse("notifications/initialized"), None);
    }
}
