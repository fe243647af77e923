//! Locking a `std` mutex whatever a panicking holder left: every lock in the runtime guards
//! state a panic cannot leave half-written in a way the next holder would misread, so a
//! poisoned lock is taken as it is rather than spreading the panic.

use std::sync::{Mutex, MutexGuard};

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
