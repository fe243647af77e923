//! The keys a [`JwtVerifier`](super::JwtVerifier) checks signatures with, and, when they come
//! from the authorization server, their fetching: a JWKS URL, or the `jwks_uri` of the issuer's
//! metadata (RFC 8414, OpenID Connect Discovery); cached per `Cache-Control`, fetched again in
//! the background when stale and at once for an unknown `kid` (at most once per interval,
//! concurrent misses sharing one fetch); the last good keys kept through outages.

use super::jwt::JwtKey;
use super::outbound::{self, without_query};
use super::token_cache;
use crate::error::{Error, ErrorKind, Result};
use crate::sync::{lock, read, write};
use reqwest::Url;
use reqwest::header::{AGE, CACHE_CONTROL, HeaderMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// How fetched keys are cached and fetched again. Set through
/// [`JwtVerifier`](super::JwtVerifier)'s builder methods.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    /// How long keys are kept when the response says nothing (`Cache-Control: max-age`).
    pub default_ttl: Duration,
    /// The least and the most a `max-age` is taken for.
    pub min_ttl: Duration,
    pub max_ttl: Duration,
    /// At most one fetch per interval (for an unknown `kid`, for stale keys, after a failure).
    pub refetch_interval: Duration,
    /// The time one request may take.
    pub timeout: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            default_ttl: Duration::from_secs(600),
            min_ttl: Duration::from_secs(60),
            max_ttl: Duration::from_secs(24 * 3600),
            refetch_interval: Duration::from_secs(30),
            timeout: outbound::DEFAULT_TIMEOUT,
        }
    }
}

/// The keys in use, and where fresh ones come from.
pub(crate) struct KeyStore {
    current: RwLock<Arc<JwtKey>>,
    remote: Option<Remote>,
}

/// Where the keys are fetched from.
pub(crate) enum Source {
    /// A JWKS URL.
    Jwks(Url),
    /// The issuer whose metadata names the `jwks_uri`.
    Issuer(String),
}

struct Remote {
    source: Source,
    /// The JWKS URL: given, or found in the issuer's metadata (then kept).
    jwks_uri: Mutex<Option<Url>>,
    /// Until when the current keys are fresh; `None` until a fetch succeeded.
    fresh_until: Mutex<Option<Instant>>,
    /// When the last fetch started.
    last_attempt: Mutex<Option<Instant>>,
    /// Fetches completed (succeeded or not): a request that saw a count before waiting for the
    /// fetch lock knows whether a fetch ran meanwhile.
    attempts: AtomicU64,
    /// One fetch at a time.
    fetching: tokio::sync::Mutex<()>,
    /// A background refresh is on its way.
    refreshing: AtomicBool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Why {
    /// No keys were fetched yet.
    First,
    /// A token names a key the set does not have.
    UnknownKid,
    /// The keys are past their `max-age`.
    Stale,
    /// [`JwtVerifier::refresh_keys`](super::JwtVerifier::refresh_keys): now, whatever the interval.
    Asked,
}

impl KeyStore {
    /// Keys given once (and replaced by `set_key`).
    pub fn fixed(key: JwtKey) -> Self {
        Self { current: RwLock::new(Arc::new(key)), remote: None }
    }

    /// Keys fetched from `source`.
    pub fn remote(source: Source) -> Self {
        let jwks_uri = match &source {
            Source::Jwks(url) => Some(url.clone()),
            Source::Issuer(_) => None,
        };
        Self {
            current: RwLock::new(Arc::new(JwtKey::empty())),
            remote: Some(Remote {
                source,
                jwks_uri: Mutex::new(jwks_uri),
                fresh_until: Mutex::new(None),
                last_attempt: Mutex::new(None),
                attempts: AtomicU64::new(0),
                fetching: tokio::sync::Mutex::new(()),
                refreshing: AtomicBool::new(false),
            }),
        }
    }

    pub fn current(&self) -> Arc<JwtKey> {
        Arc::clone(&read(&self.current))
    }

    pub fn set(&self, key: JwtKey) {
        *write(&self.current) = Arc::new(key);
    }

    /// The keys to check a token whose header names `kid` with: fetched first if there are
    /// none yet or the token names a key the set lacks (each at most once per interval), and
    /// refreshed in the background when stale.
    pub async fn keys_for(self: &Arc<Self>, kid: Option<&str>, timing: Timing) -> Arc<JwtKey> {
        let Some(remote) = &self.remote else {
            return self.current();
        };
        // Read before the keys: a fetch that completes after this is one this request waited for.
        let seen = remote.attempts.load(Ordering::Acquire);
        let keys = self.current();
        let fresh_until = *lock(&remote.fresh_until);
        match fresh_until {
            None => {
                let _ = self.refresh_detached(seen, timing, Why::First).await;
                return self.current();
            }
            Some(until) if Instant::now() >= until => self.refresh_in_background(seen, timing),
            Some(_) => {}
        }
        if kid.is_some_and(|kid| !keys.has_kid(kid)) {
            let _ = self.refresh_detached(seen, timing, Why::UnknownKid).await;
            return self.current();
        }
        keys
    }

    /// Fetches the keys now (whatever the interval) and says whether that worked.
    pub async fn refresh_now(self: &Arc<Self>, timing: Timing) -> Result<()> {
        if self.remote.is_none() {
            return Ok(());
        }
        self.refresh_detached(0, timing, Why::Asked).await
    }

    /// [`refresh`](Self::refresh) on a task of its own, awaited: a request dropped while it
    /// waits (its client went away) does not cancel the fetch that others may be waiting for.
    async fn refresh_detached(self: &Arc<Self>, seen: u64, timing: Timing, why: Why) -> Result<()> {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return self.refresh(seen, timing, why).await;
        };
        let store = Arc::clone(self);
        runtime.spawn(async move { store.refresh(seen, timing, why).await }).await.unwrap_or_else(|err| {
            Err(Error::new(ErrorKind::Auth, "fetching the authorization server's keys stopped").with_source(err))
        })
    }

    fn refresh_in_background(self: &Arc<Self>, seen: u64, timing: Timing) {
        let Some(remote) = &self.remote else { return };
        if remote.cooling_down(timing) || remote.refreshing.swap(true, Ordering::AcqRel) {
            return;
        }
        let store = Arc::clone(self);
        let refresh = async move {
            let _ = store.refresh(seen, timing, Why::Stale).await;
            if let Some(remote) = &store.remote {
                remote.refreshing.store(false, Ordering::Release);
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(refresh)),
            Err(_) => remote.refreshing.store(false, Ordering::Release),
        }
    }

    /// One fetch, shared by every request that wanted it, and at most one per interval (unless
    /// asked for).
    async fn refresh(&self, seen: u64, timing: Timing, why: Why) -> Result<()> {
        let Some(remote) = &self.remote else { return Ok(()) };
        let _fetching = remote.fetching.lock().await;
        if why != Why::Asked {
            if remote.attempts.load(Ordering::Acquire) != seen {
                // Another request fetched while this one waited: its keys (or failure) stand.
                return Ok(());
            }
            if remote.cooling_down(timing) {
                tracing::debug!("not fetching the authorization server's keys again so soon");
                return Ok(());
            }
        }
        *lock(&remote.last_attempt) = Some(Instant::now());
        let result = remote.fetch(timing).await;
        let outcome = match result {
            Ok((key, ttl)) => {
                tracing::debug!(keys = key.len(), ttl_secs = ttl.as_secs(), "fetched the authorization server's keys");
                self.set(key);
                *lock(&remote.fresh_until) = Some(token_cache::after(ttl));
                Ok(())
            }
            Err(err) => {
                let kept = self.current().len();
                let why = match why {
                    Why::First => "first",
                    Why::UnknownKid => "for an unknown key id",
                    Why::Stale => "stale keys",
                    Why::Asked => "asked",
                };
                tracing::warn!(error = %err, cause = ?std::error::Error::source(&err).map(ToString::to_string), kept_keys = kept, why,
                    "cannot fetch the authorization server's keys; keeping the last good ones");
                Err(err)
            }
        };
        remote.attempts.fetch_add(1, Ordering::AcqRel);
        outcome
    }
}

impl Remote {
    fn cooling_down(&self, timing: Timing) -> bool {
        let last = *lock(&self.last_attempt);
        last.is_some_and(|last| last.elapsed() < timing.refetch_interval)
    }

    /// The key set, and how long to keep it.
    async fn fetch(&self, timing: Timing) -> Result<(JwtKey, Duration)> {
        let known = lock(&self.jwks_uri).clone();
        let uri = match known {
            Some(uri) => uri,
            None => {
                let Source::Issuer(issuer) = &self.source else {
                    return Err(Error::new(ErrorKind::Auth, "no JWKS URL"));
                };
                let uri = discover(issuer, timing.timeout).await?;
                *lock(&self.jwks_uri) = Some(uri.clone());
                uri
            }
        };
        let response = outbound::get(&uri, timing.timeout).await?;
        if !response.status.is_success() {
            return Err(Error::new(
                ErrorKind::Auth,
                format!("the JWKS at {} answered HTTP {}", without_query(&uri), response.status.as_u16()),
            ));
        }
        let text = std::str::from_utf8(&response.body)
            .map_err(|err| Error::new(ErrorKind::Auth, "the JWKS is not UTF-8").with_source(err))?;
        let key = JwtKey::jwks(text)?;
        let ttl =
            max_age(&response.headers).map_or(timing.default_ttl, |age| age.clamp(timing.min_ttl, timing.max_ttl));
        Ok((key, ttl))
    }
}

/// How long a response may be kept, by its `Cache-Control` (`max-age` less `Age`; `no-store` and
/// `no-cache` are 0); `None` when it does not say.
fn max_age(headers: &HeaderMap) -> Option<Duration> {
    let mut max_age = None;
    for value in headers.get_all(CACHE_CONTROL) {
        let Ok(value) = value.to_str() else { continue };
        for directive in value.split(',').map(str::trim) {
            let (name, argument) = directive.split_once('=').unwrap_or((directive, ""));
            if name.eq_ignore_ascii_case("no-store") || name.eq_ignore_ascii_case("no-cache") {
                return Some(Duration::ZERO);
            }
            if name.eq_ignore_ascii_case("max-age") {
                max_age = argument.trim_matches('"').parse::<u64>().ok().or(max_age);
            }
        }
    }
    let age = headers.get(AGE).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(0);
    max_age.map(|seconds: u64| Duration::from_secs(seconds.saturating_sub(age)))
}

/// The metadata URLs of `issuer`, in the order the MCP specification has clients try them:
/// RFC 8414 (`/.well-known/oauth-authorization-server` before the issuer's path), then OpenID
/// Connect Discovery (before the path, then after it).
pub(crate) fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let mut candidates = vec![
        format!("/.well-known/oauth-authorization-server{path}"),
        format!("/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        candidates.push(format!("{path}/.well-known/openid-configuration"));
    }
    candidates
        .into_iter()
        .map(|path| {
            let mut url = issuer.clone();
            url.set_path(&path);
            url.set_query(None);
            url.set_fragment(None);
            url
        })
        .collect()
}

/// The `jwks_uri` of the issuer's metadata, whose `issuer` must be `issuer` exactly.
async fn discover(issuer: &str, timeout: Duration) -> Result<Url> {
    let issuer_url = outbound::checked_url("JwtVerifier::from_issuer", issuer)?;
    for url in metadata_urls(&issuer_url) {
        let response = outbound::get(&url, timeout).await?;
        if !response.status.is_success() {
            tracing::debug!(url = %url, status = response.status.as_u16(), "no authorization server metadata here");
            continue;
        }
        let metadata: serde_json::Value = response.json("the authorization server metadata")?;
        let stated = metadata.get("issuer").and_then(serde_json::Value::as_str);
        if stated != Some(issuer) {
            return Err(Error::new(
                ErrorKind::Auth,
                format!("the metadata at {url} is for the issuer {stated:?}, not `{issuer}`"),
            ));
        }
        let Some(jwks_uri) = metadata.get("jwks_uri").and_then(serde_json::Value::as_str) else {
            return Err(Error::new(ErrorKind::Auth, format!("the metadata at {url} names no `jwks_uri`")));
        };
        return outbound::checked_url("the metadata's jwks_uri", jwks_uri);
    }
    Err(Error::new(ErrorKind::Auth, format!("no authorization server metadata found for the issuer `{issuer}`")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn cache_control_gives_the_max_age() {
        assert_eq!(max_age(&headers(&[])), None);
        assert_eq!(max_age(&headers(&[("cache-control", "public, max-age=300")])), Some(Duration::from_secs(300)));
        assert_eq!(
            max_age(&headers(&[("cache-control", "max-age=300, must-revalidate"), ("age", "100")])),
            Some(Duration::from_secs(200))
        );
        assert_eq!(max_age(&headers(&[("cache-control", "no-cache")])), Some(Duration::ZERO));
        assert_eq!(
            max_age(&headers(&[("cache-control", "max-age=60"), ("cache-control", "no-store")])),
            Some(Duration::ZERO)
        );
        assert_eq!(max_age(&headers(&[("cache-control", "max-age=soon")])), None);
    }

    #[test]
    fn metadata_urls_follow_the_spec_order() {
        let urls = |issuer: &str| -> Vec<String> {
            metadata_urls(&Url::parse(issuer).unwrap()).iter().map(ToString::to_string).collect()
        };
        assert_eq!(
            urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            urls("https://auth.example.com/tenant1/"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
    }
}
