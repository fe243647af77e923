//! The skills extension (SEP-2640, `io.modelcontextprotocol/skills`) as a host uses it, on the
//! client's generic `request` and `read_resource`: skills are listed with `skills/list`, and a
//! skill's files are read only when it is loaded, each checked against its entry before
//! anything further is read: its size, its SHA-256 digest, and for `SKILL.md` its frontmatter,
//! field by field. A skill that fails a check is not loaded.

use super::{Outcome, Run};
use base64::Engine as _;
use mcp_runtime::ResourceContents;
use mcp_runtime::client::Client;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use std::collections::BTreeMap;

/// `sep-2640-client-no-prefetch`: the skills are listed, and no file is read ahead of need.
pub async fn list_only(run: &Run) -> Outcome {
    let client = run.connect().await?;
    let skills = list(&client).await?;
    tracing::info!("{} skill(s) listed, none loaded", skills.len());
    client.close().await;
    Ok(())
}

/// `sep-2640-client-verify-{digest,size,frontmatter}`: every listed skill loaded, or refused
/// at its first file that does not match its entry.
pub async fn load_all(run: &Run) -> Outcome {
    let client = run.connect().await?;
    for skill in list(&client).await? {
        let uri = skill.get("uri").and_then(Value::as_str).unwrap_or_default();
        match load(&client, &skill).await {
            Ok(files) => tracing::info!("loaded the skill {uri} ({files} files)"),
            Err(why) => tracing::warn!("refused the skill {uri}: {why}"),
        }
    }
    client.close().await;
    Ok(())
}

async fn list(client: &Client) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    let mut result = client.request("skills/list", json!({})).await?;
    let skills = result.get_mut("skills").map(Value::take).unwrap_or_default();
    Ok(serde_json::from_value(skills)?)
}

/// Reads the skill's `SKILL.md` (its entry's `uri`), then its other files, each verified
/// before the next is read; the number of files read.
async fn load(client: &Client, skill: &Value) -> Result<usize, String> {
    let main = skill.get("uri").and_then(Value::as_str).ok_or("an entry without uri")?;
    let files = skill.get("resources").and_then(Value::as_array).cloned().unwrap_or_default();
    let file = |uri: &str| files.iter().find(|f| f.get("uri").and_then(Value::as_str) == Some(uri)).cloned();
    let text = fetch(client, &file(main).ok_or("SKILL.md is not among its resources")?).await?;
    let expected = skill.get("frontmatter").and_then(Value::as_object).ok_or("an entry without frontmatter")?;
    let expected: BTreeMap<String, String> = expected.iter().map(|(k, v)| (k.clone(), plain(v))).collect();
    let found = frontmatter(&text).ok_or("SKILL.md has no frontmatter")?;
    if found != expected {
        return Err(format!("SKILL.md's frontmatter {found:?} differs from the entry's {expected:?}"));
    }
    for other in files.iter().filter(|f| f.get("uri").and_then(Value::as_str) != Some(main)) {
        fetch(client, other).await?;
    }
    Ok(files.len())
}

/// Reads the file of a `resources` entry and checks its size and digest.
async fn fetch(client: &Client, entry: &Value) -> Result<String, String> {
    let uri = entry.get("uri").and_then(Value::as_str).ok_or("a file without uri")?;
    let read = client.read_resource(uri).await.map_err(|e| format!("{uri}: {e}"))?;
    let bytes = match read.contents.first() {
        Some(ResourceContents::Text { text, .. }) => text.clone().into_bytes(),
        Some(ResourceContents::Blob { blob, .. }) => {
            base64::engine::general_purpose::STANDARD.decode(blob).map_err(|e| format!("{uri}: {e}"))?
        }
        _ => return Err(format!("{uri}: no contents")),
    };
    if let Some(size) = entry.get("size").and_then(Value::as_u64)
        && size != bytes.len() as u64
    {
        return Err(format!("{uri}: {} bytes where the entry says {size}", bytes.len()));
    }
    let digest = format!("sha256:{:x}", Sha256::digest(&bytes));
    match entry.get("digest").and_then(Value::as_str) {
        Some(expected) if expected.eq_ignore_ascii_case(&digest) => {}
        other => return Err(format!("{uri}: digest {digest} where the entry says {other:?}")),
    }
    String::from_utf8(bytes).map_err(|_| format!("{uri}: not UTF-8"))
}

/// The `key: value` lines between a file's opening `---` and the next: the flat frontmatter
/// skills carry (nested YAML is not needed by any field the entry repeats).
fn frontmatter(text: &str) -> Option<BTreeMap<String, String>> {
    let body = text.strip_prefix("---\n")?;
    let block = &body[..body.find("\n---")?];
    let fields = block.lines().filter_map(|line| line.split_once(':'));
    Some(fields.map(|(key, value)| (key.trim().to_owned(), unquoted(value.trim()))).collect())
}

fn unquoted(value: &str) -> String {
    let quoted = value.len() >= 2
        && ((value.starts_with('"') && value.ends_with('"')) || (value.starts_with('\'') && value.ends_with('\'')));
    if quoted { value[1..value.len() - 1].to_owned() } else { value.to_owned() }
}

/// A JSON value as the text YAML would show it.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
