//! The server states a handler needs: what `FromContext::required_state` reports, checked
//! against the builder's registered `State` values when the server is built.

use crate::type_map::TypeMap;
use crate::{Error, ErrorKind};
use std::any::TypeId;

/// A server [`State<T>`](crate::State) a handler needs, checked when the server is built (see
/// [`FromContext::required_state`](crate::FromContext::required_state)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequiredState {
    /// `TypeId::of::<T>()`.
    pub id: TypeId,
    /// `std::any::type_name::<T>()`, for the error.
    pub name: &'static str,
}

impl RequiredState {
    /// The requirement of a `State<T>`.
    pub fn of<T: 'static>() -> Self {
        Self { id: TypeId::of::<T>(), name: std::any::type_name::<T>() }
    }

    /// Not a server state: the mark of a handler that takes the HTTP request
    /// (`HttpRequest::required_state`), which the transport then captures for it.
    #[cfg(feature = "http")]
    pub(crate) fn http_mark() -> Self {
        Self { id: TypeId::of::<HttpMark>(), name: "the HTTP request" }
    }

    /// Whether this is [`http_mark`](Self::http_mark).
    pub(crate) fn is_http_mark(&self) -> bool {
        self.id == TypeId::of::<HttpMark>()
    }
}

/// The type whose id marks a handler that takes the HTTP request.
enum HttpMark {}

/// Refuses a handler (`kind` and `name`, for the error) that takes a `State<T>` the server
/// never registered, naming both, so the mistake shows when the server is built rather than
/// when a model first calls the handler.
pub(crate) fn check(kind: &str, name: &str, required: &[RequiredState], registered: &TypeMap) -> crate::Result<()> {
    // `HttpRequest` marks its handlers with a requirement of its own, met by the transport.
    match required.iter().filter(|state| !state.is_http_mark()).find(|state| !registered.contains(state.id)) {
        None => Ok(()),
        Some(missing) => Err(Error::new(
            ErrorKind::Config,
            format!(
                "the {kind} `{name}` takes `State<{0}>`, but no `{0}` was registered: call `.state(...)` with one on the server builder",
                missing.name
            ),
        )),
    }
}
