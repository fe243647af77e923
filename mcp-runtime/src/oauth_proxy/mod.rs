//! The authorization-server façade (feature `oauth-proxy`): the MCP server is the OAuth 2.1
//! authorization server its clients see, and brokers each sign-in to an upstream provider
//! (GitHub, Google, any OpenID issuer) where it holds one pre-registered client.
//!
//! MCP clients register with the façade (Dynamic Client Registration, or a Client ID Metadata
//! Document), send their users to its `/oauth/authorize`, and get its own tokens: short-lived
//! JWTs for the MCP resource, signed with its key, and rotated refresh tokens. The user signs in
//! at the upstream provider, whose identity becomes the caller's [`AuthInfo`](crate::auth::AuthInfo)
//! and whose token stays on the server ([`AuthInfo::upstream_token`](crate::auth::AuthInfo::upstream_token)).
//! Enable it with [`HttpConfig::oauth_proxy`](crate::http::HttpConfig::oauth_proxy).
//!
//! | Module | Owns |
//! |---|---|
//! | `config.rs` | [`OAuthProxy`]: the public configuration |
//! | `upstream.rs` | [`Upstream`]: the provider's endpoints (presets, OpenID discovery), its code exchange and the user's identity |
//! | `store.rs` | [`ProxyStore`], [`MemoryStore`]: clients, sign-ins in progress, codes, consents, grants |
//! | `redis_store.rs` | [`RedisProxyStore`] (with feature `redis`): the records in the replicas' Redis |
//! | `random.rs` | unguessable values and their digests |
//! | `redirect.rs` | which redirect URIs a client may register, and which match (RFC 8252 loopback ports) |
//! | `cimd.rs` | Client ID Metadata Documents fetched safely: https, public addresses, size and time limits |
//! | `clients.rs` | registered clients: Dynamic Client Registration (RFC 7591), lookup by id or document URL |
//! | `keys.rs` | the signing key, its JWKS, the access tokens minted and the verifier the endpoint uses |
//! | `facade.rs` | the state every page shares, and the records kept between them |
//! | `verifier.rs` | the tokens the MCP endpoint accepts: signed by the façade, for the resource, of a grant not revoked |
//! | `form.rs` | form bodies and query strings, each parameter at most once |
//! | `answer.rs` | the shapes of the pages' answers: JSON, OAuth errors, HTML, redirects |
//! | `page.rs` | the consent and error pages: plain HTML forms, escaped |
//! | `authorize.rs` | `/oauth/authorize`, the upstream's `/oauth/callback`, `/oauth/consent` |
//! | `token.rs` | `/oauth/token` (codes, refresh rotation with reuse detection), `/oauth/revoke` (RFC 7009) |
//! | `routes.rs` | the paths, the metadata (RFC 8414), and [`HttpConfig::oauth_proxy`](crate::http::HttpConfig::oauth_proxy) |

mod answer;
mod authorize;
mod cimd;
mod clients;
mod config;
mod facade;
mod form;
mod keys;
mod page;
mod random;
mod redirect;
#[cfg(feature = "redis")]
mod redis_store;
mod routes;
mod store;
mod token;
mod upstream;
mod verifier;

pub use config::OAuthProxy;
#[cfg(feature = "redis")]
pub use redis_store::RedisProxyStore;
pub use store::{MemoryStore, ProxyStore};
pub use upstream::Upstream;
