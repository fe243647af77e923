//! [`ServerCore`]: what every connection of a built server shares.

use crate::custom::CustomMethods;
use crate::middleware::Middlewares;
use crate::registry::Catalog;
use crate::settings::Settings;
use crate::tasks::Tasks;
use std::sync::Arc;

/// The settings, the live catalog, the tasks and the vendor methods of a built server; the engine and the
/// transports hold it.
pub(crate) struct ServerCore {
    pub settings: Arc<Settings>,
    pub catalog: Arc<Catalog>,
    pub tasks: Tasks,
    /// Vendor methods (`Server::on_request`, `Server::on_notification`).
    pub custom: CustomMethods,
    /// The layers around every request (`Server::middleware`), outermost first.
    pub middleware: Middlewares,
}
