//! The functions a descriptor holds (a tool's call and schemas, a resource's read and list, a
//! prompt's get, a completion): the plain functions the macros wrote, referenced where they
//! are, or closures with captures (a mounted server's items hold its client), shared by the
//! descriptor's clones.

use std::ops::Deref;
use std::sync::Arc;

/// A function a descriptor holds; call it as the function it derefs to.
pub enum SharedFn<F: ?Sized + 'static> {
    /// A function the macros wrote: nothing is allocated for it (when each was an `Arc`, a
    /// server of 103 tools made 309 of them before it could answer).
    Static(&'static F),
    /// A closure with captures.
    Arc(Arc<F>),
}

impl<F: ?Sized> Clone for SharedFn<F> {
    fn clone(&self) -> Self {
        match self {
            Self::Static(function) => Self::Static(function),
            Self::Arc(function) => Self::Arc(Arc::clone(function)),
        }
    }
}

impl<F: ?Sized> Deref for SharedFn<F> {
    type Target = F;

    fn deref(&self) -> &F {
        match self {
            Self::Static(function) => function,
            Self::Arc(function) => function,
        }
    }
}
