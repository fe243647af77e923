//! What the HTTP transport asks of a sign-in flow ([`Authorization`]): the token to send, and
//! what to do when the server refuses it. The OAuth flow (`oauth/`, feature `oauth`) is the one
//! implementation; the transport knows only this seam.

use super::error::ClientError;
use futures_util::future::BoxFuture;
use reqwest::Url;
use reqwest::header::HeaderMap;

/// What goes with a request: `Authorization: <scheme> <token>`, and a `DPoP` proof for a token
/// bound to the client's key.
pub(crate) struct Credentials {
    pub scheme: &'static str,
    pub token: String,
    pub proof: Option<String>,
}

pub(crate) trait Authorization: Send + Sync {
    /// The credentials for a `method` request to `url`, if the client has a token.
    fn credentials<'a>(
        &'a self,
        method: &'a str,
        url: &'a Url,
    ) -> BoxFuture<'a, Result<Option<Credentials>, ClientError>>;

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
