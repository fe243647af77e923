//! Tools, resources and prompts built at run time ([`ToolBuilder`], [`ResourceBuilder`],
//! [`PromptBuilder`]): from a configuration file, a database, another API's description. Each
//! builder yields the descriptor `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` generate,
//! so the runtime treats the items alike (validation, schema profiles, scopes, middleware, tasks,
//! listing), and a running server takes them through its [`ServerHandle`](crate::ServerHandle).
//! [`ToolTransform`] reshapes an existing tool (a macro's, a built one, a mounted one).

mod interned;
mod prompt;
mod resource;
mod tool;
mod transform;

pub use prompt::PromptBuilder;
pub use resource::ResourceBuilder;
pub use tool::ToolBuilder;
pub use transform::ToolTransform;
