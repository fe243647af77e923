//! What a folder of skills serves, as found when the server was built: each skill's entry, each
//! file (where it lies, its size and digest), each directory's children. Files are read again
//! on each `resources/read`, through the folder's handle, and served only if they still match.

use cap_std::fs::Dir;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Read as _;
use std::ops::Range;
use std::sync::Arc;

/// The `mimeType` of a directory resource.
pub(super) const DIRECTORY: &str = "inode/directory";

/// A folder of skills, indexed.
pub(crate) struct Library {
    pub(super) dir: Arc<Dir>,
    /// The `skills/list` entries, in URI order.
    pub(super) entries: Vec<Value>,
    /// The entry of each `SKILL.md` URI, by its index in `entries`.
    pub(super) by_uri: HashMap<String, usize>,
    /// `skills/list` pages: whole entries each, so no skill's `resources` is split.
    pub(super) pages: Vec<Range<usize>>,
    pub(super) files: HashMap<String, File>,
    /// Each directory resource's children, as `resources/directory/read` lists them.
    pub(super) directories: HashMap<String, Vec<Value>>,
}

/// One file of a skill.
pub(super) struct File {
    /// Its path in the folder, `/`-separated.
    pub relative: String,
    pub size: u64,
    /// `sha256:` and 64 lowercase hexadecimal digits.
    pub digest: String,
    pub mime_type: &'static str,
    /// Served as text (else base64).
    pub text: bool,
}

impl Library {
    /// The `SKILL.md` resources: URI, frontmatter `name` and `description`, size.
    pub(super) fn manifests(&self) -> impl Iterator<Item = (&str, &str, &str, u64)> {
        self.entries.iter().filter_map(|entry| {
            let uri = entry["uri"].as_str()?;
            let frontmatter = &entry["frontmatter"];
            let size = self.files.get(uri)?.size;
            Some((uri, frontmatter["name"].as_str()?, frontmatter["description"].as_str()?, size))
        })
    }

    /// The page of entries a cursor names (`None`: the first), with the next page's cursor.
    pub(super) fn page(&self, cursor: Option<&str>) -> Option<(&[Value], Option<String>)> {
        let number = match cursor {
            None => 0,
            Some(cursor) => cursor.parse::<usize>().ok()?,
        };
        let Some(range) = self.pages.get(number) else {
            // No skills: one empty page.
            return (number == 0).then_some((&[][..], None));
        };
        let next = (number + 1 < self.pages.len()).then(|| (number + 1).to_string());
        Some((&self.entries[range.clone()], next))
    }

    /// Reads a file's bytes now: the bytes listed, else an error saying the file changed.
    pub(super) fn read(&self, file: &File) -> Result<Vec<u8>, String> {
        let changed =
            || format!("{} changed after the server listed it: restart the server to serve it", file.relative);
        let opened = self.dir.open(&file.relative).map_err(|e| format!("cannot open {}: {e}", file.relative))?;
        let mut bytes = Vec::with_capacity(usize::try_from(file.size).unwrap_or(0));
        // One byte more than listed tells a file that grew, without reading all of it.
        opened
            .take(file.size + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {}: {e}", file.relative))?;
        if bytes.len() as u64 != file.size || digest(&bytes) != file.digest {
            return Err(changed());
        }
        Ok(bytes)
    }
}

/// `sha256:{hex}` of `bytes`.
pub(super) fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hash {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// A `resources/directory/read` child or a `skills/list` file, as JSON.
pub(super) fn object(pairs: impl IntoIterator<Item = (&'static str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(key, value)| (key.to_owned(), value)).collect::<Map<_, _>>())
}
