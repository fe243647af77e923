//! Application state a handler asks for by type: shared by the whole server ([`State`]) or
//! kept per client session ([`SessionState`]).

use crate::context::{Context, FromContext};
use crate::required_state::RequiredState;
use crate::tool::CallToolResult;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::any::type_name;
use std::ops::Deref;
use std::sync::Arc;

/// Shared application state, registered once with [`Server::state`](crate::Server::state) and
/// injected into any handler that takes a `State<T>` parameter:
///
/// ```no_run
/// # use mcp_runtime::prelude::*;
/// use mcp_runtime::State;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// #[derive(Default)]
/// struct Counter {
///     hits: AtomicU64,
/// }
///
/// /// Counts calls across all clients.
/// #[mcp_tool]
/// fn hit(counter: State<Counter>) -> u64 {
///     counter.hits.fetch_add(1, Ordering::Relaxed) + 1
/// }
///
/// # async fn run() -> mcp_runtime::Result<()> {
/// server!().state(Counter::default()).tools(tools![hit]).serve_stdio().await
/// # }
/// ```
pub struct State<T>(pub Arc<T>);

/// State kept per client session, created with `T::default()` the first time a handler of
/// that session asks for it. Use interior mutability (`Mutex`, atomics) to change it.
///
/// `T` serializes, because a session store keeps it: with
/// `SessionStore::redis` (feature `redis`), the session, this value with it, moves
/// between the replicas of a server. It is saved after each request of the session that
/// changed it, and read again by a replica that serves the session next. For a value that
/// does not serialize (a connection, a channel), use [`LocalSessionState`]: kept by each
/// process for itself.
///
/// The bound holds in every build, with or without `redis`: features add up across a build
/// (any crate may turn `redis` on), so a bound that appeared with the feature would break code
/// that compiled before it; a `SessionState` is thus ready for a shared store wherever it is
/// written.
pub struct SessionState<T>(pub Arc<T>);

/// State kept per client session in this process only, created with `T::default()` the first
/// time a handler asks for it: [`SessionState`] for values that do not serialize. With one
/// process it behaves as `SessionState`; with several replicas sharing sessions
/// (`SessionStore::redis`, feature `redis`), each replica has its own value for
/// the session.
pub struct LocalSessionState<T>(pub Arc<T>);

macro_rules! deref_to_inner {
    ($($wrapper:ident),*) => {$(
        impl<T> Deref for $wrapper<T> {
            type Target = T;
            fn deref(&self) -> &T {
                &self.0
            }
        }

        impl<T> Clone for $wrapper<T> {
            fn clone(&self) -> Self {
                Self(Arc::clone(&self.0))
            }
        }
    )*};
}
deref_to_inner!(State, SessionState, LocalSessionState);

impl<T: Send + Sync + 'static> FromContext for State<T> {
    fn required_state() -> Option<RequiredState> {
        Some(RequiredState::of::<T>())
    }

    fn from_context(ctx: &Context) -> Result<Self, CallToolResult> {
        ctx.session().settings.state.get::<T>().map(State).ok_or_else(|| {
            tracing::error!("a handler asked for `State<{}>`, which was never registered", type_name::<T>());
            CallToolResult::error(format!(
                "server misconfiguration: no `{}` state was registered (call `.state(...)` on the server builder)",
                type_name::<T>()
            ))
        })
    }
}

impl<T> FromContext for SessionState<T>
where
    T: Serialize + DeserializeOwned + Default + Send + Sync + 'static,
{
    fn from_context(ctx: &Context) -> Result<Self, CallToolResult> {
        Ok(SessionState(ctx.session().state.get_or_decode::<T>()))
    }
}

impl<T: Default + Send + Sync + 'static> FromContext for LocalSessionState<T> {
    fn from_context(ctx: &Context) -> Result<Self, CallToolResult> {
        Ok(LocalSessionState(ctx.session().state.get_or_default::<T>()))
    }
}
