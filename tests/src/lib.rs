//! Shared test support: validating server messages against the official MCP JSON schemas.
