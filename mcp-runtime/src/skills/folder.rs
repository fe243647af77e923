//! Finding the skills of a folder: every directory with a `SKILL.md` is a skill, named by its
//! front matter, which must match the directory's name; its files are everything beneath it.
//! The folder is walked through a cap-std handle, so no path leads out of it: a symlink out is
//! refused, one to a directory inside is not followed (it could loop), one to a file inside is
//! served. Names beginning with `.` are left out.

use super::frontmatter;
use super::library::{DIRECTORY, File, Library, digest, object};
use crate::error::{Error, ErrorKind, Result};
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;

/// The extension's limits per skill: files (`SKILL.md` included) and bytes in all.
pub(super) const MAX_FILES: usize = 512;
pub(super) const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// How deep the walk goes, and how many entries it looks at, before it calls the folder a mistake.
const MAX_DEPTH: usize = 32;
const MAX_ENTRIES: usize = 100_000;
/// A `skills/list` page ends before the entry that would take it past this many bytes of JSON
/// (a page holds one entry at least).
const PAGE_BYTES: usize = 256 * 1024;

/// Indexes the skills of `root`; a configuration error naming the first thing that is wrong.
pub(crate) fn load(root: &Path) -> Result<Library> {
    let refuse = |message: String| Error::new(ErrorKind::Config, format!("skills in {}: {message}", root.display()));
    let dir = Dir::open_ambient_dir(root, ambient_authority()).map_err(|e| refuse(format!("cannot open: {e}")))?;
    let mut walk = Walk { dir: &dir, files: BTreeMap::new(), directories: BTreeSet::new(), seen: 0 };
    walk.directory("", 0).map_err(refuse)?;
    let Walk { files: sizes, directories, .. } = walk;

    let skill_dirs: Vec<&String> = directories.iter().filter(|d| sizes.contains_key(&join(d, "SKILL.md"))).collect();
    if sizes.contains_key("SKILL.md") {
        return Err(refuse("SKILL.md sits at the top: put each skill in a folder named after it".into()));
    }
    let mut files: HashMap<String, File> = HashMap::new();
    let mut entries = Vec::new();
    for skill in &skill_dirs {
        let prefix = join(skill, "");
        let within: Vec<(&String, u64)> =
            sizes.range(prefix.clone()..).take_while(|(f, _)| f.starts_with(&prefix)).map(|(f, &s)| (f, s)).collect();
        let total: u64 = within.iter().map(|(_, size)| size).sum();
        if within.len() > MAX_FILES || total > MAX_BYTES {
            return Err(refuse(format!(
                "the skill {skill} has {} files of {total} bytes, past the extension's limits \
                 ({MAX_FILES} files, {MAX_BYTES} bytes)",
                within.len()
            )));
        }
        let manifest = join(skill, "SKILL.md");
        let (file, bytes) = hash(&dir, &manifest, sizes[&manifest]).map_err(refuse)?;
        let text = String::from_utf8(bytes).map_err(|_| refuse(format!("{manifest} is not UTF-8")))?;
        let frontmatter = frontmatter::parse(&text).map_err(|why| refuse(format!("{manifest}: {why}")))?;
        let folder_name = skill.rsplit('/').next().unwrap_or(skill);
        if frontmatter["name"] != folder_name {
            let name = &frontmatter["name"];
            return Err(refuse(format!("{manifest}: its name {name} differs from its folder's, {folder_name:?}")));
        }
        files.insert(uri(&manifest), file);
        let mut resources = Vec::with_capacity(within.len());
        for (relative, size) in within {
            let uri = uri(relative);
            if !files.contains_key(&uri) {
                files.insert(uri.clone(), hash(&dir, relative, size).map_err(refuse)?.0);
            }
            resources.push(json!({ "uri": uri, "digest": files[&uri].digest, "size": size }));
        }
        entries.push(json!({ "uri": uri(&manifest), "frontmatter": frontmatter, "resources": resources }));
    }
    entries.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));

    let by_uri = entries.iter().enumerate().filter_map(|(i, e)| Some((e["uri"].as_str()?.to_owned(), i))).collect();
    let pages = pages(&entries);
    let directories = children(&skill_dirs, &directories, &files);
    Ok(Library { dir: Arc::new(dir), entries, by_uri, pages, files, directories })
}

/// What the walk found: each file's size, and each directory, by `/`-separated path.
struct Walk<'a> {
    dir: &'a Dir,
    files: BTreeMap<String, u64>,
    directories: BTreeSet<String>,
    seen: usize,
}

impl Walk<'_> {
    fn directory(&mut self, relative: &str, depth: usize) -> std::result::Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("{relative} is more than {MAX_DEPTH} folders deep"));
        }
        self.directories.insert(relative.to_owned());
        let path = if relative.is_empty() { "." } else { relative };
        let listing = self.dir.read_dir(path).map_err(|e| format!("cannot list {path}: {e}"))?;
        for entry in listing {
            let entry = entry.map_err(|e| format!("cannot list {path}: {e}"))?;
            self.seen += 1;
            if self.seen > MAX_ENTRIES {
                return Err(format!("it holds more than {MAX_ENTRIES} files and folders"));
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                tracing::warn!("skills: {relative}/{} is not served: its name is not UTF-8", name.to_string_lossy());
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let child = join(relative, name);
            let kind = entry.file_type().map_err(|e| format!("{child}: {e}"))?;
            if kind.is_dir() {
                self.directory(&child, depth + 1)?;
            } else if kind.is_file() {
                let size = entry.metadata().map_err(|e| format!("{child}: {e}"))?.len();
                self.files.insert(child, size);
            } else if kind.is_symlink() {
                // Followed through the folder's handle: a target outside it is an error here.
                let target = self
                    .dir
                    .metadata(&child)
                    .map_err(|e| format!("{child} is a symlink that leads outside the folder or nowhere ({e})"))?;
                if target.is_file() {
                    self.files.insert(child, target.len());
                } else {
                    tracing::warn!("skills: {child} is not served: a symlink to a folder is not followed");
                }
            }
        }
        Ok(())
    }
}

/// Reads a file whole (at most the per-skill limit) for its digest and kind; its bytes too.
fn hash(dir: &Dir, relative: &str, size: u64) -> std::result::Result<(File, Vec<u8>), String> {
    let opened = dir.open(relative).map_err(|e| format!("cannot open {relative}: {e}"))?;
    let mut bytes = Vec::new();
    opened.take(MAX_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {relative}: {e}"))?;
    if bytes.len() as u64 != size {
        return Err(format!("{relative} changed while the skills were read"));
    }
    let (mime_type, textual) = media_type(relative);
    let text = textual.unwrap_or(true) && std::str::from_utf8(&bytes).is_ok();
    let mime_type = match textual {
        None if !text => "application/octet-stream",
        _ => mime_type,
    };
    Ok((File { relative: relative.to_owned(), size, digest: digest(&bytes), mime_type, text }, bytes))
}

/// The media type a file's extension says, and whether it is text (`None`: unknown, text if
/// its bytes are UTF-8).
fn media_type(relative: &str) -> (&'static str, Option<bool>) {
    let extension = relative.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => ("text/markdown", Some(true)),
        "txt" => ("text/plain", Some(true)),
        "json" => ("application/json", Some(true)),
        "yaml" | "yml" => ("application/yaml", Some(true)),
        "toml" => ("application/toml", Some(true)),
        "xml" => ("application/xml", Some(true)),
        "html" | "htm" => ("text/html", Some(true)),
        "csv" => ("text/csv", Some(true)),
        "py" => ("text/x-python", Some(true)),
        "sh" => ("application/x-sh", Some(true)),
        "js" | "mjs" => ("text/javascript", Some(true)),
        "ts" => ("text/x-typescript", Some(true)),
        "rs" => ("text/x-rust", Some(true)),
        "svg" => ("image/svg+xml", Some(true)),
        "png" => ("image/png", Some(false)),
        "jpg" | "jpeg" => ("image/jpeg", Some(false)),
        "gif" => ("image/gif", Some(false)),
        "webp" => ("image/webp", Some(false)),
        "pdf" => ("application/pdf", Some(false)),
        "zip" => ("application/zip", Some(false)),
        _ => ("text/plain", None),
    }
}

/// Splits the entries into pages of whole entries, each under [`PAGE_BYTES`] unless one entry
/// alone is larger.
fn pages(entries: &[Value]) -> Vec<std::ops::Range<usize>> {
    let mut pages = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, entry) in entries.iter().enumerate() {
        let size = entry.to_string().len();
        if i > start && bytes + size > PAGE_BYTES {
            pages.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += size;
    }
    if start < entries.len() {
        pages.push(start..entries.len());
    }
    pages
}

/// The children of every directory resource: each skill's directory and those beneath it
/// (files and folders), and the folders above skills (the folders that lead to them).
fn children(
    skills: &[&String],
    directories: &BTreeSet<String>,
    files: &HashMap<String, File>,
) -> HashMap<String, Vec<Value>> {
    let inside = |d: &str| skills.iter().any(|s| d == s.as_str() || d.starts_with(&join(s, "")));
    let above = |d: &str| !d.is_empty() && skills.iter().any(|s| s.starts_with(&join(d, "")));
    let served: Vec<&String> = directories.iter().filter(|d| inside(d) || above(d)).collect();
    let mut listing: HashMap<String, Vec<Value>> = served.iter().map(|d| (uri(d), Vec::new())).collect();
    for directory in &served {
        if let Some((parent, name)) = directory.rsplit_once('/')
            && let Some(siblings) = listing.get_mut(&uri(parent))
        {
            siblings.push(object([
                ("uri", uri(directory).into()),
                ("name", name.into()),
                ("mimeType", DIRECTORY.into()),
            ]));
        }
    }
    for (file_uri, file) in files {
        let (parent, name) = file.relative.rsplit_once('/').unwrap_or(("", &file.relative));
        if let Some(siblings) = listing.get_mut(&uri(parent)) {
            siblings.push(object([
                ("uri", file_uri.as_str().into()),
                ("name", name.into()),
                ("mimeType", file.mime_type.into()),
                ("size", file.size.into()),
            ]));
        }
    }
    for siblings in listing.values_mut() {
        siblings.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    }
    listing
}

/// `parent/name` (`name` alone at the top).
fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() { name.to_owned() } else { format!("{parent}/{name}") }
}

/// The `skill://` URI of a path in the folder: each segment percent-encoded but for RFC 3986's
/// unreserved characters and sub-delimiters (so the first stays a valid `reg-name`).
pub(super) fn uri(relative: &str) -> String {
    let mut uri = String::from("skill://");
    for (i, segment) in relative.split('/').enumerate() {
        if i > 0 {
            uri.push('/');
        }
        for &byte in segment.as_bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&byte) {
                uri.push(byte as char);
            } else {
                uri.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    uri
}
