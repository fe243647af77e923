//! `cargo mcp login` and `logout`: signing in to an OAuth-protected server once, so that `list`,
//! `call` and the other commands reach it with the stored tokens (refreshed as they expire).
//!
//! The tokens live in one file, readable by its owner only: `$CARGO_MCP_TOKENS`, else
//! `$XDG_CONFIG_HOME/cargo-mcp/tokens.json`, else `~/.config/cargo-mcp/tokens.json`.

use crate::connection;
use crate::terminal;
use mcp_runtime::client::oauth::{ClientSecret, FileStore, Loopback, OAuth, TokenStore as _};
use std::path::PathBuf;

/// What `login` asks for.
pub struct Login<'a> {
    /// The server's MCP endpoint.
    pub url: &'a str,
    /// Print the sign-in URL rather than open a browser.
    pub no_browser: bool,
    /// The loopback port of the redirect (0: a free one).
    pub port: u16,
    /// A client registered beforehand (else: registration).
    pub client_id: Option<String>,
    /// Its secret.
    pub client_secret: Option<String>,
    /// Scopes asked for beside the server's.
    pub scopes: Vec<String>,
    /// The client's maximum message size.
    pub max_message_size: Option<usize>,
}

/// The file the tokens are kept in.
pub fn tokens_path() -> Result<PathBuf, String> {
    let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty()).map(PathBuf::from);
    if let Some(path) = var("CARGO_MCP_TOKENS") {
        return Ok(path);
    }
    let config = var("XDG_CONFIG_HOME")
        .or_else(|| var("HOME").map(|home| home.join(".config")))
        .ok_or("no home folder to keep the tokens in: set CARGO_MCP_TOKENS to a file")?;
    Ok(config.join("cargo-mcp").join("tokens.json"))
}

/// Signs in to the server at `url` (a fresh sign-in, replacing what was stored), and says with
/// which authorization server.
pub async fn login(login: Login<'_>) -> Result<String, String> {
    let store = FileStore::new(tokens_path()?);
    store.remove(login.url);
    let mut agent = Loopback::bind_port(login.port).await.map_err(|e| e.to_string())?;
    if login.no_browser {
        agent = agent.no_browser();
    }
    let mut oauth = OAuth::authorization_code(agent).client_name("cargo-mcp").scopes(login.scopes);
    if let Some(id) = login.client_id {
        oauth = oauth.client_id(id, login.client_secret.map(ClientSecret::Shared));
    }
    let client = connection::connect_http_with(
        login.url,
        None,
        Some(oauth.store(FileStore::new(tokens_path()?))),
        login.max_message_size,
    )
    .await
    .map_err(|e| e.to_string())?;
    client.close().await;
    match store.load(login.url) {
        Some(stored) if stored.tokens().is_some() => Ok(format!(
            "Signed in to {} with {} (tokens kept in {})",
            login.url,
            stored.issuer(),
            store.path().display()
        )),
        _ => Ok(format!("{} did not ask to sign in: it needs no token", login.url)),
    }
}

/// Forgets the tokens and registration kept for `url`; says whether there were any.
pub fn logout(url: &str) -> Result<String, String> {
    let store = FileStore::new(tokens_path()?);
    let message = match store.load(url) {
        Some(_) => format!("Signed out of {url}"),
        None => format!("Not signed in to {url}: nothing to forget"),
    };
    store.remove(url);
    Ok(message)
}

/// The sign-in for the other commands: the tokens stored for `url` by `login`, if any.
pub fn stored_sign_in(url: &str) -> Option<OAuth> {
    let store = FileStore::new(tokens_path().ok()?);
    store.load(url)?;
    Some(OAuth::stored(store))
}

/// Prints `message` on stderr (through the terminal's escaping).
pub fn say(message: &str) {
    terminal::eprint(format_args!("{message}\n"));
}
