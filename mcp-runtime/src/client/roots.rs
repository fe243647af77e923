//! `roots/list`: the folders the client lets the server work in, and a path check against them.

use super::root::Root;
use super::{ClientError, Input};
use crate::context::Context;
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a path was refused by [`Context::resolve_in_roots`].
#[derive(Debug)]
pub enum RootsError {
    /// The roots could not be listed.
    Client(ClientError),
    /// The path (after resolving `..` and symlinks) is outside every root.
    OutsideRoots(PathBuf),
    /// The path could not be resolved (it or its parent does not exist).
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
    /// A path that does not exist yet is checked through its parent folder.
    pub async fn resolve_in_roots(&self, path: impl AsRef<Path>) -> Result<PathBuf, RootsError> {
        let roots: Vec<PathBuf> =
            self.roots().await.map_err(RootsError::Client)?.iter().filter_map(Root::path).collect();
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
}

fn canonicalize_allowing_new_file(path: &Path) -> std::io::Result<PathBuf> {
    match path.canonicalize() {
        Ok(resolved) => Ok(resolved),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return Err(err) };
            if name == ".." {
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
}
