//! `POST /oauth/token` (authorization codes, refresh tokens rotated with reuse detection) and
//! `POST /oauth/revoke` (RFC 7009).

use super::answer::{self, Answer};
use super::clients::{self, Client, Unknown};
use super::facade::{Facade, Grant, IssuedCode, RefreshRecord, key};
use super::{form, random};
use crate::auth::TokenVerifier as _;
use base64::Engine as _;
use hyper::header::AUTHORIZATION;
use hyper::{HeaderMap, StatusCode};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a used code or refresh token is remembered, to catch its replay.
const REPLAY_MEMORY: Duration = Duration::from_secs(24 * 3600);

type Params = HashMap<String, String>;

/// `POST /oauth/token`.
pub(super) async fn token(facade: &Facade, headers: &HeaderMap, body: &[u8]) -> Answer {
    let (params, client) = match client_request(facade, headers, body).await {
        Ok(request) => request,
        Err(refusal) => return refusal,
    };
    if let Some(resource) = params.get("resource")
        && *resource != facade.resource
    {
        let why = format!("this server issues tokens only for {}", facade.resource);
        return answer::oauth_error(StatusCode::BAD_REQUEST, "invalid_target", &why);
    }
    let outcome = match params.get("grant_type").map(String::as_str) {
        Some("authorization_code") => redeem_code(facade, &client, &params).await,
        Some("refresh_token") => rotate_refresh(facade, &client, &params).await,
        _ => Err(Refusal::Request("unsupported_grant_type", "only authorization_code and refresh_token")),
    };
    match outcome {
        Ok((grant_id, grant)) => match mint(facade, &grant_id, &grant).await {
            Ok(tokens) => answer::json(StatusCode::OK, &tokens),
            Err(_) => answer::unavailable("the tokens could not be issued"),
        },
        Err(Refusal::Request(error, why)) => answer::oauth_error(StatusCode::BAD_REQUEST, error, why),
        Err(Refusal::Grant(why)) => answer::oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", why),
        Err(Refusal::Unavailable) => answer::unavailable("the authorization store cannot be reached"),
    }
}

enum Refusal {
    Request(&'static str, &'static str),
    Grant(&'static str),
    Unavailable,
}

impl From<crate::Error> for Refusal {
    fn from(_: crate::Error) -> Self {
        Self::Unavailable
    }
}

/// A code for the grant it was issued with: once, by the client it was issued to, with its
/// redirect URI and the PKCE verifier of its challenge.
async fn redeem_code(facade: &Facade, client: &Client, params: &Params) -> Result<(String, Grant), Refusal> {
    let Some(code) = params.get("code") else { return Err(Refusal::Request("invalid_request", "no code")) };
    let digest = random::digest(code);
    let Some(issued) = facade.take::<IssuedCode>(&key::code(&digest)).await? else {
        // A code used twice was stolen, or its first use was: what it gave is revoked (OAuth 2.1 §4.1.3).
        if let Some(grant_id) = facade.take::<String>(&key::used_code(&digest)).await? {
            tracing::warn!(client = %client.client_id, "an authorization code was used twice: its grant is revoked");
            facade.store.delete(&key::grant(&grant_id)).await?;
        }
        return Err(Refusal::Grant("the code is unknown, expired or already used"));
    };
    facade.put(&key::used_code(&digest), &issued.grant_id, REPLAY_MEMORY).await?;
    let request = issued.request;
    if request.client_id != client.client_id {
        facade.store.delete(&key::grant(&issued.grant_id)).await?;
        return Err(Refusal::Grant("the code was issued to another client"));
    }
    if params.get("redirect_uri") != Some(&request.redirect_uri) {
        return Err(Refusal::Grant("the redirect_uri differs from the authorization request's"));
    }
    let Some(verifier) = params.get("code_verifier").filter(|v| (43..=128).contains(&v.len())) else {
        return Err(Refusal::Grant("PKCE: a code_verifier of 43 to 128 characters is required"));
    };
    if !random::same(&random::s256(verifier), &request.code_challenge) {
        return Err(Refusal::Grant("PKCE: the code_verifier does not match the code_challenge"));
    }
    let Some(grant) = facade.get::<Grant>(&key::grant(&issued.grant_id)).await? else {
        return Err(Refusal::Grant("the grant was revoked"));
    };
    Ok((issued.grant_id, grant))
}

/// A refresh token for a new pair. Each is used once: a second use means it was copied, and
/// revokes the whole grant (every token of the family).
async fn rotate_refresh(facade: &Facade, client: &Client, params: &Params) -> Result<(String, Grant), Refusal> {
    let Some(token) = params.get("refresh_token") else {
        return Err(Refusal::Request("invalid_request", "no refresh_token"));
    };
    let digest = random::digest(token);
    let Some(record) = facade.take::<RefreshRecord>(&key::refresh(&digest)).await? else {
        if let Some(used) = facade.get::<RefreshRecord>(&key::used_refresh(&digest)).await? {
            tracing::warn!(client = %used.client_id, "a rotated refresh token was used again: its grant is revoked");
            facade.store.delete(&key::grant(&used.grant_id)).await?;
        }
        return Err(Refusal::Grant("the refresh token is unknown, expired, revoked or already used"));
    };
    facade.put(&key::used_refresh(&digest), &record, facade.refresh_lifetime).await?;
    if record.client_id != client.client_id {
        facade.store.delete(&key::grant(&record.grant_id)).await?;
        return Err(Refusal::Grant("the refresh token was issued to another client"));
    }
    let Some(grant) = facade.get::<Grant>(&key::grant(&record.grant_id)).await? else {
        return Err(Refusal::Grant("the grant was revoked"));
    };
    Ok((record.grant_id, grant))
}

/// A new access token (a JWT for the MCP resource) and refresh token for `grant`.
async fn mint(facade: &Facade, grant_id: &str, grant: &Grant) -> crate::Result<Value> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    let lifetime = facade.access_lifetime.as_secs();
    let identity = &grant.identity;
    let mut claims = json!({
        "iss": facade.issuer,
        "sub": identity.subject,
        "aud": facade.resource,
        "iat": now,
        "nbf": now,
        "exp": now + lifetime,
        "jti": random::token(),
        "client_id": grant.client_id,
        "scope": grant.scope.join(" "),
        "grant": grant_id,
        "groups": identity.groups,
    });
    for (name, value) in [("preferred_username", &identity.login), ("email", &identity.email), ("name", &identity.name)]
    {
        if let Some(value) = value {
            claims[name] = value.clone().into();
        }
    }
    let access_token = facade.key.sign(&claims)?;
    let refresh_token = random::token();
    let record = RefreshRecord { grant_id: grant_id.to_owned(), client_id: grant.client_id.clone() };
    facade.put(&key::refresh(&random::digest(&refresh_token)), &record, facade.refresh_lifetime).await?;
    let mut tokens = json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": lifetime,
        "refresh_token": refresh_token,
    });
    if !grant.scope.is_empty() {
        tokens["scope"] = grant.scope.join(" ").into();
    }
    Ok(tokens)
}

/// `POST /oauth/revoke`: a refresh or access token, and with it its whole grant. Always `200`
/// for a known client (RFC 7009 §2.2: an unknown token is no error).
pub(super) async fn revoke(facade: &Facade, headers: &HeaderMap, body: &[u8]) -> Answer {
    let (params, client) = match client_request(facade, headers, body).await {
        Ok(request) => request,
        Err(refusal) => return refusal,
    };
    let Some(token) = params.get("token") else {
        return answer::oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "no token");
    };
    let grant_id = match facade.get::<RefreshRecord>(&key::refresh(&random::digest(token))).await {
        Ok(Some(record)) => (record.client_id == client.client_id).then_some(record.grant_id),
        Ok(None) => match facade.jwt.verify(token, &facade.resource).await {
            Ok(caller) if caller.client_id() == Some(client.client_id.as_str()) => {
                caller.claim("grant").and_then(Value::as_str).map(str::to_owned)
            }
            _ => None,
        },
        Err(_) => return answer::unavailable("the authorization store cannot be reached"),
    };
    if let Some(grant_id) = grant_id {
        if facade.store.delete(&key::grant(&grant_id)).await.is_err() {
            return answer::unavailable("the authorization store cannot be reached");
        }
        let _ = facade.store.delete(&key::refresh(&random::digest(token))).await;
    }
    answer::json(StatusCode::OK, &json!({}))
}

/// The client a token or revocation request comes from: its secret checked (HTTP Basic or the
/// form), or a public client by its `client_id`.
/// A client's form post to the token or revocation endpoint: its parameters, and the client they
/// authenticate.
async fn client_request(facade: &Facade, headers: &HeaderMap, body: &[u8]) -> Result<(Params, Client), Answer> {
    let params =
        form::parse(body).map_err(|why| answer::oauth_error(StatusCode::BAD_REQUEST, "invalid_request", &why))?;
    let client = authenticate(facade, headers, &params).await?;
    Ok((params, client))
}

async fn authenticate(facade: &Facade, headers: &HeaderMap, params: &Params) -> Result<Client, Answer> {
    let invalid = |why: &str| answer::oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", why);
    let (client_id, secret) = match basic_credentials(headers) {
        Some((id, secret)) => (id, Some(secret)),
        None => match params.get("client_id") {
            Some(id) => (id.clone(), params.get("client_secret").cloned()),
            None => return Err(invalid("no client_id")),
        },
    };
    let client = match clients::find(facade, &client_id).await {
        Ok(client) => client,
        Err(Unknown::Client(_)) => return Err(invalid("unknown client")),
        Err(Unknown::Unavailable) => return Err(answer::unavailable("the authorization store cannot be reached")),
    };
    match (&client.secret_digest, secret) {
        (None, _) => Ok(client),
        (Some(digest), Some(secret)) if random::same(digest, &random::digest(&secret)) => Ok(client),
        (Some(_), _) => Err(invalid("the client's secret is missing or wrong")),
    }
}

/// `Authorization: Basic` credentials, each part form-decoded (RFC 6749 §2.3.1).
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    let decoded = String::from_utf8(decoded).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    let part = |s: &str| form_urlencoded::parse(format!("x={s}").as_bytes()).next().map(|(_, v)| v.into_owned());
    Some((part(id)?, part(secret)?))
}
