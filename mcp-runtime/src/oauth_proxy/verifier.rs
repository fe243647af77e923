//! The tokens the MCP endpoint accepts: signed by the façade's key, for the MCP resource, of
//! a grant that still stands (revocation and a replayed refresh token end it at once).

use super::facade::{Facade, Grant, key};
use crate::auth::{AuthError, AuthInfo, TokenVerifier};
use serde_json::Value;
use std::sync::Arc;

/// The MCP endpoint's verifier when the façade issues its tokens.
pub(super) struct GrantVerifier(pub Arc<Facade>);

impl TokenVerifier for GrantVerifier {
    async fn verify(&self, token: &str, resource: &str) -> Result<AuthInfo, AuthError> {
        let facade = &self.0;
        let caller = facade.jwt.verify(token, resource).await?;
        let Some(grant_id) = caller.claim("grant").and_then(Value::as_str) else {
            return Err(AuthError::invalid_token("not a token of this server's sign-in"));
        };
        let grant = match facade.get::<Grant>(&key::grant(grant_id)).await {
            Ok(Some(grant)) => grant,
            Ok(None) => return Err(AuthError::invalid_token("the token was revoked")),
            Err(_) => return Err(AuthError::unavailable("the token could not be checked")),
        };
        if caller.client_id() != Some(grant.client_id.as_str()) {
            return Err(AuthError::invalid_token("the token does not match its grant"));
        }
        Ok(caller.with_upstream_token(grant.upstream_token))
    }
}
