//! Schema profiles: the form of tool schemas each client accepts, chosen from the client's
//! `clientInfo.name` (or forced on the [`Server`](crate::Server)), and the reshaped schemas.
//!
//! What each client documents or was seen to refuse (the sources are cited on each variant and
//! in the README's "Schemas every client accepts"): `$ref`/`$defs` (Cursor, opencode, Kiro and
//! Gemini CLI fail to resolve them), formats JSON Schema does not define (schemars' `uint32`,
//! `double`: the MCP Inspector's Ajv warns on each call), `anyOf` with `{"type": "null"}` for an
//! `Option` (OpenAPI-subset clients), `$schema` 2020-12 (VS Code's validator refuses its meta
//! schema), `oneOf`/`anyOf`/`allOf` at the root (Anthropic's API; a derived input schema's root
//! is always a plain object, which the tests check for every profile). The shapes are computed once
//! per tool and profile, when first listed, and kept with the list pages; argument validation
//! (feature `validation`) keeps the full schema.

mod shape;

pub(crate) use shape::{input, output};

use crate::protocol::Implementation;

/// The form of the tool schemas sent to a client in `tools/list`.
///
/// The server picks one per client from its `clientInfo.name` (sent in `initialize`, or in the
/// `io.modelcontextprotocol/clientInfo` member of `_meta` in 2026-07-28), see
/// [`SchemaProfile::for_client`]; [`Server::schema_profile`](crate::Server::schema_profile)
/// forces one for every client and [`Server::schema_profile_for`](crate::Server::schema_profile_for)
/// names one for a client. Only the schemas derived by schemars are reshaped: a hand-written
/// `#[mcp_tool(input_schema = ...)]` is sent as written to every client.
///
/// ```
/// use mcp_runtime::SchemaProfile;
///
/// assert_eq!(SchemaProfile::for_client("claude-ai"), SchemaProfile::Portable);
/// assert_eq!(SchemaProfile::for_client("gemini-cli-mcp-client"), SchemaProfile::Gemini);
/// assert_eq!(SchemaProfile::default(), SchemaProfile::Portable);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaProfile {
    /// What schemars produced (the 2020-12 dialect), only without the root's `title` and
    /// `$schema`: `$ref`s into `$defs`, formats such as `uint32` and `double`, `anyOf` with
    /// `{"type": "null"}` for an optional structure.
    Full,
    /// The default, for every client not named otherwise: a form the common clients accept
    /// (Claude Desktop and Claude Code, VS Code and Copilot, Cursor, Windsurf, the MCP
    /// Inspector, the official SDKs). The same values validate as with [`Full`](Self::Full),
    /// but for `null` given to an optional argument:
    ///
    /// - `$ref`s are replaced by the definitions they name, and `$defs` dropped, except for the
    ///   definitions of recursive types, which cannot be inlined: those stay in `$defs`,
    ///   referenced where the cycle closes;
    /// - formats JSON Schema does not define (`uint8` to `uint64`, `int8` to `int64`, `float`,
    ///   `double`...) are dropped; the width of an integer becomes `minimum`/`maximum` where it
    ///   says more than the type (`u8`: 0 to 255; `u32`: 0 to 4294967295; a `u64`'s minimum 0);
    /// - an optional property of an input schema (an `Option` argument) is its one type, without
    ///   `null`: leaving it out says the same, and the server still accepts `null`;
    /// - any other nullable value is `anyOf: [X, {"type": "null"}]`, never a `type` array (the MCP
    ///   Inspector's `--strict` warns on those), in input and output schemas alike.
    #[default]
    Portable,
    /// Gemini's OpenAPI 3.0 subset for function declarations (Gemini CLI), input schemas only:
    /// [`Portable`](Self::Portable), then no `$ref` at all (a recursive type is cut where it
    /// repeats, to an object of any shape), one `type` per schema (an optional value is
    /// `"nullable": true`; JSON Schema validators ignore that keyword, so the shape asks for
    /// the argument to be left out rather than `null`, which the server still accepts),
    /// `const` as a one-value `enum`, `oneOf` as `anyOf`, and only the keywords of Gemini's
    /// `Schema` object (<https://ai.google.dev/api/caching#Schema>); `x-mcp-header` is kept,
    /// the protocol needs it. Constraints Gemini ignores are dropped, so the arguments a model
    /// sends are still checked against the full schema (feature `validation`).
    Gemini,
    /// OpenAI's strict function calling (Structured Outputs' supported subset,
    /// <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>), input
    /// schemas only: [`Portable`](Self::Portable), then every object lists all its properties in
    /// `required` and says `"additionalProperties": false`; an optional property becomes
    /// nullable instead (the model sends `null` for it, which the server reads as absent), but
    /// for one mirrored in a header (`x-mcp-header`), which keeps the single type the protocol
    /// asks for and so must be sent;
    /// `oneOf` becomes `anyOf`; keywords strict mode refuses (`minLength`, `maxLength`,
    /// `uniqueItems`, `minProperties`, `patternProperties`, `not`, `if`...) and formats outside
    /// its list are dropped. No client is given it unless named: choose it with
    /// [`Server::schema_profile_for`](crate::Server::schema_profile_for) for a client that
    /// passes tool schemas to OpenAI with `strict: true`. A map (`HashMap`) stays an object with
    /// `additionalProperties`, which strict mode does not accept.
    OpenAiStrict,
}

impl SchemaProfile {
    /// Every profile, in the order of their index in the registry's per-profile pages.
    pub(crate) const ALL: [SchemaProfile; 4] = [Self::Full, Self::Portable, Self::Gemini, Self::OpenAiStrict];

    /// Where this profile's wire forms are kept (an index into [`ALL`](Self::ALL)).
    pub(crate) const fn index(self) -> usize {
        match self {
            Self::Full => 0,
            Self::Portable => 1,
            Self::Gemini => 2,
            Self::OpenAiStrict => 3,
        }
    }

    /// The profile the server picks for a client named `name` (its `clientInfo.name`) when the
    /// builder does not say otherwise: [`Gemini`](Self::Gemini) for Gemini CLI
    /// (`gemini-cli-mcp-client`, or any name containing `gemini`), [`Portable`](Self::Portable)
    /// for everyone else, which covers Claude Desktop (`claude-ai`), Claude Code
    /// (`claude-code`), VS Code (`Visual Studio Code`), Cursor (`cursor-vscode`), the MCP
    /// Inspector and unknown clients.
    pub fn for_client(name: &str) -> SchemaProfile {
        // Gemini CLI hands MCP schemas to the Gemini API, which refuses `$ref`s it cannot
        // resolve ("reference to undefined schema", google-gemini/gemini-cli#13326) and type
        // arrays (anomalyco/opencode#14234), and whose function declarations take an OpenAPI
        // 3.0 subset.
        if contains_ignoring_case(name, "gemini") { SchemaProfile::Gemini } else { SchemaProfile::Portable }
    }
}

/// Whether `haystack` contains `needle` (ASCII, lower case), ignoring ASCII case.
fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    haystack.as_bytes().windows(needle.len()).any(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
}

/// The builder's choices: a profile forced for every client, and profiles named per client.
#[derive(Clone, Debug, Default)]
pub(crate) struct SchemaProfiles {
    pub forced: Option<SchemaProfile>,
    /// `clientInfo.name` (compared ignoring ASCII case) to profile; the last one given wins.
    pub by_client: Vec<(String, SchemaProfile)>,
}

impl SchemaProfiles {
    /// Whether every client gets the same profile.
    pub fn is_forced(&self) -> bool {
        self.forced.is_some()
    }

    /// The profile of a client that says it is `client` (nothing, when it does not say):
    /// the forced one, else the one named for it, else [`SchemaProfile::for_client`].
    pub fn choose(&self, client: Option<&Implementation>) -> SchemaProfile {
        if let Some(forced) = self.forced {
            return forced;
        }
        let Some(name) = client.map(|client| client.name.as_str()) else { return SchemaProfile::default() };
        match self.by_client.iter().rev().find(|(named, _)| named.eq_ignore_ascii_case(name)) {
            Some((_, profile)) => *profile,
            None => SchemaProfile::for_client(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(name: &str) -> Implementation {
        Implementation::new(name, "1")
    }

    #[test]
    fn the_builder_wins_over_the_table() {
        let profiles = SchemaProfiles::default();
        assert_eq!(profiles.choose(Some(&client("gemini-cli-mcp-client"))), SchemaProfile::Gemini);
        assert_eq!(profiles.choose(Some(&client("Visual Studio Code"))), SchemaProfile::Portable);
        assert_eq!(profiles.choose(None), SchemaProfile::Portable);
        let named = SchemaProfiles {
            forced: None,
            by_client: vec![
                ("openai-mcp".into(), SchemaProfile::OpenAiStrict),
                ("claude-ai".into(), SchemaProfile::Full),
            ],
        };
        assert_eq!(named.choose(Some(&client("OpenAI-MCP"))), SchemaProfile::OpenAiStrict);
        assert_eq!(named.choose(Some(&client("claude-ai"))), SchemaProfile::Full);
        assert_eq!(named.choose(Some(&client("cursor-vscode"))), SchemaProfile::Portable);
        let forced = SchemaProfiles { forced: Some(SchemaProfile::Full), ..named };
        assert_eq!(forced.choose(Some(&client("gemini-cli-mcp-client"))), SchemaProfile::Full);
        assert_eq!(forced.choose(None), SchemaProfile::Full);
    }

    #[test]
    fn indexes_follow_all() {
        for (index, profile) in SchemaProfile::ALL.iter().enumerate() {
            assert_eq!(profile.index(), index);
        }
    }
}
