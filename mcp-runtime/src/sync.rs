//! Locking a `std` mutex or read-write lock whatever a panicking holder left: every lock in the
//! runtime guards state a panic cannot leave half-written in a way the next holder would
//! misread, so a poisoned lock is taken as it is rather than spreading the panic. And a
//! broadcast channel made when first subscribed to.

use std::sync::{Mutex, MutexGuard, OnceLock};
#[cfg(any(feature = "auth", feature = "client"))]
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use tokio::sync::broadcast;

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

/// A broadcast channel made when its first receiver subscribes: until then a send reaches
/// nobody, and the channel's ring of slots (a page or more of memory, touched when made, each
/// page a fault at start-up) is not allocated for the announcements nobody may ever hear.
pub(crate) struct Broadcast<T> {
    capacity: usize,
    sender: OnceLock<broadcast::Sender<T>>,
}

impl<T: Clone> Broadcast<T> {
    pub const fn new(capacity: usize) -> Self {
        Self { capacity, sender: OnceLock::new() }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<T> {
        self.sender.get_or_init(|| broadcast::channel(self.capacity).0).subscribe()
    }

    /// A sender of its own: what it sends reaches this broadcast's receivers.
    #[cfg(feature = "http")] // the HTTP transport's shared store
    pub fn sender(&self) -> broadcast::Sender<T> {
        self.sender.get_or_init(|| broadcast::channel(self.capacity).0).clone()
    }

    /// Sends to the receivers there are (none is fine).
    pub fn send(&self, value: T) {
        if let Some(sender) = self.sender.get() {
            let _ = sender.send(value);
        }
    }
}
