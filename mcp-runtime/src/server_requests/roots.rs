//! `roots/list`: the folders the client lets the server work in, and a path check against them.

use super::Input;
use super::client_error::ClientError;
use super::root::Root;
use crate::context::Context;
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a path was refused by [`Context::resolve_in_roots`] or `Context::path_in_roots`.
#[derive(Debug)]
pub enum RootsError {
    /// The roots could not be listed.
    Client(ClientError),
    /// The path (after resolving `..` and symlinks) is outside every root.
    OutsideRoots(PathBuf),
    /// The path could not be resolved (it or its parent does not exist, or it is a dangling
    /// symlink), or the root holding it could not be opened.
    Unresolvable(PathBuf, std::io::Error),
}

impl fmt::Display for RootsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Client(err) => write!(f, "cannot list the client's roots: {err}"),
            Self::OutsideRoots(path) => write!(f, "{} is outside the folders the client shared", path.display()),
            Self::Unresolvable(path, err) => write!(f, "cannot resolve {}: {err}", path.display()),
        }
    }
}

impl std::error::Error for RootsError {}

#[derive(Deserialize)]
struct ListRoots {
    roots: Vec<Root>,
}

impl Input<'_> {
    /// The client's roots (`roots/list`). In the 2025-11-25 era the answer is cached for the
    /// session until the client sends `notifications/roots/list_changed`. Needs the client's
    /// `roots` capability.
    pub async fn roots(self) -> Result<Vec<Root>, ClientError> {
        let session = self.ctx.session();
        let cacheable = !self.ctx.is_stateless();
        if cacheable && let Some(cached) = session.cached_roots() {
            return Ok(cached);
        }
        let generation = session.roots_generation();
        let list: ListRoots = self.ask(("roots", &["roots"]), "roots/list", &serde_json::json!({}), None).await?;
        if cacheable {
            session.cache_roots(generation, list.roots.clone());
        }
        Ok(list.roots)
    }
}

impl Context {
    /// Resolves `path` (relative paths against the first root) and checks it lies inside one
    /// of the client's roots after canonicalization, so neither `..` nor a symlink can escape.
    /// A path that does not exist yet is checked through its parent folder; a dangling symlink
    /// is refused.
    ///
    /// The check holds at the moment it is made: a symlink put in the path's place before the
    /// tool uses it is followed. To act on files, use
    /// `path_in_roots` (feature `fs`), which checks at each operation.
    pub async fn resolve_in_roots(&self, path: impl AsRef<Path>) -> Result<PathBuf, RootsError> {
        let roots = self.root_paths().await?;
        let path = path.as_ref();
        let joined = match (path.is_absolute(), roots.first()) {
            (false, Some(first)) => first.join(path),
            _ => path.to_path_buf(),
        };
        let resolved =
            canonicalize_allowing_new_file(&joined).map_err(|e| RootsError::Unresolvable(joined.clone(), e))?;
        let inside = roots.iter().filter_map(|root| root.canonicalize().ok()).any(|root| resolved.starts_with(&root));
        if inside { Ok(resolved) } else { Err(RootsError::OutsideRoots(resolved)) }
    }

    /// `path` beneath the client's root that holds it (relative paths: the first root), as a
    /// [`PathInRoot`](super::PathInRoot) whose every operation resolves it through the root's
    /// directory handle: `..` above the root, absolute paths elsewhere and symlinks out of the
    /// root are refused when the file is opened, so a link swapped in later cannot escape.
    #[cfg(feature = "fs")]
    #[cfg_attr(docsrs, doc(cfg(feature = "fs")))]
    pub async fn path_in_roots(&self, path: impl AsRef<Path>) -> Result<super::PathInRoot, RootsError> {
        let roots = self.root_paths().await?;
        let path = path.as_ref();
        let (root, relative) =
            super::path_in_root::locate(&roots, path).ok_or_else(|| RootsError::OutsideRoots(path.to_path_buf()))?;
        super::PathInRoot::new(root, relative).map_err(|e| RootsError::Unresolvable(root.to_path_buf(), e))
    }

    /// The local folders among the client's roots.
    async fn root_paths(&self) -> Result<Vec<PathBuf>, RootsError> {
        Ok(self.roots().await.map_err(RootsError::Client)?.iter().filter_map(Root::path).collect())
    }
}

fn canonicalize_allowing_new_file(path: &Path) -> std::io::Result<PathBuf> {
    match path.canonicalize() {
        Ok(resolved) => Ok(resolved),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return Err(err) };
            // A dangling symlink names no file yet, but writing through it creates its target.
            if name == ".." || path.symlink_metadata().is_ok() {
                return Err(err);
            }
            Ok(parent.canonicalize()?.join(name))
        }
        Err(err) => Err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        let root = Root { uri: "file:///home/me/My%20Project".into(), name: None };
        assert_eq!(root.path(), Some(PathBuf::from("/home/me/My Project")));
        assert_eq!(Root { uri: "https://x".into(), name: None }.path(), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_symlink_is_not_a_new_file() {
        let base = std::env::temp_dir().join(format!("mcp-roots-dangling-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        std::os::unix::fs::symlink("/nonexistent-mcp-target/new.txt", base.join("dangling")).unwrap();
        assert!(canonicalize_allowing_new_file(&base.join("dangling")).is_err());
        let new = canonicalize_allowing_new_file(&base.join("new.txt")).unwrap();
        assert_eq!(new, base.canonicalize().unwrap().join("new.txt"));
        std::fs::remove_dir_all(&base).unwrap();
    }
}
