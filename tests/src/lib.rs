//! Shared test support: validating what a server sends against the official MCP JSON schemas
//! (vendored in `tests/schema/<version>/schema.json`) and a `server.json` against the MCP
//! Registry's, driving a server binary over stdio, a
//! Streamable HTTP client, a rig of several replicas behind nginx on a shared Redis
//! (`cluster`), a headless Chromium loading pages from origins of the test's choosing
//! (`browser`), a malicious MCP server for the client's tests (`hostile_server`), and a real
//! OpenID provider with a server that trusts it and a user who signs in (`oidc`), and a small
//! one in the test's process, the upstream of the authorization-server façade (`fake_idp`).

use mcp_runtime::testing::ServerMessage;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

#[cfg(feature = "oauth-proxy")]
pub mod authorization_suite;
pub mod browser;
#[cfg(feature = "client")]
pub mod client_kit;
pub mod cluster;
pub mod external;
#[cfg(feature = "oauth-proxy")]
pub mod fake_idp;
#[cfg(feature = "client")]
pub mod hostile_oauth;
pub mod hostile_server;
pub mod http;
pub mod log;
pub mod oidc;
pub mod robust;
mod stdio;
pub use http::HttpClient;
pub use stdio::StdioServer;

/// The folder holding `<version>/schema.json`: the official schemas vendored in the repository
/// (`tests/schema`, see its README for their origin and licence).
fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema")
}

/// Checks a `server.json` against the MCP Registry's schema (revision 2025-12-11, vendored in
/// `tests/schema/registry/`); the error lists every violation.
pub fn check_server_json(instance: &Value) -> Result<(), String> {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| {
        let path = schema_dir().join("registry").join("server.schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let schema: Value = serde_json::from_str(&text).expect("server.schema.json is JSON");
        jsonschema::validator_for(&schema).expect("the registry's schema compiles")
    });
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("{e} at {}", e.instance_path())).collect();
    if errors.is_empty() { Ok(()) } else { Err(format!("server.json: {}", errors.join("; "))) }
}

/// One protocol revision's schema, with validators built on demand per definition.
pub struct Spec {
    document: Value,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

/// The 2025-11-25 schema, loaded once.
pub fn spec_2025_11_25() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::load("2025-11-25"))
}

/// The 2026-07-28 schema, loaded once.
pub fn spec_2026_07_28() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::load("2026-07-28"))
}

/// The schema of the tasks extension (`io.modelcontextprotocol/tasks`), vendored in
/// `tests/schema/ext-tasks/`.
pub fn spec_tasks() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::load("ext-tasks"))
}

/// The schema definition a request's result must match.
pub fn result_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "ping" | "logging/setLevel" | "shutdown" => "EmptyResult",
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "completion/complete" => "CompleteResult",
        "server/discover" => "DiscoverResult",
        "subscriptions/listen" => "SubscriptionsListenResult",
        // 2025-11-25's experimental tasks (the 2026-07-28 extension has a schema of its own).
        "tasks/get" => "GetTaskResult",
        "tasks/cancel" => "CancelTaskResult",
        "tasks/result" => "GetTaskPayloadResult",
        _ => return None,
    })
}

impl Spec {
    /// Loads `tests/schema/<version>/schema.json`.
    pub fn load(version: &str) -> Self {
        let path = schema_dir().join(version).join("schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        Self { document: serde_json::from_str(&text).expect("schema.json is JSON"), validators: Mutex::default() }
    }

    fn validator(&self, definition: &str) -> Arc<jsonschema::Validator> {
        let mut validators = self.validators.lock().unwrap();
        let validator = validators.entry(definition.to_owned()).or_insert_with(|| {
            assert!(self.document["$defs"].get(definition).is_some(), "the schema has no definition `{definition}`");
            let mut schema = self.document.clone();
            schema["$ref"] = json!(format!("#/$defs/{definition}"));
            Arc::new(jsonschema::validator_for(&schema).expect("the official schema compiles"))
        });
        Arc::clone(validator)
    }

    /// Checks `instance` against one definition; the error lists every violation.
    pub fn check(&self, definition: &str, instance: &Value) -> Result<(), String> {
        let validator = self.validator(definition);
        let errors: Vec<String> =
            validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        if errors.is_empty() { Ok(()) } else { Err(format!("{definition}: {}", errors.join("; "))) }
    }

    /// Checks one message the server sent: it is a JSON-RPC message, and a response's result
    /// matches the result type of the request it answers (`answers`), a notification its type.
    pub fn check_message(&self, message: &Value, answers: Option<&str>) -> Result<(), String> {
        self.check("JSONRPCMessage", message)?;
        if let Some(error) = message.get("error") {
            self.check("JSONRPCErrorResponse", message)?;
            let specific = match error["code"].as_i64() {
                Some(-32022) => "UnsupportedProtocolVersionError",
                Some(-32021) => "MissingRequiredClientCapabilityError",
                Some(-32020) => "HeaderMismatchError",
                _ => return Ok(()),
            };
            // Older revisions have no such definition (nor these codes).
            return match self.document["$defs"].get(specific) {
                Some(_) => self.check(specific, message),
                None => Ok(()),
            };
        }
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            let definition = if message.get("id").is_some() { "ServerRequest" } else { "ServerNotification" };
            return self.check(definition, message).map_err(|e| format!("{method}: {e}"));
        }
        let input_required = message["result"].get("resultType") == Some(&json!("input_required"));
        // A task-augmented call (2025-11-25) is answered with the task, not the tool's result.
        let task_created = answers == Some("tools/call") && message["result"].get("task").is_some();
        let definition = if input_required {
            Some("InputRequiredResult")
        } else if task_created {
            Some("CreateTaskResult")
        } else {
            answers.and_then(result_definition)
        };
        // Definitions this revision does not have (tasks in 2026-07-28) are checked elsewhere.
        let definition = definition.filter(|definition| self.document["$defs"].get(*definition).is_some());
        if let (Some(result), Some(definition)) = (message.get("result"), definition) {
            self.check(definition, result)?;
        }
        Ok(())
    }

    /// Panics, listing each offending message, unless every message is valid.
    pub fn assert_all_valid(&self, transcript: &[ServerMessage]) {
        assert!(!transcript.is_empty(), "nothing to validate: the server sent no message");
        let failures: Vec<String> = transcript
            .iter()
            .filter_map(|m| {
                self.check_message(&m.message, m.answers.as_deref()).err().map(|e| format!("{}\n  -> {e}", m.message))
            })
            .collect();
        assert!(failures.is_empty(), "messages that violate the schema:\n{}", failures.join("\n"));
    }
}

/// How long tests wait for a server before failing.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Resident memory of a process, in MiB (from `/proc/<pid>/status`).
pub fn rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc/<pid>/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("a VmRSS line");
    let kib: u64 = line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("VmRSS in kB");
    kib / 1024
}
