//! The clients the façade knows: registered by Dynamic Client Registration (RFC 7591), or
//! described by a Client ID Metadata Document at their id.

use super::answer::{self, Answer};
use super::cimd::{self, CimdError};
use super::facade::{Facade, key};
use super::random;
use hyper::StatusCode;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// How long a registration is kept.
const REGISTRATION_LIFETIME: Duration = Duration::from_secs(365 * 24 * 3600);
/// How long a fetched metadata document is trusted before it is fetched again.
const DOCUMENT_LIFETIME: Duration = Duration::from_secs(10 * 60);
/// Bounds on what one registration may make the server keep.
const MAX_REDIRECT_URIS: usize = 10;
const MAX_TEXT: usize = 512;

/// A client, as the façade keeps it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Client {
    pub client_id: String,
    /// The digest of its secret; `None` for a public client (PKCE alone).
    pub secret_digest: Option<String>,
    pub redirect_uris: Vec<String>,
    pub client_name: Option<String>,
}

/// Why a client could not be found.
pub(super) enum Unknown {
    /// No such client, or its document is refused: the request is answered with an error page.
    Client(String),
    /// The store is down.
    Unavailable,
}

/// The client `client_id`: registered, or its metadata document (fetched, checked and cached).
pub(super) async fn find(facade: &Facade, client_id: &str) -> Result<Client, Unknown> {
    let cached: Option<Client> = facade.get(&key::client(client_id)).await.map_err(|_| Unknown::Unavailable)?;
    if let Some(client) = cached {
        return Ok(client);
    }
    if !cimd::is_document_url(client_id) {
        return Err(Unknown::Client(format!("no client is registered as `{client_id}`")));
    }
    let document = cimd::fetch(client_id, facade.private_metadata_addresses).await.map_err(|err| match err {
        CimdError::Refused(why) | CimdError::Failed(why) => Unknown::Client(why),
    })?;
    if let Some(method) = document.get("token_endpoint_auth_method").and_then(Value::as_str)
        && method != "none"
    {
        return Err(Unknown::Client(format!("the client's document asks for `{method}`; only `none` is supported")));
    }
    let client = checked(facade, client_id.to_owned(), None, &document).map_err(|(_, why)| Unknown::Client(why))?;
    facade.put(&key::client(client_id), &client, DOCUMENT_LIFETIME).await.map_err(|_| Unknown::Unavailable)?;
    Ok(client)
}

/// `POST /oauth/register`: a new client from its metadata (RFC 7591 §3).
pub(super) async fn register(facade: &Facade, body: &[u8]) -> Answer {
    let Ok(metadata) = serde_json::from_slice::<Map<String, Value>>(body) else {
        return answer::oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "the body is not a JSON object",
        );
    };
    // RFC 7591 §2: without a method, `client_secret_basic`.
    let method = metadata.get("token_endpoint_auth_method").and_then(Value::as_str).unwrap_or("client_secret_basic");
    let secret = match method {
        "none" => None,
        "client_secret_basic" | "client_secret_post" => Some(random::token()),
        other => {
            let why = format!("token_endpoint_auth_method `{other}` is not supported");
            return answer::oauth_error(StatusCode::BAD_REQUEST, "invalid_client_metadata", &why);
        }
    };
    let client_id = random::token();
    let client = match checked(facade, client_id.clone(), secret.as_deref().map(random::digest), &metadata) {
        Ok(client) => client,
        Err((error, why)) => return answer::oauth_error(StatusCode::BAD_REQUEST, error, &why),
    };
    if facade.put(&key::client(&client_id), &client, REGISTRATION_LIFETIME).await.is_err() {
        return answer::unavailable("the registration could not be stored");
    }
    let issued_at =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    let mut registered = json!({
        "client_id": client_id,
        "client_id_issued_at": issued_at,
        "redirect_uris": client.redirect_uris,
        "token_endpoint_auth_method": method,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    if let Some(name) = &client.client_name {
        registered["client_name"] = name.clone().into();
    }
    if let Some(secret) = secret {
        registered["client_secret"] = secret.into();
        registered["client_secret_expires_at"] = 0.into();
    }
    answer::json(StatusCode::CREATED, &registered)
}

/// The client `metadata` describes, if the façade accepts it: its redirect URIs, grant and
/// response types. The error is the OAuth error code and its description.
fn checked(
    facade: &Facade,
    client_id: String,
    secret_digest: Option<String>,
    metadata: &Map<String, Value>,
) -> Result<Client, (&'static str, String)> {
    let strings = |name: &str| -> Option<Vec<String>> {
        metadata.get(name)?.as_array()?.iter().map(|v| v.as_str().map(str::to_owned)).collect()
    };
    let Some(redirect_uris) = strings("redirect_uris").filter(|uris| !uris.is_empty()) else {
        return Err(("invalid_redirect_uri", "redirect_uris must be a non-empty array of strings".to_owned()));
    };
    if redirect_uris.len() > MAX_REDIRECT_URIS || redirect_uris.iter().any(|uri| uri.len() > MAX_TEXT) {
        return Err(("invalid_redirect_uri", format!("at most {MAX_REDIRECT_URIS} redirect URIs of {MAX_TEXT} bytes")));
    }
    if let Some(why) = redirect_uris.iter().find_map(|uri| facade.redirects.refusal(uri)) {
        return Err(("invalid_redirect_uri", why));
    }
    let supported = |name: &str, allowed: &[&str]| {
        strings(name).is_none_or(|values| values.iter().all(|value| allowed.contains(&value.as_str())))
    };
    if !supported("grant_types", &["authorization_code", "refresh_token"]) || !supported("response_types", &["code"]) {
        return Err((
            "invalid_client_metadata",
            "only the authorization_code and refresh_token grants, and the code response type, are supported"
                .to_owned(),
        ));
    }
    let client_name =
        metadata.get("client_name").and_then(Value::as_str).map(|name| name.chars().take(MAX_TEXT).collect());
    Ok(Client { client_id, secret_digest, redirect_uris, client_name })
}
