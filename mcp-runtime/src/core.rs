//! [`ServerCore`]: what every connection of a built server shares.

use crate::registry::Catalog;
use crate::settings::Settings;
use crate::tasks::Tasks;
use std::sync::Arc;

/// The settings, the live catalog and the tasks of a built server; the engine and the
/// transports hold it.
pub(crate) struct ServerCore {
    pub settings: Arc<Settings>,
    pub catalog: Arc<Catalog>,
    pub tasks: Tasks,
}
