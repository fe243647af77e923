//! The browser's part of a sign-in: `/oauth/authorize` (a client's request, checked), the
//! upstream's `/oauth/callback`, the consent page and its `/oauth/consent` form, and the
//! redirect back to the client with our own code.
//!
//! Until the client and its redirect URI are known good, errors are pages, never redirects
//! (an open redirect otherwise); after, they go back to the client as RFC 6749 §4.1.2.1 says.

use super::answer::{self, Answer};
use super::clients::{self, Unknown};
use super::facade::{
    AuthorizationRequest, CODE_LIFETIME, Facade, Grant, IssuedCode, PendingConsent, PendingSignIn, SIGN_IN_LIFETIME,
    key,
};
use super::page::{self, Consent};
use super::upstream::UpstreamError;
use super::{form, random, redirect};
use hyper::header::{COOKIE, HeaderValue, RETRY_AFTER, SET_COOKIE};
use hyper::{HeaderMap, StatusCode};
use reqwest::Url;
use std::collections::HashMap;

/// The cookie that ties a consent form to the browser it was shown in.
const BROWSER_COOKIE: &str = "mcp_oauth_browser";
/// The upstream's redirect back to us.
pub(super) const CALLBACK_PATH: &str = "/oauth/callback";

/// `GET /oauth/authorize`.
pub(super) async fn authorize(facade: &Facade, query: &str) -> Answer {
    let params = match form::parse(query.as_bytes()) {
        Ok(params) => params,
        Err(why) => return error_page(StatusCode::BAD_REQUEST, &why),
    };
    let param = |name: &str| params.get(name).map(String::as_str).filter(|v| !v.is_empty());
    let Some(client_id) = param("client_id") else {
        return error_page(StatusCode::BAD_REQUEST, "the request names no client_id");
    };
    let client = match clients::find(facade, client_id).await {
        Ok(client) => client,
        Err(Unknown::Client(why)) => return error_page(StatusCode::BAD_REQUEST, &why),
        Err(Unknown::Unavailable) => return unavailable_page(),
    };
    let redirect_uri = match param("redirect_uri") {
        Some(uri) if redirect::matches(&client.redirect_uris, uri) => uri.to_owned(),
        Some(_) => return error_page(StatusCode::BAD_REQUEST, "the redirect_uri is not one the client registered"),
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        None => return error_page(StatusCode::BAD_REQUEST, "the request names no redirect_uri"),
    };
    let state = param("state").map(str::to_owned);
    // From here on, errors go back to the client.
    let back =
        |error: &str, description: &str| back_to_client(facade, &redirect_uri, state.as_deref(), error, description);
    if param("response_type") != Some("code") {
        return back("unsupported_response_type", "only response_type=code is supported");
    }
    let Some(code_challenge) = param("code_challenge") else {
        return back("invalid_request", "PKCE is required: send a code_challenge (S256)");
    };
    if param("code_challenge_method") != Some("S256") {
        return back("invalid_request", "PKCE needs code_challenge_method=S256 (plain is refused)");
    }
    if code_challenge.len() != 43 {
        return back("invalid_request", "the code_challenge is not a base64url SHA-256 digest");
    }
    if let Some(resource) = param("resource")
        && resource != facade.resource
    {
        return back("invalid_target", &format!("this server issues tokens only for {}", facade.resource));
    }
    let scope = match granted_scope(facade, param("scope")) {
        Ok(scope) => scope,
        Err(why) => return back("invalid_scope", &why),
    };
    let request = AuthorizationRequest {
        client_id: client.client_id,
        client_name: client.client_name,
        redirect_uri: redirect_uri.clone(),
        state: state.clone(),
        code_challenge: code_challenge.to_owned(),
        scope,
    };
    // The upstream sign-in has its own state and PKCE: nothing of the client's goes there.
    let upstream_state = random::token();
    let verifier = random::token();
    let url = match facade
        .upstream
        .authorization_url(&facade.url(CALLBACK_PATH), &upstream_state, &random::s256(&verifier))
        .await
    {
        Ok(url) => url,
        Err(UpstreamError::Unavailable(why)) => {
            tracing::warn!("the upstream provider is unreachable: {why}");
            return unavailable_page();
        }
        Err(UpstreamError::Refused(why)) => {
            tracing::warn!("the upstream provider is misconfigured: {why}");
            return back("server_error", "the identity provider is misconfigured");
        }
    };
    let pending = PendingSignIn { request, verifier };
    if facade.put(&key::sign_in(&upstream_state), &pending, SIGN_IN_LIFETIME).await.is_err() {
        return unavailable_page();
    }
    answer::redirect(url.as_str())
}

/// The scopes a token will carry: those asked for, all known to the façade; all of the
/// façade's when none was asked for.
fn granted_scope(facade: &Facade, asked: Option<&str>) -> Result<Vec<String>, String> {
    let Some(asked) = asked else { return Ok(facade.scopes.clone()) };
    let asked: Vec<String> = asked.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect();
    match asked.iter().find(|scope| !facade.scopes.contains(scope)) {
        Some(unknown) => Err(format!("the scope `{unknown}` is not offered")),
        None => Ok(asked),
    }
}

/// `GET /oauth/callback`: the upstream sends the browser back.
pub(super) async fn callback(facade: &Facade, query: &str) -> Answer {
    let params: HashMap<String, String> = match form::parse(query.as_bytes()) {
        Ok(params) => params,
        Err(why) => return error_page(StatusCode::BAD_REQUEST, &why),
    };
    // Only a `state` we issued, once, continues a sign-in: a callback forged or replayed
    // (login CSRF) stops here.
    let Some(state) = params.get("state").filter(|s| !s.is_empty()) else {
        return error_page(StatusCode::BAD_REQUEST, "the identity provider's answer has no state");
    };
    let pending: PendingSignIn = match facade.take(&key::sign_in(state)).await {
        Ok(Some(pending)) => pending,
        Ok(None) => {
            return error_page(StatusCode::BAD_REQUEST, "this sign-in is unknown, used, or expired: start again");
        }
        Err(_) => return unavailable_page(),
    };
    let request = pending.request;
    let back = |error: &str, description: &str| {
        back_to_client(facade, &request.redirect_uri, request.state.as_deref(), error, description)
    };
    let Some(code) = params.get("code") else {
        let error = params.get("error").map_or("no code", String::as_str);
        tracing::info!("the upstream sign-in ended without a code: {error}");
        return back("access_denied", "the sign-in at the identity provider did not complete");
    };
    let signed_in = match facade.upstream.sign_in(code, &facade.url(CALLBACK_PATH), &pending.verifier).await {
        Ok(signed_in) => signed_in,
        Err(UpstreamError::Unavailable(why)) => {
            tracing::warn!("the upstream provider is unreachable: {why}");
            return unavailable_page();
        }
        Err(UpstreamError::Refused(why)) => {
            tracing::info!("the upstream provider refused the sign-in: {why}");
            return back("access_denied", "the identity provider refused the sign-in");
        }
    };
    let grant = Grant {
        client_id: request.client_id.clone(),
        identity: signed_in.identity,
        scope: request.scope.clone(),
        upstream_token: signed_in.access_token,
    };
    match facade.get::<bool>(&key::consent(&grant.client_id, &grant.identity.subject)).await {
        Ok(Some(true)) => return issue_code(facade, request, grant).await,
        Ok(_) => {}
        Err(_) => return unavailable_page(),
    }
    let page_id = random::token();
    let csrf = random::token();
    let browser = random::token();
    let user = grant.identity.login.clone().unwrap_or_else(|| grant.identity.subject.clone());
    let page = Consent {
        server: &facade.server_name,
        client: request.client_name.as_deref().unwrap_or(&request.client_id),
        redirect_host: &Url::parse(&request.redirect_uri)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default(),
        user: &user,
        page_id: &page_id,
        csrf: &csrf,
    }
    .render();
    let pending = PendingConsent { request, grant, csrf, browser: random::digest(&browser) };
    if facade.put(&key::consent_page(&page_id), &pending, SIGN_IN_LIFETIME).await.is_err() {
        return unavailable_page();
    }
    let mut answer = answer::html(StatusCode::OK, page);
    let secure = if facade.issuer.starts_with("https://") { "; Secure" } else { "" };
    let cookie = format!("{BROWSER_COOKIE}={browser}; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=600{secure}");
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        answer.headers_mut().insert(SET_COOKIE, value);
    }
    answer
}

/// `POST /oauth/consent`: the form of the consent page.
pub(super) async fn consent(facade: &Facade, headers: &HeaderMap, body: &[u8]) -> Answer {
    let Ok(params) = form::parse(body) else { return error_page(StatusCode::BAD_REQUEST, "a malformed form") };
    let param = |name: &str| params.get(name).map(String::as_str).unwrap_or_default();
    let page_key = key::consent_page(param("page"));
    let pending: PendingConsent = match facade.get(&page_key).await {
        Ok(Some(pending)) => pending,
        Ok(None) => return error_page(StatusCode::BAD_REQUEST, "this consent page is unknown, used, or expired"),
        Err(_) => return unavailable_page(),
    };
    // The form must come from the page we showed, in the browser we showed it to.
    let browser = cookie(headers, BROWSER_COOKIE).map(random::digest).unwrap_or_default();
    if !random::same(param("csrf"), &pending.csrf) || !random::same(&browser, &pending.browser) {
        return error_page(StatusCode::FORBIDDEN, "this form was not sent from its consent page");
    }
    let pending: PendingConsent = match facade.take(&page_key).await {
        Ok(Some(pending)) => pending,
        Ok(None) => return error_page(StatusCode::BAD_REQUEST, "this consent page was already answered"),
        Err(_) => return unavailable_page(),
    };
    let request = pending.request;
    if param("decision") != "allow" {
        return back_to_client(
            facade,
            &request.redirect_uri,
            request.state.as_deref(),
            "access_denied",
            "the user said no",
        );
    }
    let remembered = key::consent(&request.client_id, &pending.grant.identity.subject);
    if facade.put(&remembered, &true, facade.refresh_lifetime).await.is_err() {
        return unavailable_page();
    }
    issue_code(facade, request, pending.grant).await
}

/// Keeps the grant, and sends the browser back to the client with a one-time code.
async fn issue_code(facade: &Facade, request: AuthorizationRequest, grant: Grant) -> Answer {
    let grant_id = random::token();
    let code = random::token();
    let stored = async {
        facade.put(&key::grant(&grant_id), &grant, facade.refresh_lifetime).await?;
        let issued = IssuedCode { request: request.clone(), grant_id };
        facade.put(&key::code(&random::digest(&code)), &issued, CODE_LIFETIME).await
    };
    if stored.await.is_err() {
        return unavailable_page();
    }
    let mut url = match Url::parse(&request.redirect_uri) {
        Ok(url) => url,
        Err(_) => return error_page(StatusCode::BAD_REQUEST, "the redirect URI is not a URL"),
    };
    {
        let mut query = url.query_pairs_mut();
        query.append_pair("code", &code);
        if let Some(state) = &request.state {
            query.append_pair("state", state);
        }
        query.append_pair("iss", &facade.issuer);
    }
    answer::redirect(url.as_str())
}

/// An error sent back to the client's (checked) redirect URI, with its `state` and our `iss`.
fn back_to_client(facade: &Facade, redirect_uri: &str, state: Option<&str>, error: &str, description: &str) -> Answer {
    let Ok(mut url) = Url::parse(redirect_uri) else {
        return error_page(StatusCode::BAD_REQUEST, description);
    };
    {
        let mut query = url.query_pairs_mut();
        query.append_pair("error", error).append_pair("error_description", description);
        if let Some(state) = state {
            query.append_pair("state", state);
        }
        query.append_pair("iss", &facade.issuer);
    }
    answer::redirect(url.as_str())
}

fn error_page(status: StatusCode, message: &str) -> Answer {
    answer::html(status, page::error(message))
}

/// The identity provider (or the store) is down: `503`, try again shortly.
fn unavailable_page() -> Answer {
    let mut answer = error_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "the identity provider cannot be reached right now; try again in a moment",
    );
    answer.headers_mut().insert(RETRY_AFTER, HeaderValue::from_static("30"));
    answer
}

/// The value of cookie `name`.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
}
