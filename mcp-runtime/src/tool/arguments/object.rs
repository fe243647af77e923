//! One pass over the arguments' object: each member the tool names is decoded where it stands,
//! into its parameter's slot, and the others are skipped. The object is valid JSON (the request
//! was parsed), so the pass reads only its frame: braces, keys, colons and commas.

use super::slot::Slot;
use serde::de::IgnoredAny;

/// Fills `slots` from the members of `object` named in `names`. `None` when the pass cannot
/// finish: `object` is not an object, a key is written with escapes, a member is given twice or
/// its value is not of its parameter's type. Slots may then be filled in part.
pub(super) fn fill(object: &str, names: &[&str], slots: &mut [&mut dyn Slot]) -> Option<()> {
    let mut frame = Frame { text: object, at: 0 };
    frame.expect(b'{')?;
    if frame.eat(b'}') {
        return Some(());
    }
    loop {
        let key = frame.key()?;
        frame.expect(b':')?;
        frame.skip_whitespace();
        let value = &object[frame.at..];
        frame.at += match names.iter().position(|name| *name == key) {
            Some(index) if !slots[index].is_filled() => slots[index].fill(value)?,
            Some(_) => return None,
            None => skip(value)?,
        };
        if !frame.eat(b',') {
            return frame.expect(b'}');
        }
    }
}

/// The length of the JSON value `json` starts with.
fn skip(json: &str) -> Option<usize> {
    let mut values = serde_json::Deserializer::from_str(json).into_iter::<IgnoredAny>();
    values.next()?.ok()?;
    Some(values.byte_offset())
}

/// The object's text and how far the pass has read it.
struct Frame<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Frame<'a> {
    fn skip_whitespace(&mut self) {
        let rest = &self.text.as_bytes()[self.at..];
        self.at += rest.iter().take_while(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r')).count();
    }

    /// Reads `byte`, after whitespace, if it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        self.skip_whitespace();
        let next = self.text.as_bytes().get(self.at) == Some(&byte);
        self.at += usize::from(next);
        next
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    /// A key's text; `None` for one with escapes, whose text is not what it means.
    fn key(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.at;
        let rest = &self.text.as_bytes()[start..];
        let length = rest.iter().position(|byte| matches!(byte, b'"' | b'\\'))?;
        if rest[length] != b'"' {
            return None;
        }
        self.at += length + 1;
        Some(&self.text[start..start + length])
    }
}
