//! Locking a `std` mutex or read-write lock whatever a panicking holder left: every lock in the
//! runtime guards state a panic cannot leave half-written in a way the next holder would
//! misread, so a poisoned lock is taken as it is rather than spreading the panic.

use std::sync::{Mutex, MutexGuard};
#[cfg(any(feature = "auth", feature = "client"))]
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(any(feature = "auth", feature = "client"))]
pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

#[cfg(any(feature = "auth", feature = "client"))]
pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}
