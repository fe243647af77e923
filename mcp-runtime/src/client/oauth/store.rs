//! Where registrations and tokens are kept between requests and between runs: [`TokenStore`],
//! in memory by default ([`MemoryStore`]) or in a file only its owner can read ([`FileStore`]).

use super::discovery::ServerMetadata;
use super::registration::Registration;
use super::token::Tokens;
use crate::sync::lock;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Mutex;

/// What the client keeps for one MCP server: the authorization server it signed in with, its
/// tokens, and its registrations (one per authorization server, never offered to another).
/// Opaque: a store keeps it as JSON (`serde`). Its `Debug` shows no token or secret.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
pub struct Stored {
    /// The resource the tokens are for.
    pub(crate) resource: String,
    /// The authorization server's metadata (its issuer, its endpoints).
    pub(crate) server: ServerMetadata,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tokens: Option<Tokens>,
    /// By issuer.
    #[serde(default)]
    pub(crate) registrations: BTreeMap<String, Registration>,
}

impl Stored {
    /// The issuer of the authorization server the tokens come from.
    pub fn issuer(&self) -> &str {
        &self.server.issuer
    }

    /// The tokens, if the client has signed in.
    pub fn tokens(&self) -> Option<&Tokens> {
        self.tokens.as_ref()
    }
}

/// Keeps what the client knows about each server, by the URL of its MCP endpoint.
pub trait TokenStore: Send + Sync {
    /// What is kept for the server at `server`.
    fn load(&self, server: &str) -> Option<Stored>;
    /// Keeps `stored` for the server at `server`, replacing what was there.
    fn save(&self, server: &str, stored: &Stored);
    /// Forgets the server at `server` (signing out).
    fn remove(&self, server: &str);
}

/// Keeps everything in memory, for the life of the client (the default).
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<String, Stored>>,
}

impl TokenStore for MemoryStore {
    fn load(&self, server: &str) -> Option<Stored> {
        lock(&self.entries).get(server).cloned()
    }

    fn save(&self, server: &str, stored: &Stored) {
        lock(&self.entries).insert(server.to_owned(), stored.clone());
    }

    fn remove(&self, server: &str) {
        lock(&self.entries).remove(server);
    }
}

/// Keeps everything in one JSON file, readable and writable by its owner only (mode 0600 on
/// Unix), replaced whole on each save (written aside, then renamed) so a crash never leaves
/// half a file. What cannot be read or written is logged (never its content) and skipped: the
/// client then signs in again.
#[derive(Debug)]
pub struct FileStore {
    path: PathBuf,
    /// One writer at a time within the process.
    writing: Mutex<()>,
}

impl FileStore {
    /// A store in the file at `path` (created on the first save, with its folder).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), writing: Mutex::new(()) }
    }

    /// The file.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    fn read(&self) -> BTreeMap<String, Stored> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!("mcp client: ignoring the token store {}: not valid JSON ({e})", self.path.display());
                BTreeMap::new()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => {
                tracing::warn!("mcp client: cannot read the token store {}: {e}", self.path.display());
                BTreeMap::new()
            }
        }
    }

    fn update(&self, change: impl FnOnce(&mut BTreeMap<String, Stored>)) {
        let _writer = lock(&self.writing);
        let mut entries = self.read();
        change(&mut entries);
        if let Err(e) = self.write(&entries) {
            tracing::warn!("mcp client: cannot write the token store {}: {e}", self.path.display());
        }
    }

    fn write(&self, entries: &BTreeMap<String, Stored>) -> std::io::Result<()> {
        use std::io::Write as _;
        if let Some(folder) = self.path.parent().filter(|folder| !folder.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder)?;
        }
        let aside = self.path.with_extension(format!("tmp{}", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&aside)?;
        file.write_all(&serde_json::to_vec_pretty(entries).map_err(std::io::Error::other)?)?;
        file.sync_all()?;
        std::fs::rename(&aside, &self.path)
    }
}

impl TokenStore for FileStore {
    fn load(&self, server: &str) -> Option<Stored> {
        self.read().remove(server)
    }

    fn save(&self, server: &str, stored: &Stored) {
        self.update(|entries| {
            entries.insert(server.to_owned(), stored.clone());
        });
    }

    fn remove(&self, server: &str) {
        self.update(|entries| {
            entries.remove(server);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored() -> Stored {
        Stored {
            resource: "https://a.example/mcp".into(),
            server: ServerMetadata { issuer: "https://as.example".into(), ..ServerMetadata::default() },
            tokens: Some(Tokens {
                access_token: "at-secret".into(),
                refresh_token: Some("rt-secret".into()),
                expires_at: None,
                scope: Some("mcp".into()),
                dpop_bound: false,
            }),
            registrations: BTreeMap::new(),
        }
    }

    #[test]
    fn a_file_store_keeps_entries_across_instances_owner_only() {
        let folder = std::env::temp_dir().join(format!("mcp-token-store-{}", std::process::id()));
        let path = folder.join("tokens.json");
        let store = FileStore::new(&path);
        assert_eq!(store.load("https://a.example/mcp"), None);
        store.save("https://a.example/mcp", &stored());
        store.save("https://b.example/mcp", &Stored::default());
        let again = FileStore::new(&path);
        assert_eq!(again.load("https://a.example/mcp"), Some(stored()));
        again.remove("https://a.example/mcp");
        assert_eq!(store.load("https://a.example/mcp"), None);
        assert!(store.load("https://b.example/mcp").is_some());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert!(!format!("{:?}", stored()).contains("secret"));
        std::fs::remove_dir_all(folder).unwrap();
    }
}
