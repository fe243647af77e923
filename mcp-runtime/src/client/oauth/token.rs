//! The token endpoint: one request for every grant (authorization code, refresh, client
//! credentials, JWT bearer), authenticated as the registration says, and the [`Tokens`] it gives.

use super::super::error::ClientError;
use super::clock::now;
use super::discovery::ServerMetadata;
use super::dpop::Dpop;
use super::fetch::{Fetch, auth_error, printable};
use super::registration::{ClientSecret, Registration, authenticate};
use serde::{Deserialize, Serialize};

/// How long before its expiry a token is refreshed rather than sent.
const EXPIRY_MARGIN: u64 = 30;

/// An access token, and what came with it. Its `Debug` shows no token.
#[derive(Clone, Deserialize, Serialize, PartialEq, Eq)]
pub struct Tokens {
    /// The access token, sent as `Authorization: Bearer`.
    pub access_token: String,
    /// The refresh token, when the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (space-separated), as the authorization server said or as asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Whether the token is bound to the client's DPoP key (presented as `DPoP`, not `Bearer`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop_bound: bool,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &"<redacted>")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "<redacted>"))
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("dpop_bound", &self.dpop_bound)
            .finish()
    }
}

impl Tokens {
    /// Whether the access token has expired, or is about to.
    pub fn expired(&self) -> bool {
        self.expires_at.is_some_and(|at| now() + EXPIRY_MARGIN >= at)
    }
}

/// Why the token endpoint refused a request.
pub(crate) struct Refused {
    /// The OAuth error code (`invalid_grant`...), when it gave one.
    pub code: Option<String>,
    pub error: ClientError,
}

/// Asks the token endpoint of `server` for tokens with `grant` (the grant's own form fields),
/// authenticated as `registration`; with a DPoP proof when `dpop` is given (sent again once with
/// the server's nonce when it asks for one).
pub(crate) async fn request(
    fetch: &Fetch,
    server: &ServerMetadata,
    registration: &Registration,
    secret: Option<&ClientSecret>,
    grant: Vec<(&'static str, String)>,
    asked_scope: Option<&str>,
    dpop: Option<&Dpop>,
) -> Result<Tokens, Refused> {
    let refused = |error| Refused { code: None, error };
    let endpoint = server.endpoint("token").map_err(refused)?;
    let mut answer = None;
    for _ in 0..2 {
        // A client assertion (and a proof) may be used once: each attempt signs anew.
        let (mut form, mut headers) = authenticate(registration, secret, &server.issuer).map_err(refused)?;
        form.extend(grant.iter().cloned());
        if let Some(dpop) = dpop {
            headers.push(("dpop", dpop.proof("POST", &endpoint, None).map_err(refused)?));
        }
        let form: Vec<(&str, &str)> = form.iter().map(|(name, value)| (*name, value.as_str())).collect();
        let sent = fetch.post_form(&endpoint, &form, &headers).await.map_err(refused)?;
        let wants_nonce = sent.error_code() == Some("use_dpop_nonce");
        let retry = wants_nonce && dpop.is_some_and(|dpop| dpop.remember_nonce(&endpoint, &sent.headers));
        answer = Some(sent);
        if !retry {
            break;
        }
    }
    let answer = answer.expect("one attempt at least");
    if !answer.status.is_success() {
        let error = auth_error(format!("the token endpoint refused: {}", answer.oauth_error()));
        return Err(Refused { code: answer.error_code().map(str::to_owned), error });
    }
    #[derive(Deserialize)]
    struct Issued {
        access_token: String,
        token_type: String,
        refresh_token: Option<String>,
        expires_in: Option<u64>,
        scope: Option<String>,
    }
    let issued: Issued = answer.parse("the token response").map_err(refused)?;
    let dpop_bound = dpop.is_some() && issued.token_type.eq_ignore_ascii_case("dpop");
    if !dpop_bound && !issued.token_type.eq_ignore_ascii_case("bearer") {
        let why = format!(
            "the token endpoint issued a {:?} token, which this client cannot present",
            printable(&issued.token_type)
        );
        return Err(refused(auth_error(why)));
    }
    Ok(Tokens {
        access_token: issued.access_token,
        refresh_token: issued.refresh_token,
        expires_at: issued.expires_in.map(|seconds| now() + seconds),
        scope: issued.scope.or_else(|| asked_scope.map(str::to_owned)),
        dpop_bound,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_no_token() {
        let tokens = Tokens {
            access_token: "secret-access".into(),
            refresh_token: Some("secret-refresh".into()),
            expires_at: Some(1),
            scope: None,
            dpop_bound: false,
        };
        let shown = format!("{tokens:?}");
        assert!(!shown.contains("secret"), "{shown}");
        assert!(tokens.expired());
        assert!(!Tokens { expires_at: None, ..tokens.clone() }.expired());
        assert!(!Tokens { expires_at: Some(now() + 3600), ..tokens }.expired());
    }
}
