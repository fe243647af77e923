//! Who the client is to an authorization server: credentials registered beforehand, a Client ID
//! Metadata Document, or a Dynamic Client Registration (RFC 7591); and how it proves it at the
//! token endpoint (`none`, `client_secret_basic`, `client_secret_post`, `private_key_jwt`).

use super::super::error::ClientError;
use super::clock::now;
use super::discovery::ServerMetadata;
use super::fetch::{Fetch, auth_error, printable};
use super::pkce::random;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// How a confidential client proves who it is at the token endpoint.
#[derive(Clone)]
pub enum ClientSecret {
    /// A shared secret: sent with HTTP Basic (`client_secret_basic`) or in the form
    /// (`client_secret_post`), whichever the authorization server accepts.
    Shared(String),
    /// A private key (PEM, PKCS#8 or the algorithm's own) signing a short-lived JWT assertion
    /// (`private_key_jwt`, RFC 7523), with its algorithm: `ES256`, `RS256`...
    PrivateKeyJwt {
        /// The key, PEM.
        pem: String,
        /// The JWS algorithm.
        algorithm: String,
    },
}

/// A client registered with one authorization server, as kept in a
/// [`TokenStore`](super::TokenStore).
#[derive(Clone, Deserialize, Serialize, PartialEq, Eq)]
pub struct Registration {
    /// The `client_id` the authorization server knows the client by.
    pub client_id: String,
    /// The secret it issued, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The token endpoint authentication method.
    pub auth_method: String,
    /// The redirect URIs registered.
    #[serde(default)]
    pub redirect_uris: Vec<String>,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "<redacted>"))
            .field("auth_method", &self.auth_method)
            .field("redirect_uris", &self.redirect_uris)
            .finish()
    }
}

impl Registration {
    /// Whether this registration can be used with `redirect_uri` (a registration made for another
    /// loopback port, say, cannot).
    pub fn fits(&self, redirect_uri: Option<&str>) -> bool {
        redirect_uri.is_none_or(|uri| self.redirect_uris.iter().any(|registered| registered == uri))
    }
}

/// Who the client says it is, for [`register`].
pub(crate) struct Identity<'a> {
    pub client_name: &'a str,
    /// Credentials registered beforehand.
    pub client_id: Option<&'a str>,
    pub secret: Option<&'a ClientSecret>,
    /// A Client ID Metadata Document's URL.
    pub metadata_url: Option<&'a str>,
    /// The grant types to register.
    pub grant_types: &'a [&'a str],
}

/// The client's registration with the authorization server of `server`: the one configured, a
/// metadata document URL, or a new one (RFC 7591).
pub(crate) async fn register(
    fetch: &Fetch,
    identity: &Identity<'_>,
    server: &ServerMetadata,
    redirect_uri: Option<&str>,
) -> Result<Registration, ClientError> {
    let redirect_uris: Vec<String> = redirect_uri.map(str::to_owned).into_iter().collect();
    if let Some(client_id) = identity.client_id {
        let auth_method = match identity.secret {
            None => "none",
            Some(ClientSecret::PrivateKeyJwt { .. }) => "private_key_jwt",
            Some(ClientSecret::Shared(_)) => shared_method(server),
        };
        let client_secret = match identity.secret {
            Some(ClientSecret::Shared(secret)) => Some(secret.clone()),
            _ => None,
        };
        return Ok(Registration {
            client_id: client_id.to_owned(),
            client_secret,
            auth_method: auth_method.into(),
            redirect_uris,
        });
    }
    if let Some(url) = identity.metadata_url
        && server.client_id_metadata_document_supported
    {
        return Ok(Registration {
            client_id: url.to_owned(),
            client_secret: None,
            auth_method: "none".into(),
            redirect_uris,
        });
    }
    let endpoint = server.endpoint("registration").map_err(|_| {
        auth_error(
            "the authorization server offers no registration and accepts no client metadata document: \
             give the client an id registered with it (OAuth::client_id)",
        )
    })?;
    let asked = if server.accepts_auth("none") {
        "none"
    } else if server.accepts_auth("client_secret_basic") {
        "client_secret_basic"
    } else {
        "client_secret_post"
    };
    // A loopback redirect makes the client a native application (RFC 8252); an https one, a web one.
    let application_type = if redirect_uri.is_some_and(|uri| uri.starts_with("https:")) { "web" } else { "native" };
    let body = json!({
        "client_name": identity.client_name,
        "redirect_uris": redirect_uris,
        "grant_types": identity.grant_types,
        "response_types": if redirect_uri.is_some() { vec!["code"] } else { vec![] },
        "token_endpoint_auth_method": asked,
        "application_type": application_type,
    });
    #[derive(Deserialize)]
    struct Registered {
        client_id: String,
        client_secret: Option<String>,
        token_endpoint_auth_method: Option<String>,
    }
    let registered: Registered = fetch.post_json(&endpoint, &body).await?.parse("the client registration")?;
    let auth_method = match (registered.token_endpoint_auth_method, &registered.client_secret) {
        (Some(method), _) => method,
        (None, Some(_)) => shared_method(server).into(),
        (None, None) => "none".into(),
    };
    Ok(Registration {
        client_id: registered.client_id,
        client_secret: registered.client_secret,
        auth_method,
        redirect_uris,
    })
}

/// How to send a shared secret: HTTP Basic, unless the server accepts only the form.
fn shared_method(server: &ServerMetadata) -> &'static str {
    if !server.accepts_auth("client_secret_basic") && server.accepts_auth("client_secret_post") {
        "client_secret_post"
    } else {
        "client_secret_basic"
    }
}

/// Form fields, or headers: names and values.
pub(crate) type Fields = Vec<(&'static str, String)>;

/// The form fields and headers that authenticate `registration` at the token endpoint of
/// `issuer` (`private_key_jwt` signs an assertion for it with the configured key).
pub(crate) fn authenticate(
    registration: &Registration,
    secret: Option<&ClientSecret>,
    issuer: &str,
) -> Result<(Fields, Fields), ClientError> {
    let id = registration.client_id.clone();
    let stored_secret = || {
        registration.client_secret.clone().ok_or_else(|| {
            auth_error(format!("{} needs a client secret, and the client has none", registration.auth_method))
        })
    };
    Ok(match registration.auth_method.as_str() {
        "client_secret_basic" => {
            // RFC 6749 §2.3.1: both parts form-urlencoded before base64.
            let encode = |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
            let pair = format!("{}:{}", encode(&id), encode(&stored_secret()?));
            let basic = base64::engine::general_purpose::STANDARD.encode(pair);
            (vec![], vec![("authorization", format!("Basic {basic}"))])
        }
        "client_secret_post" => (vec![("client_id", id), ("client_secret", stored_secret()?)], vec![]),
        "private_key_jwt" => {
            let Some(ClientSecret::PrivateKeyJwt { pem, algorithm }) = secret else {
                return Err(auth_error("private_key_jwt needs a private key (ClientSecret::PrivateKeyJwt)"));
            };
            let assertion = client_assertion(&id, issuer, pem, algorithm)?;
            (
                vec![
                    ("client_id", id),
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".into()),
                    ("client_assertion", assertion),
                ],
                vec![],
            )
        }
        _ => (vec![("client_id", id)], vec![]),
    })
}

/// A `private_key_jwt` client assertion (RFC 7523 §3): issued by and about the client, for the
/// authorization server's issuer, valid for five minutes, with a fresh `jti`.
pub(crate) fn client_assertion(
    client_id: &str,
    issuer: &str,
    pem: &str,
    algorithm: &str,
) -> Result<String, ClientError> {
    use jsonwebtoken::{Algorithm, EncodingKey, Header};
    let algorithm: Algorithm =
        algorithm.parse().map_err(|_| auth_error(format!("unknown JWS algorithm {:?}", printable(algorithm))))?;
    let key = match algorithm {
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()),
        Algorithm::EdDSA => EncodingKey::from_ed_pem(pem.as_bytes()),
        _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
    }
    .map_err(|_| auth_error("the client's private key could not be read (PEM)"))?;
    let now = now();
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": issuer,
        "iat": now,
        "exp": now + 300,
        "jti": random()?,
    });
    jsonwebtoken::encode(&Header::new(algorithm), &claims, &key)
        .map_err(|_| auth_error("the client assertion could not be signed"))
}
