//! Values keyed by their type: the server's [`State`](crate::State) and each session's
//! [`SessionState`](crate::SessionState).

use crate::sync::lock;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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
pub(crate) struct SessionValues(Mutex<Values>);

#[derive(Default)]
struct Values {
    map: TypeMap,
    /// Values a session store kept, as JSON by type name, not asked for here yet.
    stored: HashMap<String, String>,
    /// How to encode each value a store keeps, by type.
    encoders: Vec<(TypeId, &'static str, Encoder)>,
}

/// Encodes one value as JSON (`None`: it does not serialize).
type Encoder = Box<dyn Fn() -> Option<String> + Send + Sync>;

impl SessionValues {
    fn lock(&self) -> std::sync::MutexGuard<'_, Values> {
        lock(&self.0)
    }

    /// A value kept in this process only ([`LocalSessionState`](crate::LocalSessionState)).
    pub fn get_or_default<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        self.lock().map.get_or_default()
    }

    /// A value a session store keeps ([`SessionState`](crate::SessionState)): decoded from
    /// what the store holds the first time it is asked for, else `T::default()`.
    pub fn get_or_decode<T>(&self) -> Arc<T>
    where
        T: Serialize + DeserializeOwned + Default + Send + Sync + 'static,
    {
        let mut values = self.lock();
        if let Some(value) = values.map.get::<T>() {
            return value;
        }
        let name = std::any::type_name::<T>();
        let value = match values.stored.remove(name).map(|json| serde_json::from_str::<T>(&json)) {
            Some(Ok(value)) => value,
            Some(Err(err)) => {
                tracing::warn!("the stored `SessionState<{name}>` does not decode ({err}); starting from its default");
                T::default()
            }
            None => T::default(),
        };
        let value = Arc::new(value);
        values.map.0.insert(TypeId::of::<T>(), Arc::clone(&value) as Arc<dyn Any + Send + Sync>);
        let encoded = Arc::clone(&value);
        values.encoders.push((TypeId::of::<T>(), name, Box::new(move || serde_json::to_string(&*encoded).ok())));
        value
    }

    /// Every value a store keeps, encoded, by type name (none when the session has none).
    #[cfg(feature = "http")] // the HTTP transport's shared store
    pub fn encode(&self) -> Vec<(&'static str, String)> {
        let values = self.lock();
        values.encoders.iter().filter_map(|(_, name, encode)| Some((*name, encode()?))).collect()
    }

    /// Replaces the stored values with a store's (another replica changed them): values
    /// decoded here before are decoded again on their next use.
    #[cfg(feature = "http")] // the HTTP transport's shared store
    pub fn reload(&self, stored: HashMap<String, String>) {
        let mut values = self.lock();
        let encoded: Vec<TypeId> = values.encoders.drain(..).map(|(id, _, _)| id).collect();
        for id in encoded {
            values.map.0.remove(&id);
        }
        values.stored = stored;
    }
}
