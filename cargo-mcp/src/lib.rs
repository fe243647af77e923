//! `cargo mcp`: scaffold, install, inspect, call and check MCP servers built with `mcp-runtime`.
//!
//! The binary is a thin shell over this library. Its pure parts are meant to be reused:
//! [`surface`] and [`compat`] (the surface file and the compatibility check), [`tokens`]
//! (the token count of `tools/list`), [`arguments`] (`key=value` typed by an input schema),
//! [`install`] (client configuration files), and [`check`], which runs the same check
//! from a unit test against an in-process [`mcp_runtime::testing::TestClient`]. [`pack`] makes
//! an MCP Bundle ([`bundle`]) and its MCP Registry entry ([`registry`]) from a crate ([`package`]).

#![warn(missing_docs)]

pub mod arguments;
pub mod bundle;
pub mod check;
pub mod cli;
pub mod compat;
pub mod connection;
pub mod install;
pub mod login;
pub mod output;
pub mod pack;
pub mod package;
pub mod registry;
pub mod scaffold;
pub mod surface;
pub mod terminal;
pub mod tokens;

pub use compat::{Change, ChangeKind, Severity, compare};
pub use surface::Surface;
