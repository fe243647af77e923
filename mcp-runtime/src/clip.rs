//! A client's strings echoed in messages: at most a short prefix, so an error cannot be made to
//! carry back (and a replay buffer to keep) whatever a client sent as a name.

use std::fmt;

/// How many characters of a client's name (a tool, a URI, a method) a message repeats.
const NAME_CHARS: usize = 64;

/// How many characters of a parser's message a message repeats: serde quotes the value it
/// could not read (`invalid type: string "..."`), which is the client's too.
const PROBLEM_CHARS: usize = 256;

/// `name` for a message: whole when short, else its first 64 characters, an ellipsis and its
/// full length in bytes.
pub(crate) fn clip(name: &str) -> Clipped<'_> {
    Clipped { text: name, chars: NAME_CHARS }
}

/// A parser's message about a client's input, cut like [`clip`] but longer (256 characters).
pub(crate) fn clip_problem(problem: &str) -> Clipped<'_> {
    Clipped { text: problem, chars: PROBLEM_CHARS }
}

/// See [`clip`].
pub(crate) struct Clipped<'a> {
    text: &'a str,
    chars: usize,
}

impl Clipped<'_> {
    /// The prefix a message shows, on a character boundary.
    fn shown(&self) -> &str {
        match self.text.char_indices().nth(self.chars) {
            Some((end, _)) => &self.text[..end],
            None => self.text,
        }
    }
}

impl fmt::Display for Clipped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.shown();
        f.write_str(shown)?;
        if shown.len() < self.text.len() {
            write!(f, "… ({} bytes)", self.text.len())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::clip;

    #[test]
    fn short_strings_are_echoed_whole_and_long_ones_cut_on_a_character_boundary() {
        assert_eq!(clip("add").to_string(), "add");
        let long = "é".repeat(1_000_000);
        let shown = clip(&long).to_string();
        assert_eq!(shown, format!("{}… (2000000 bytes)", "é".repeat(64)));
    }
}
