//! What the HTTP transport asks of a sign-in flow ([`Authorization`]): the token to send, and
//! what to do when the server refuses it. The OAuth flow (`oauth/`, feature `oauth`) is the one
//! implementation; the transport knows only this seam.

use super::error::ClientError;
use futures_util::future::BoxFuture;
use reqwest::header::HeaderMap;

pub(crate) trait Authorization: Send + Sync {
    /// The bearer token to send now, if the client has one.
    fn token(&self) -> BoxFuture<'_, Option<String>>;

    /// Whether an answer of `status` with `headers` refuses the token in a way a new one can
    /// mend: 401, or 403 with `insufficient_scope`.
    fn refused(&self, status: u16, headers: &HeaderMap) -> bool;

    /// The server answered 401 (or 403 `insufficient_scope`) with `headers` to a request sent
    /// with `sent`: obtain a token that should do, or say why not.
    fn challenged<'a>(
        &'a self,
        headers: &'a HeaderMap,
        sent: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(), ClientError>>;

    /// How many times one request may be authorized anew before it fails.
    fn max_authorizations(&self) -> u32;
}
