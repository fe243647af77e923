//! One pass over the arguments' object: each member the tool names is decoded where it stands,
//! into its parameter's slot, and the others are skipped. The object is valid JSON (the request
//! was parsed), so the pass reads only its frame: braces, keys, colons and commas.

use super::slot::Slot;
use serde::de::IgnoredAny;

/// Fills `slots` from the members of `object` named in `names`, and returns how many it filled.
/// `None` when the pass cannot finish: `object` is not an object, a key is written with escapes, a member is given twice or
/// its value is not of its parameter's type. Slots may then be filled in part.
pub(super) fn fill(object: &str, names: &[&str], slots: &mut [&mut dyn Slot]) -> Option<usize> {
    let mut rest = after(object, b'{')?;
    let mut filled = 0;
    if rest.starts_with('}') {
        return Some(filled);
    }
    loop {
        let (key, value) = key(rest)?;
        let value = after(value, b':')?;
        let length = match names.iter().position(|name| *name == key) {
            Some(index) if !slots[index].is_filled() => {
                filled += 1;
                slots[index].fill(value)?
            }
            Some(_) => return None,
            None => skip(value)?,
        };
        rest = value.get(length..)?.trim_ascii_start();
        match rest.as_bytes().first()? {
            b',' => rest = rest[1..].trim_ascii_start(),
            b'}' => return Some(filled),
            _ => return None,
        }
    }
}

/// What follows `byte` (and whitespace) at the start of `json`, whitespace and all.
fn after(json: &str, byte: u8) -> Option<&str> {
    let json = json.trim_ascii_start();
    (json.as_bytes().first() == Some(&byte)).then(|| json[1..].trim_ascii_start())
}

/// The text of the key `json` starts with, and what follows it; `None` for a key written with
/// escapes, whose text is not what it means.
fn key(json: &str) -> Option<(&str, &str)> {
    let quoted = json.strip_prefix('"')?;
    let end = quoted.bytes().position(|byte| matches!(byte, b'"' | b'\\'))?;
    (quoted.as_bytes()[end] == b'"').then(|| (&quoted[..end], &quoted[end + 1..]))
}

/// The length of the JSON value `json` starts with.
fn skip(json: &str) -> Option<usize> {
    let mut values = serde_json::Deserializer::from_str(json).into_iter::<IgnoredAny>();
    values.next()?.ok()?;
    Some(values.byte_offset())
}
