//! Pages served beside the MCP endpoint on the same port (feature `oauth-proxy`): the seam
//! through which the authorization-server façade answers its own paths. The transport knows
//! only this trait; the façade implements it.

use futures_util::future::BoxFuture;
use hyper::body::Bytes;
use hyper::{Request, Response};
use std::sync::Arc;

/// The largest body a route reads: forms and registrations are small.
pub(super) const MAX_BODY: usize = 64 * 1024;

/// Paths served on the endpoint's port besides the endpoint itself.
pub(crate) trait Routes: Send + Sync + 'static {
    /// Whether `path` is one of them.
    fn serves(&self, path: &str) -> bool;
    /// The answer to a request for one of them, its body read whole.
    fn answer(&self, request: Request<Bytes>) -> BoxFuture<'_, Response<Bytes>>;
}

/// [`Routes`] held by the configuration (cloned with it, and printable).
#[derive(Clone)]
pub(crate) struct SharedRoutes(pub Arc<dyn Routes>);

impl std::fmt::Debug for SharedRoutes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Routes")
    }
}
