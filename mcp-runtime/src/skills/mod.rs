//! Agent Skills served from a folder (feature `skills`): the extension
//! `io.modelcontextprotocol/skills` (SEP-2640), with `skills/list`, `skills/get`,
//! `resources/directory/read` and `skill://` resources, set up by
//! [`Server::skills`](crate::Server::skills).

mod folder;
mod frontmatter;
mod library;
mod methods;
mod serve;

pub(crate) use folder::load;
pub(crate) use serve::install;
