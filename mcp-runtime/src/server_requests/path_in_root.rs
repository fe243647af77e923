//! [`PathInRoot`] (feature `fs`): a path reached only through its root's directory handle, so
//! neither `..`, an absolute path nor a symlink (even one swapped in later) leads out of the root.

use std::io::{self, Read as _};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use cap_std::fs::{Dir, OpenOptions};

/// A path beneath a root folder, opened and created relative to the root's directory handle
/// (`cap-std`'s `Dir`, `openat2(RESOLVE_BENEATH)` where the kernel has it).
///
/// Checking a path and then using it leaves a gap: a symlink put in its place in between is
/// followed. A `PathInRoot` never resolves its path outside the root, at the moment of each
/// operation: `..` above the root, absolute paths and symlinks whose target lies outside it
/// (dangling or not) are refused with an [`io::Error`] carrying [`OutsideRoot`]; symlinks that stay inside the root
/// work. Get one for a client's path with
/// [`Context::path_in_roots`](crate::Context::path_in_roots), or for a folder of your own with
/// [`new`](Self::new).
///
/// The operations are `async` and run on tokio's blocking thread pool, so an `async` tool can
/// await them without blocking its connection.
///
/// ```no_run
/// use mcp_runtime::PathInRoot;
///
/// # async fn run() -> std::io::Result<()> {
/// let notes = PathInRoot::new("/srv/notes", "todo.md")?;
/// let text = notes.read_to_string(1024 * 1024).await?;
/// # let _ = text;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct PathInRoot {
    root: PathBuf,
    dir: Arc<Dir>,
    relative: PathBuf,
}

/// Why an operation of a [`PathInRoot`] was refused: its path leads outside the root (through
/// `..`, an absolute path or a symlink). Carried inside the [`io::Error`] (of kind
/// [`io::ErrorKind::PermissionDenied`]); tell it apart with [`is_cause_of`](Self::is_cause_of).
#[derive(Debug)]
pub struct OutsideRoot {
    path: PathBuf,
}

impl OutsideRoot {
    /// Whether `err` is this refusal.
    pub fn is_cause_of(err: &io::Error) -> bool {
        err.get_ref().is_some_and(|inner| inner.is::<Self>())
    }

    /// The path, joined to its root.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl std::fmt::Display for OutsideRoot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} leads outside its root", self.path.display())
    }
}

impl std::error::Error for OutsideRoot {}

/// One entry of a folder listed by [`PathInRoot::list`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolderEntry {
    /// The entry's name (lossily converted to UTF-8).
    pub name: String,
    /// Whether it is a folder (a symlink is not followed to tell).
    pub is_dir: bool,
}

impl PathInRoot {
    /// `relative` beneath the folder `root`, which is opened now (the root itself may be, or be
    /// reached through, a symlink: it is trusted). `relative` is checked at each operation.
    pub fn new(root: impl Into<PathBuf>, relative: impl Into<PathBuf>) -> io::Result<Self> {
        let root = root.into();
        let dir = Dir::open_ambient_dir(&root, cap_std::ambient_authority())?;
        Ok(Self { root, dir: Arc::new(dir), relative: relative.into() })
    }

    /// The same root, another path beneath it.
    pub fn sibling(&self, relative: impl Into<PathBuf>) -> Self {
        Self { root: self.root.clone(), dir: Arc::clone(&self.dir), relative: relative.into() }
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The path relative to the root.
    pub fn relative(&self) -> &Path {
        &self.relative
    }

    /// The root joined with the relative path, for messages (never open it yourself: that
    /// would follow links again).
    pub fn display_path(&self) -> PathBuf {
        self.root.join(&self.relative)
    }

    /// Opens the file for reading.
    pub async fn open(&self) -> io::Result<std::fs::File> {
        self.beneath(|dir, path| Ok(dir.open(path)?.into_std())).await
    }

    /// Creates the file for writing, or truncates it if it exists. Its folder must exist.
    pub async fn create(&self) -> io::Result<std::fs::File> {
        self.beneath(|dir, path| create(dir, path).map(cap_std::fs::File::into_std)).await
    }

    /// The file's contents, if it is a regular file of at most `limit` bytes (else an error of
    /// kind [`io::ErrorKind::FileTooLarge`], read no further than `limit` bytes).
    pub async fn read(&self, limit: u64) -> io::Result<Vec<u8>> {
        self.beneath(move |dir, path| read_capped(dir, path, limit)).await
    }

    /// The file's contents as UTF-8 text, with [`read`](Self::read)'s limit.
    pub async fn read_to_string(&self, limit: u64) -> io::Result<String> {
        let bytes = self.read(limit).await?;
        String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "the file is not UTF-8 text"))
    }

    /// Writes `contents` to the file, creating it or replacing what it held.
    pub async fn write(&self, contents: impl Into<Vec<u8>>) -> io::Result<()> {
        let contents = contents.into();
        self.beneath(move |dir, path| io::Write::write_all(&mut create(dir, path)?, &contents)).await
    }

    /// The folder's entries, sorted by name.
    pub async fn list(&self) -> io::Result<Vec<FolderEntry>> {
        self.beneath(|dir, path| {
            let mut entries = Vec::new();
            for entry in dir.read_dir(path)? {
                let entry = entry?;
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                entries.push(FolderEntry { name: entry.file_name().to_string_lossy().into_owned(), is_dir });
            }
            entries.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(entries)
        })
        .await
    }

    /// Deletes the file (a symlink is deleted itself, not its target).
    pub async fn remove_file(&self) -> io::Result<()> {
        self.beneath(|dir, path| dir.remove_file(path)).await
    }

    /// Runs `operation` on the root's handle and the relative path, on the blocking pool.
    async fn beneath<T: Send + 'static>(
        &self,
        operation: impl FnOnce(&Dir, &Path) -> io::Result<T> + Send + 'static,
    ) -> io::Result<T> {
        let (dir, relative) = (Arc::clone(&self.dir), self.relative.clone());
        let path = if relative.as_os_str().is_empty() { PathBuf::from(".") } else { relative };
        let outcome = tokio::task::spawn_blocking(move || operation(&dir, &path)).await.map_err(io::Error::other)?;
        outcome.map_err(|err| {
            // cap-std's refusal to leave the directory (also `openat2`'s EXDEV).
            let escaped = err.kind() == io::ErrorKind::PermissionDenied
                && err.get_ref().is_some_and(|inner| inner.to_string() == "a path led outside of the filesystem");
            if escaped {
                io::Error::new(io::ErrorKind::PermissionDenied, OutsideRoot { path: self.display_path() })
            } else {
                err
            }
        })
    }
}

fn create(dir: &Dir, path: &Path) -> io::Result<cap_std::fs::File> {
    dir.open_with(path, OpenOptions::new().write(true).create(true).truncate(true))
}

fn too_large(limit: u64) -> io::Error {
    io::Error::new(io::ErrorKind::FileTooLarge, format!("the file is larger than {limit} bytes"))
}

fn read_capped(dir: &Dir, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    // Checked before opening: opening a FIFO or a device for reading may block or have effects.
    if !dir.metadata(path)?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let file = dir.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    if metadata.len() > limit {
        return Err(too_large(limit));
    }
    let mut contents = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // One byte past the limit tells a file that grew since from one that is exactly `limit`.
    file.into_std().take(limit.saturating_add(1)).read_to_end(&mut contents)?;
    if contents.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(contents)
}

/// Which of `roots` holds `path`, and the path relative to it: a relative path is taken
/// relative to the first root; an absolute one must start with a root (as the client spelled
/// it, or canonicalized). `None` when no root holds it.
pub(crate) fn locate<'r>(roots: &'r [PathBuf], path: &Path) -> Option<(&'r Path, PathBuf)> {
    if !path.has_root() && !matches!(path.components().next(), Some(Component::Prefix(_))) {
        return roots.first().map(|root| (root.as_path(), path.to_path_buf()));
    }
    roots.iter().find_map(|root| {
        let relative = path.strip_prefix(root).ok().map(Path::to_path_buf).or_else(|| {
            let canonical = root.canonicalize().ok()?;
            path.strip_prefix(canonical).ok().map(Path::to_path_buf)
        })?;
        Some((root.as_path(), relative))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder `<tmp>/<test>-<pid>` holding `root/` (with `inside.txt`, `sub/` and
    /// `link -> inside.txt`) and `outside/secret.txt`; returns the base.
    fn layout(test: &str) -> PathBuf {
        let base = std::env::temp_dir().join(format!("mcp-path-in-root-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("root/sub")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("root/inside.txt"), "inside").unwrap();
        std::fs::write(base.join("outside/secret.txt"), "secret").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("inside.txt", base.join("root/link")).unwrap();
        base
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn links_out_of_the_root_are_refused_and_links_within_it_work() {
        let base = layout("links");
        let root = base.join("root");
        std::os::unix::fs::symlink(base.join("outside/new.txt"), root.join("dangling")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), root.join("out")).unwrap();
        let at = |relative: &str| PathInRoot::new(&root, relative).unwrap();

        let refused = at("dangling").write("planted").await.unwrap_err();
        assert!(OutsideRoot::is_cause_of(&refused), "{refused}");
        assert!(!base.join("outside/new.txt").exists(), "the dangling link's target was created");
        for path in ["out/secret.txt", "../outside/secret.txt", "sub/../../outside/secret.txt"] {
            let refused = at(path).read_to_string(1024).await.unwrap_err();
            assert!(OutsideRoot::is_cause_of(&refused), "{path}: {refused}");
            assert!(refused.to_string().ends_with("leads outside its root"), "{refused}");
        }
        assert!(OutsideRoot::is_cause_of(&at("out").list().await.unwrap_err()));
        // A file checked (opened) once, then swapped for a link out of the root: still refused.
        let swapped = at("swapped.txt");
        swapped.write("mine").await.unwrap();
        std::fs::remove_file(root.join("swapped.txt")).unwrap();
        std::os::unix::fs::symlink(base.join("outside/secret.txt"), root.join("swapped.txt")).unwrap();
        assert!(OutsideRoot::is_cause_of(&swapped.write("overwritten").await.unwrap_err()));
        assert_eq!(std::fs::read_to_string(base.join("outside/secret.txt")).unwrap(), "secret");
        assert!(OutsideRoot::is_cause_of(&at("/etc/hostname").read(1024).await.unwrap_err()));

        assert_eq!(at("link").read_to_string(1024).await.unwrap(), "inside");
        at("sub/new.txt").write("new").await.unwrap();
        assert_eq!(std::fs::read_to_string(root.join("sub/new.txt")).unwrap(), "new");
        let names: Vec<_> = at("").list().await.unwrap().into_iter().map(|e| (e.name, e.is_dir)).collect();
        let expected = [
            ("dangling", false),
            ("inside.txt", false),
            ("link", false),
            ("out", false),
            ("sub", true),
            ("swapped.txt", false),
        ];
        assert_eq!(names, expected.map(|(n, d)| (n.to_owned(), d)));
        at("link").remove_file().await.unwrap();
        assert!(root.join("inside.txt").exists(), "removing a link leaves its target");
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[tokio::test]
    async fn reads_stop_at_the_limit() {
        let base = layout("limit");
        let file = PathInRoot::new(base.join("root"), "inside.txt").unwrap();
        assert_eq!(file.read(6).await.unwrap(), b"inside");
        let err = file.read(5).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge, "{err}");
        let err = file.sibling("sub").read(1024).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "a folder is not read: {err}");
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn paths_are_located_in_the_root_that_holds_them() {
        let roots = [PathBuf::from("/home/me/a"), PathBuf::from("/home/me/b")];
        assert_eq!(locate(&roots, Path::new("x/y")), Some((roots[0].as_path(), PathBuf::from("x/y"))));
        assert_eq!(locate(&roots, Path::new("/home/me/b/z")), Some((roots[1].as_path(), PathBuf::from("z"))));
        assert_eq!(locate(&roots, Path::new("/home/me/b")), Some((roots[1].as_path(), PathBuf::new())));
        assert_eq!(locate(&roots, Path::new("/home/me/bb/z")), None);
        assert_eq!(locate(&roots, Path::new("/etc/passwd")), None);
        assert_eq!(locate(&[], Path::new("x")), None);
    }
}
