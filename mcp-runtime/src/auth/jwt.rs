//! [`JwtVerifier`]: JWT access tokens (RFC 9068) checked locally with `jsonwebtoken`: the
//! signature by a configured key or JWKS (given, or fetched by `jwks.rs`), the issuer, the
//! audience, `exp` and `nbf`; scopes from `scope` (space-separated) and `scp` (an array).

use super::caller::{AuthInfo, Principal};
use super::jwks::{KeyStore, Source, Timing};
use super::outbound;
use super::verifier::{AuthError, TokenVerifier};
use crate::error::{Error, Result};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use std::str::FromStr as _;
use std::sync::Arc;
use std::time::Duration;

/// The keys that sign the tokens a [`JwtVerifier`] accepts.
#[derive(Clone)]
pub struct JwtKey {
    keys: Vec<Key>,
}

#[derive(Clone)]
struct Key {
    id: Option<String>,
    key: DecodingKey,
    algorithms: Vec<Algorithm>,
}

impl std::fmt::Debug for JwtKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<_> = self.keys.iter().map(|k| (&k.id, &k.algorithms)).collect();
        f.debug_struct("JwtKey").field("keys", &ids).finish()
    }
}

fn key_error(what: &str, err: jsonwebtoken::errors::Error) -> Error {
    Error::new(crate::ErrorKind::Auth, format!("JwtKey: cannot read the {what}")).with_source(err)
}

impl JwtKey {
    /// A secret shared with the issuer (HS256, HS384, HS512). Use at least 32 random bytes.
    pub fn hmac_secret(secret: impl AsRef<[u8]>) -> Result<Self> {
        let key = DecodingKey::from_secret(secret.as_ref()).map_err(|e| key_error("secret", e))?;
        Ok(Self::single(key))
    }

    /// An RSA public key in PEM (RS256/384/512, PS256/384/512).
    pub fn rsa_pem(pem: impl AsRef<[u8]>) -> Result<Self> {
        DecodingKey::from_rsa_pem(pem.as_ref()).map(Self::single).map_err(|e| key_error("RSA public key", e))
    }

    /// An elliptic-curve public key in PEM (ES256 on P-256, ES384 on P-384).
    pub fn ec_pem(pem: impl AsRef<[u8]>) -> Result<Self> {
        DecodingKey::from_ec_pem(pem.as_ref()).map(Self::single).map_err(|e| key_error("EC public key", e))
    }

    /// An Ed25519 public key in PEM (EdDSA).
    pub fn ed_pem(pem: impl AsRef<[u8]>) -> Result<Self> {
        DecodingKey::from_ed_pem(pem.as_ref()).map(Self::single).map_err(|e| key_error("Ed25519 public key", e))
    }

    /// A JSON Web Key Set (`{"keys": [...]}`), as an authorization server publishes at its
    /// `jwks_uri`. A token's `kid` picks the key; each key's `alg`, when given, is the only
    /// algorithm it accepts. Keys of unsupported types are skipped.
    pub fn jwks(json: &str) -> Result<Self> {
        let set: JwkSet = serde_json::from_str(json)
            .map_err(|e| Error::new(crate::ErrorKind::Auth, "JwtKey: not a JSON Web Key Set").with_source(e))?;
        let mut keys = Vec::new();
        for jwk in &set.keys {
            let Ok(key) = DecodingKey::from_jwk(jwk) else {
                tracing::debug!(kid = ?jwk.common.key_id, "skipping a JWK of an unsupported type");
                continue;
            };
            let algorithms = match jwk.common.key_algorithm {
                Some(alg) => match Algorithm::from_str(&alg.to_string()) {
                    Ok(alg) if key.family() == alg.family() => vec![alg],
                    _ => continue,
                },
                None => key.family().algorithms().to_vec(),
            };
            keys.push(Key { id: jwk.common.key_id.clone(), key, algorithms });
        }
        if keys.is_empty() {
            return Err(Error::new(crate::ErrorKind::Auth, "JwtKey: the JSON Web Key Set has no usable key"));
        }
        Ok(Self { keys })
    }

    /// No key yet (a verifier whose keys are still to be fetched).
    pub(crate) fn empty() -> Self {
        Self { keys: Vec::new() }
    }

    /// How many keys.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether a key has the id `kid`.
    pub(crate) fn has_kid(&self, kid: &str) -> bool {
        self.keys.iter().any(|k| k.id.as_deref() == Some(kid))
    }

    fn single(key: DecodingKey) -> Self {
        let algorithms = key.family().algorithms().to_vec();
        Self { keys: vec![Key { id: None, key, algorithms }] }
    }

    /// The keys that may have signed a token with this header.
    fn candidates<'a>(&'a self, kid: Option<&'a str>, alg: Algorithm) -> impl Iterator<Item = &'a Key> + 'a {
        let by_id = kid.is_some() && self.keys.iter().any(|k| k.id.as_deref() == kid);
        self.keys.iter().filter(move |k| (!by_id || k.id.as_deref() == kid) && k.algorithms.contains(&alg))
    }
}

/// Verifies JWT access tokens locally: the signature (by a [`JwtKey`], or by the keys the
/// authorization server publishes), the issuer (when set), the audience (the server's canonical
/// URI, or [`audience`](Self::audience)), `exp` (required) and `nbf`. The caller is the user
/// `sub`, or, in a token without `sub` (OAuth client credentials), the client `client_id` (a
/// [`Principal::Client`], never equal to a user); scopes come from `scope` (a space-separated
/// string) and `scp` (an array or a string). [`access_tokens_only`](Self::access_tokens_only)
/// also requires the RFC 9068 `typ`.
///
/// Keys given once:
///
/// ```
/// use mcp_runtime::auth::{JwtKey, JwtVerifier};
///
/// # fn main() -> mcp_runtime::Result<()> {
/// let jwks = r#"{"keys":[{"kty":"oct","kid":"dev","alg":"HS256","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA"}]}"#;
/// let verifier = JwtVerifier::new(JwtKey::jwks(jwks)?).issuer("https://auth.example.com");
/// # let _ = verifier;
/// # Ok(())
/// # }
/// ```
///
/// Keys fetched from the authorization server, so that it can rotate them without a restart:
/// from its issuer's metadata ([`from_issuer`](Self::from_issuer)), or from a JWKS URL
/// ([`from_jwks_url`](Self::from_jwks_url)).
///
/// ```
/// use mcp_runtime::auth::JwtVerifier;
/// use std::time::Duration;
///
/// # fn main() -> mcp_runtime::Result<()> {
/// // Reads https://auth.example.com/.well-known/oauth-authorization-server (or
/// // openid-configuration) for its `jwks_uri`, and accepts only tokens whose `iss` is the issuer.
/// let verifier = JwtVerifier::from_issuer("https://auth.example.com")?;
/// // Or the JWKS itself, naming the issuer to trust.
/// let verifier = JwtVerifier::from_jwks_url("https://auth.example.com/.well-known/jwks.json")?
///     .issuer("https://auth.example.com")
///     .key_refetch_interval(Duration::from_secs(60));
/// # let _ = verifier;
/// # Ok(())
/// # }
/// ```
///
/// Fetched keys are kept as long as the response's `Cache-Control: max-age` says (taken within
/// [`key_cache_bounds`](Self::key_cache_bounds), 1 minute to 24 hours by default; 10 minutes when
/// it does not say), then fetched again in the background while the old ones still serve. A
/// token whose `kid` the set lacks makes the verifier fetch them again at once, at most once per
/// [`key_refetch_interval`](Self::key_refetch_interval) (30 s by default), requests arriving
/// meanwhile sharing that fetch. When a fetch fails (the server down, an error, a response over
/// 256 KiB or no usable key), the last good keys keep serving and the failure is logged with
/// `tracing`. The first keys are fetched when the first token arrives; call
/// [`refresh_keys`](Self::refresh_keys) at start-up to fetch them then, and fail early. URLs must
/// be `https` (plain `http` is accepted only to a loopback address, for development).
pub struct JwtVerifier {
    keys: Arc<KeyStore>,
    timing: Timing,
    issuers: Vec<String>,
    audiences: Vec<String>,
    leeway: Duration,
    access_tokens_only: bool,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuers", &self.issuers)
            .field("audiences", &self.audiences)
            .field("leeway", &self.leeway)
            .field("access_tokens_only", &self.access_tokens_only)
            .finish_non_exhaustive()
    }
}

impl JwtVerifier {
    /// Accepts tokens signed by `key`.
    pub fn new(key: JwtKey) -> Self {
        Self::with_store(KeyStore::fixed(key))
    }

    /// Accepts tokens signed by the keys of the JSON Web Key Set at `url`, fetched when the
    /// first token arrives and kept fresh (see the type's documentation). Name the issuer to
    /// trust with [`issuer`](Self::issuer).
    ///
    /// An error if `url` is not a URL, or not `https` (plain `http` only to a loopback address).
    pub fn from_jwks_url(url: impl AsRef<str>) -> Result<Self> {
        let url = outbound::checked_url("JwtVerifier::from_jwks_url", url.as_ref())?;
        Ok(Self::with_store(KeyStore::remote(Source::Jwks(url))))
    }

    /// Accepts tokens from `issuer` (their `iss`), signed by the keys at the `jwks_uri` of its
    /// metadata: RFC 8414's `/.well-known/oauth-authorization-server`, else OpenID Connect's
    /// `/.well-known/openid-configuration` (tried in the order the MCP specification gives
    /// clients). The metadata must name `issuer` exactly. It is read once, with the first keys.
    ///
    /// An error if `issuer` is not a URL, or not `https` (plain `http` only to a loopback address).
    pub fn from_issuer(issuer: impl Into<String>) -> Result<Self> {
        let issuer = issuer.into();
        outbound::checked_url("JwtVerifier::from_issuer", &issuer)?;
        Ok(Self::with_store(KeyStore::remote(Source::Issuer(issuer.clone()))).issuer(issuer))
    }

    fn with_store(keys: KeyStore) -> Self {
        Self {
            keys: Arc::new(keys),
            timing: Timing::default(),
            issuers: Vec::new(),
            audiences: Vec::new(),
            leeway: Duration::from_secs(30),
            access_tokens_only: false,
        }
    }

    /// Accepts only JWTs typed as access tokens: a header `typ` of `at+jwt` (or
    /// `application/at+jwt`), as RFC 9068 requires, so that another JWT signed by the same
    /// issuer (an OpenID Connect ID token, say) is refused. Off by default, because many
    /// authorization servers still issue access tokens typed `JWT` or untyped: turn it on when
    /// yours follows RFC 9068.
    pub fn access_tokens_only(mut self) -> Self {
        self.access_tokens_only = true;
        self
    }

    /// Accepts tokens from this issuer (`iss`); call again to accept several. Without one,
    /// any issuer is accepted: set it whenever the key is not the issuer's alone.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        if !self.issuers.contains(&issuer) {
            self.issuers.push(issuer);
        }
        self
    }

    /// Accepts tokens for this audience instead of the server's canonical URI (call again
    /// for several), for authorization servers that name resources otherwise.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// How much clock skew `exp` and `nbf` tolerate (default 30 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Fetched keys: the least and the most time a response's `Cache-Control: max-age` is taken
    /// for (default 1 minute and 24 hours; `no-cache` and `no-store` count as 0, so the least).
    pub fn key_cache_bounds(mut self, min: Duration, max: Duration) -> Self {
        self.timing.min_ttl = min;
        self.timing.max_ttl = max.max(min);
        self
    }

    /// Fetched keys: how long they are kept when the response has no `max-age` (default 10
    /// minutes).
    pub fn key_cache_default(mut self, ttl: Duration) -> Self {
        self.timing.default_ttl = ttl;
        self
    }

    /// Fetched keys: at most one fetch per `interval` (default 30 s) when a token names an
    /// unknown key id, when the keys are stale, or after a failed fetch.
    pub fn key_refetch_interval(mut self, interval: Duration) -> Self {
        self.timing.refetch_interval = interval;
        self
    }

    /// Fetched keys: how long one request to the authorization server may take (default 10 s).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.timing.timeout = timeout;
        self
    }

    /// Replaces the keys, e.g. with a JWKS you fetched yourself after the issuer rotated them.
    /// On a verifier that fetches its keys, they serve until its next fetch.
    pub fn set_key(&self, key: JwtKey) {
        self.keys.set(key);
    }

    /// Fetches the keys now, whatever the interval, for a verifier that fetches its keys (a
    /// verifier given its keys has nothing to do): call it at start-up to fail early when the
    /// authorization server cannot be reached or answers nonsense. On failure the keys it had
    /// (if any) stay.
    pub async fn refresh_keys(&self) -> Result<()> {
        self.keys.refresh_now(self.timing).await
    }

    #[cfg(test)]
    fn check(&self, token: &str, resource: &str) -> std::result::Result<AuthInfo, AuthError> {
        let header = self.header(token)?;
        self.check_with(&self.keys.current(), &header, token, resource)
    }

    fn header(&self, token: &str) -> std::result::Result<jsonwebtoken::Header, AuthError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| AuthError::invalid_token("malformed token"))?;
        if self.access_tokens_only && !header.typ.as_deref().is_some_and(is_access_token_type) {
            return Err(AuthError::invalid_token("not an access token (typ at+jwt)"));
        }
        Ok(header)
    }

    fn check_with(
        &self,
        keys: &JwtKey,
        header: &jsonwebtoken::Header,
        token: &str,
        resource: &str,
    ) -> std::result::Result<AuthInfo, AuthError> {
        if keys.keys.is_empty() {
            return Err(AuthError::unavailable("the authorization server's keys are not available"));
        }
        let mut last = None;
        for key in keys.candidates(header.kid.as_deref(), header.alg) {
            let mut validation = Validation::new(header.alg);
            validation.algorithms = key.algorithms.clone();
            validation.leeway = self.leeway.as_secs();
            validation.validate_nbf = true;
            if self.audiences.is_empty() {
                validation.set_audience(&[resource]);
            } else {
                validation.set_audience(&self.audiences);
            }
            let mut required = vec!["exp", "aud"];
            if !self.issuers.is_empty() {
                validation.set_issuer(&self.issuers);
                required.push("iss");
            }
            validation.set_required_spec_claims(&required);
            match jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation) {
                Ok(data) => return identity(token, data.claims),
                Err(err) => {
                    let refusal = refusal(err.kind());
                    // A bad signature may mean another key of the set: try it. Anything else
                    // about the claims is final.
                    if !matches!(err.kind(), ErrorKind::InvalidSignature) {
                        return Err(refusal);
                    }
                    last = Some(refusal);
                }
            }
        }
        Err(last.unwrap_or_else(|| AuthError::invalid_token("no key for this token's algorithm or key id")))
    }
}

impl TokenVerifier for JwtVerifier {
    async fn verify(&self, token: &str, resource: &str) -> std::result::Result<AuthInfo, AuthError> {
        let header = self.header(token)?;
        let keys = self.keys.keys_for(header.kid.as_deref(), self.timing).await;
        self.check_with(&keys, &header, token, resource)
    }
}

/// Whether a JWT header's `typ` names an RFC 9068 access token. Media types are
/// case-insensitive, and RFC 7515 lets the `application/` prefix be left out.
fn is_access_token_type(typ: &str) -> bool {
    let typ = typ.get(..12).filter(|prefix| prefix.eq_ignore_ascii_case("application/")).map_or(typ, |_| &typ[12..]);
    typ.eq_ignore_ascii_case("at+jwt")
}

/// The identity in verified claims (a JWT's payload, an introspection response).
pub(super) fn identity(token: &str, claims: Map<String, Value>) -> std::result::Result<AuthInfo, AuthError> {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let principal = match (text("sub"), text("client_id")) {
        (Some(user), _) => Principal::User(user),
        (None, Some(client)) => Principal::Client(client),
        (None, None) => return Err(AuthError::invalid_token("the token names no subject")),
    };
    let mut scopes: Vec<String> = Vec::new();
    let mut add = |scope: &str| {
        if !scope.is_empty() && !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    };
    for name in ["scope", "scp"] {
        match claims.get(name) {
            Some(Value::String(list)) => list.split_ascii_whitespace().for_each(&mut add),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).for_each(&mut add),
            _ => {}
        }
    }
    Ok(AuthInfo::of(principal, token).with_scopes(scopes).with_claims(claims))
}

/// A short reason for the client (`error_description`).
fn refusal(kind: &ErrorKind) -> AuthError {
    let message = match kind {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet".to_owned(),
        ErrorKind::InvalidAudience => "the token was not issued for this server".to_owned(),
        ErrorKind::InvalidIssuer => "the token's issuer is not trusted".to_owned(),
        ErrorKind::InvalidSignature => "invalid token signature".to_owned(),
        ErrorKind::InvalidAlgorithm | ErrorKind::UnsupportedAlgorithm => "unexpected signing algorithm".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        _ => "malformed token".to_owned(),
    };
    AuthError::invalid_token(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header, encode};
    use serde_json::json;

    const SECRET: &[u8] = b"a-test-secret-of-at-least-32-bytes!!";
    const RESOURCE: &str = "https://mcp.example.com/mcp";

    fn now() -> u64 {
        jsonwebtoken::get_current_timestamp()
    }

    fn sign(claims: Value) -> String {
        encode(&Header::new(Algorithm::HS256), &claims, &EncodingKey::from_secret(SECRET).unwrap()).unwrap()
    }

    fn verifier() -> JwtVerifier {
        JwtVerifier::new(JwtKey::hmac_secret(SECRET).unwrap()).issuer("https://auth.example.com")
    }

    fn claims() -> Value {
        json!({"iss": "https://auth.example.com", "aud": RESOURCE, "sub": "alice", "exp": now() + 600,
               "scope": "notes:read notes:write", "scp": ["admin", "notes:read"]})
    }

    #[test]
    fn a_valid_token_gives_its_subject_and_scopes() {
        let info = verifier().check(&sign(claims()), RESOURCE).unwrap();
        assert_eq!(info.subject(), "alice");
        assert_eq!(info.scopes(), ["notes:read", "notes:write", "admin"]);
        assert!(info.has_scope("admin"));
        assert!(!format!("{info:?}").contains(info.token()));
    }

    #[test]
    fn refusals_say_why() {
        let refused = |mut patch: Value| {
            let mut claims = claims();
            claims.as_object_mut().unwrap().append(patch.as_object_mut().unwrap());
            verifier().check(&sign(claims), RESOURCE).unwrap_err().message().to_owned()
        };
        assert_eq!(refused(json!({"exp": now() - 600})), "the token has expired");
        assert_eq!(refused(json!({"nbf": now() + 600})), "the token is not valid yet");
        assert_eq!(refused(json!({"aud": "https://other.example.com"})), "the token was not issued for this server");
        assert_eq!(refused(json!({"iss": "https://evil.example.com"})), "the token's issuer is not trusted");
        // A string where a number belongs does not count as an absent claim.
        assert!(
            refused(json!({"exp": "later"})).contains("malformed") || refused(json!({"exp": "later"})).contains("exp")
        );
        let other =
            encode(&Header::new(Algorithm::HS256), &claims(), &EncodingKey::from_secret(b"another secret").unwrap())
                .unwrap();
        assert_eq!(verifier().check(&other, RESOURCE).unwrap_err().message(), "invalid token signature");
        assert_eq!(verifier().check("not.a.jwt", RESOURCE).unwrap_err().message(), "malformed token");
    }

    #[test]
    fn a_token_without_sub_is_its_client_never_a_user() {
        let mut claims = claims();
        let claims_map = claims.as_object_mut().unwrap();
        claims_map.remove("sub");
        claims_map.insert("client_id".into(), "alice".into());
        let machine = verifier().check(&sign(claims.clone()), RESOURCE).unwrap();
        assert_eq!(machine.principal(), &Principal::Client("alice".into()));
        assert_ne!(machine.principal(), &Principal::User("alice".into()));
        claims["sub"] = "alice".into();
        let user = verifier().check(&sign(claims), RESOURCE).unwrap();
        assert_eq!(user.principal(), &Principal::User("alice".into()));
    }

    #[test]
    fn access_tokens_only_checks_typ() {
        let typed = |typ: Option<&str>| {
            let mut header = Header::new(Algorithm::HS256);
            header.typ = typ.map(str::to_owned);
            encode(&header, &claims(), &EncodingKey::from_secret(SECRET).unwrap()).unwrap()
        };
        let strict = verifier().access_tokens_only();
        for typ in ["at+jwt", "application/at+jwt", "AT+JWT", "Application/At+Jwt"] {
            assert!(strict.check(&typed(Some(typ)), RESOURCE).is_ok(), "{typ}");
        }
        for typ in [Some("JWT"), None, Some("application/jwt"), Some("at+jwt+x"), Some("application/"), Some("é")] {
            let refused = strict.check(&typed(typ), RESOURCE).unwrap_err();
            assert_eq!(refused.message(), "not an access token (typ at+jwt)", "{typ:?}");
        }
        // Off by default: a token typed `JWT` (or untyped) is accepted.
        assert!(verifier().check(&typed(Some("JWT")), RESOURCE).is_ok());
        assert!(verifier().check(&typed(None), RESOURCE).is_ok());
    }

    #[test]
    fn jwks_keys_are_picked_by_kid() {
        use base64::Engine as _;
        let k = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(SECRET);
        let jwks = json!({"keys": [
            {"kty": "oct", "kid": "old", "alg": "HS256", "k": "b2xkLXNlY3JldC1vbGQtc2VjcmV0LW9sZC1zZWNyZXQ"},
            {"kty": "oct", "kid": "new", "alg": "HS256", "k": k},
        ]});
        let verifier = JwtVerifier::new(JwtKey::jwks(&jwks.to_string()).unwrap());
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("new".into());
        let token = encode(&header, &claims(), &EncodingKey::from_secret(SECRET).unwrap()).unwrap();
        assert_eq!(verifier.check(&token, RESOURCE).unwrap().subject(), "alice");
        header.kid = Some("old".into());
        let token = encode(&header, &claims(), &EncodingKey::from_secret(SECRET).unwrap()).unwrap();
        assert!(verifier.check(&token, RESOURCE).is_err());
        // An RS256 header cannot make an HMAC key verify (algorithm confusion).
        let header = Header::new(Algorithm::RS256);
        let forged = format!(
            "{}.{}.sig",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(serde_json::to_vec(&header).unwrap()),
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims().to_string())
        );
        assert!(verifier.check(&forged, RESOURCE).is_err());
    }
}
