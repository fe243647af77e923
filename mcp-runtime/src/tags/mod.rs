//! Tags: labels on tools (`#[mcp_tool(tags = ["admin"])]`, `ToolDescriptor::builder(..).tags(..)`)
//! that switch groups of them off and on, for the whole server (`Server::disable_tags`,
//! `ServerHandle::disable_tags`) or for one session (`Context::disable_tags`). A tool with a tag
//! switched off is neither listed nor callable.
//!
//! A session's switches win over the server's: a session may enable a tag the server disabled
//! (an administrator's session, once it proved who it is), or disable one the server offers.

use std::collections::BTreeSet;

/// The tags switched off for the whole server.
pub(crate) type ServerTags = BTreeSet<String>;

/// One session's switches, over the server's.
#[derive(Default, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SessionTags {
    /// Switched off here, whatever the server says.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    off: BTreeSet<String>,
    /// Switched on here, though the server switched them off.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    on: BTreeSet<String>,
}

impl SessionTags {
    /// Switches `tags` off (`on: false`) or on for this session: whether that changed anything.
    pub fn switch(&mut self, tags: &[&str], on: bool) -> bool {
        let before = self.clone();
        for tag in tags {
            let (add, remove) = if on { (&mut self.on, &mut self.off) } else { (&mut self.off, &mut self.on) };
            remove.remove(*tag);
            add.insert((*tag).to_owned());
        }
        *self != before
    }

    /// Whether no tag is switched here.
    pub fn is_empty(&self) -> bool {
        self.off.is_empty() && self.on.is_empty()
    }
}

/// Switches `tags` off (`on: false`) or on for the server: whether that changed anything.
pub(crate) fn switch(server: &mut ServerTags, tags: &[&str], on: bool) -> bool {
    let before = server.len();
    if on {
        server.retain(|tag| !tags.contains(&tag.as_str()));
    } else {
        server.extend(tags.iter().map(|tag| (*tag).to_owned()));
    }
    server.len() != before
}

/// Whether a tool tagged `tags` is offered: none of its tags is switched off, by the session
/// (`None`: it switched none) or by the server and not switched on again by the session.
pub(crate) fn enabled(tags: &[&str], server: &ServerTags, session: Option<&SessionTags>) -> bool {
    tags.iter().all(|tag| match session {
        Some(session) if session.off.contains(*tag) => false,
        Some(session) if session.on.contains(*tag) => true,
        _ => !server.contains(*tag),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sessions_switches_win_over_the_servers() {
        let mut server = ServerTags::new();
        assert!(switch(&mut server, &["admin"], false));
        assert!(!switch(&mut server, &["admin"], false));
        assert!(enabled(&[], &server, None) && enabled(&["beta"], &server, None));
        assert!(!enabled(&["beta", "admin"], &server, None));
        let mut session = SessionTags::default();
        assert!(session.switch(&["admin"], true));
        assert!(enabled(&["admin"], &server, Some(&session)));
        assert!(session.switch(&["beta", "admin"], false));
        assert!(!enabled(&["admin"], &server, Some(&session)) && !enabled(&["beta"], &server, Some(&session)));
        assert!(switch(&mut server, &["admin"], true));
        assert!(enabled(&["other"], &server, Some(&session)));
    }
}
