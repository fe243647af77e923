//! Values keyed by their type: the server's [`State`](crate::State) and each session's
//! [`SessionState`](crate::SessionState).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Values by type.
#[derive(Default)]
pub(crate) struct TypeMap(HashMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl TypeMap {
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.0.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// Whether a value of the type `id` is registered.
    pub fn contains(&self, id: TypeId) -> bool {
        self.0.contains_key(&id)
    }

    pub fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.0.get(&TypeId::of::<T>()).and_then(|v| Arc::clone(v).downcast().ok())
    }

    pub fn get_or_default<T: Default + Send + Sync + 'static>(&mut self) -> Arc<T> {
        let value = self.0.entry(TypeId::of::<T>()).or_insert_with(|| Arc::new(T::default()));
        Arc::clone(value).downcast().unwrap_or_else(|_| unreachable!("keyed by its own TypeId"))
    }
}

/// A session's values, created on first use (see [`SessionState`](crate::SessionState)).
#[derive(Default)]
pub(crate) struct SessionValues(Mutex<TypeMap>);

impl SessionValues {
    pub fn get_or_default<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get_or_default()
    }
}
