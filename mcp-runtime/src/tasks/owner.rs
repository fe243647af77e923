//! Whose a task is: the caller that started it. Checked on every `tasks/*` request and before
//! a `subscriptions/listen` stream shows a task, on whichever replica the request lands (the
//! owner is stored with the record), so a task's result, its cancellation and the answers to
//! its questions belong to whoever started it.

use crate::context::Context;
use serde::{Deserialize, Serialize};

/// Who started a task, as the request that started it could tell.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TaskOwner {
    /// A verified caller (HTTP with authorization): the token's issuer, whom it was issued
    /// for and the OAuth client it was issued to, as one key. Another token of the same
    /// caller reaches the task; another user's or another client's does not.
    Caller(String),
    /// A session without a verified caller: its id (HTTP's `Mcp-Session-Id`, or one the
    /// session drew at random).
    Session(String),
    /// A stateless request without a verified caller (2026-07-28, or a 2025-era request to a
    /// server without sessions): nothing identifies it but the task's id, 128 random bits that
    /// only the request's answer carried, so the id is the key.
    IdHolder,
}

impl TaskOwner {
    /// The owner a request made through `ctx` would be.
    pub fn of(ctx: &Context) -> Self {
        #[cfg(feature = "auth")]
        if let Some(caller) = ctx.auth() {
            let key = (crate::auth::SessionOwner::of(caller), caller.client_id());
            return Self::Caller(serde_json::to_string(&key).unwrap_or_default());
        }
        if ctx.is_stateless() || ctx.session().is_sessionless() {
            Self::IdHolder
        } else {
            Self::Session(ctx.session().key().to_owned())
        }
    }

    /// Whose allowance the task's record is charged to: the owner's, or, for an owner known
    /// only by the task's id, the task's own (`id`), so one anonymous client's records cannot
    /// spend another's allowance; all of them draw on the server's.
    pub fn account(&self, id: &str) -> String {
        match self {
            Self::Caller(key) => format!("c:{key}"),
            Self::Session(key) => format!("s:{key}"),
            Self::IdHolder => format!("t:{id}"),
        }
    }
}

/// Who may see and steer a task: its owner, holding still the scopes its tool needed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Access {
    pub owner: TaskOwner,
    /// The scopes of the tool the task runs (`#[mcp_tool(scopes = [...])]`): reading the task
    /// later needs them as calling the tool did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

impl Access {
    /// The access of a task started through `ctx`, running a tool that needs `scopes`.
    pub fn of(ctx: &Context, scopes: &[&str]) -> Self {
        Self { owner: TaskOwner::of(ctx), scopes: scopes.iter().map(|scope| (*scope).to_owned()).collect() }
    }

    /// Whether the request made through `ctx`, whose owner would be `viewer`, may see and
    /// steer the task. Anyone else is told the task does not exist.
    pub fn admits(&self, viewer: &TaskOwner, ctx: &Context) -> bool {
        if *viewer != self.owner {
            return false;
        }
        #[cfg(feature = "auth")]
        if let Some(caller) = ctx.auth() {
            return self.scopes.iter().all(|scope| caller.has_scope(scope));
        }
        let _ = ctx;
        true
    }
}
