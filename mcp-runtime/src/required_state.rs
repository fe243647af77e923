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
}

/// Refuses a handler (`kind` and `name`, for the error) that takes a `State<T>` the server
/// never registered, naming both, so the mistake shows when the server is built rather than
/// when a model first calls the handler.
pub(crate) fn check(kind: &str, name: &str, required: &[RequiredState], registered: &TypeMap) -> crate::Result<()> {
    // `HttpRequest` marks its handlers with a requirement of its own, met by the transport.
    #[cfg(feature = "http")]
    let is_state = |state: &&RequiredState| !crate::http_request::is_mark(state);
    #[cfg(not(feature = "http"))]
    let is_state = |_: &&RequiredState| true;
    match required.iter().filter(is_state).find(|state| !registered.contains(state.id)) {
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
