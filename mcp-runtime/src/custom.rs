//! Vendor methods: request and notification handlers registered by name
//! ([`Server::on_request`](crate::Server::on_request),
//! [`Server::on_notification`](crate::Server::on_notification)) for what the protocol does not
//! define, served in both eras. A method the runtime answers itself cannot be taken over.

use crate::context::Context;
use crate::jsonrpc::{ErrorObject, code};
use crate::message::Request;
use crate::protocol::Method;
use crate::router::reply::to_raw;
use crate::router::task::{Handler, PanicAnswer, Task};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// A vendor request's handler: its params (`null` when absent) and context, to its result.
pub(crate) type RequestHandler =
    Arc<dyn Fn(Value, Context) -> BoxFuture<'static, Result<Value, ErrorObject>> + Send + Sync>;

/// A vendor notification's handler: its params (`null` when absent).
pub(crate) type NotificationHandler = Arc<dyn Fn(Value) -> BoxFuture<'static, ()> + Send + Sync>;

/// The notifications the runtime handles itself.
const RUNTIME_NOTIFICATIONS: [&str; 4] =
    ["notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed", "exit"];

/// The vendor methods of a server, by name.
#[derive(Default)]
pub(crate) struct CustomMethods {
    requests: HashMap<String, RequestHandler>,
    notifications: HashMap<String, NotificationHandler>,
    /// Methods whose 2026-07-28 results carry caching hints (`ttlMs`, `cacheScope`), as the
    /// lists and reads of the method table do: an extension's lists (`skills/list`).
    cacheable: Vec<String>,
}

impl CustomMethods {
    pub fn add_request(&mut self, method: String, handler: RequestHandler) {
        self.requests.insert(method, handler);
    }

    /// Marks `method`'s results as cacheable.
    #[cfg(feature = "skills")]
    pub fn set_cacheable(&mut self, method: &str) {
        self.cacheable.push(method.to_owned());
    }

    /// Whether `method`'s 2026-07-28 results carry caching hints.
    pub fn is_cacheable(&self, method: &str) -> bool {
        self.cacheable.iter().any(|m| m == method)
    }

    pub fn add_notification(&mut self, method: String, handler: NotificationHandler) {
        self.notifications.insert(method, handler);
    }

    /// Refuses a name that is empty or that the runtime answers itself.
    pub fn check(&self) -> crate::Result<()> {
        let refuse = |message: String| Err(crate::Error::new(crate::ErrorKind::Config, message));
        for method in self.requests.keys() {
            if method.is_empty() || Method::parse(method).is_some() {
                return refuse(format!("`on_request(\"{method}\", ..)`: the runtime answers `{method}` itself"));
            }
        }
        for method in self.notifications.keys() {
            if method.is_empty() || RUNTIME_NOTIFICATIONS.contains(&method.as_str()) {
                return refuse(format!("`on_notification(\"{method}\", ..)`: the runtime handles `{method}` itself"));
            }
        }
        Ok(())
    }

    /// Whether no vendor request is registered (most servers): a request the table does not
    /// name is then -32601 without a lookup.
    pub fn has_requests(&self) -> bool {
        !self.requests.is_empty()
    }

    /// The handler of the vendor request `request`, as a task for the engine to run; `None`
    /// for a method nobody registered.
    pub fn task<'a>(&self, request: &Request<'a>) -> Option<Task<'a>> {
        let handler = Arc::clone(self.requests.get(request.name.as_ref())?);
        let params = request.params.map(|raw| serde_json::from_str(raw.get()).unwrap_or(Value::Null));
        let params = params.unwrap_or(Value::Null);
        let run = Handler::waiting(move |ctx| {
            let answer = handler(params, ctx);
            async move {
                match answer.await? {
                    result @ Value::Object(_) => to_raw(&result),
                    _ => Err(ErrorObject::new(
                        code::INTERNAL_ERROR,
                        "Internal error: the handler's result is not a JSON object",
                    )),
                }
            }
        });
        let meta = request.meta_object().ok().flatten();
        Some(Task { meta, run, on_panic: PanicAnswer::InternalError, http: Default::default() })
    }

    /// Runs the handler of the vendor notification `method`, if any, on a task of its own.
    /// Whether one was registered.
    pub fn notify(&self, method: &str, params: Option<&serde_json::value::RawValue>) -> bool {
        let Some(handler) = self.notifications.get(method) else { return false };
        let params = params.map_or(Value::Null, |raw| serde_json::from_str(raw.get()).unwrap_or(Value::Null));
        tokio::spawn(handler(params));
        true
    }
}
