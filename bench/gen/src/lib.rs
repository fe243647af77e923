//! The 100 generated tools, written once per framework by each server's build script.
//!
//! Tool `tool_NNN` takes `text: String` and `count: u32` and returns `"NNN:<text>:<count>"`.
//! Every framework gets the same names, descriptions and parameters, so `tools/list` answers
//! carry the same information and the compile-time test compiles the same amount of user code.

use std::fmt::Write;

/// How many generated tools each server has (besides `echo`, `add` and `big`).
pub const COUNT: usize = 100;

/// How many tools this build generates: [`COUNT`], or one with the server crate's feature
/// `four-tools` (a server of four tools, for the build measurements of issue 37; the harness
/// builds it in a target directory of its own).
pub fn count() -> usize {
    if std::env::var_os("CARGO_FEATURE_FOUR_TOOLS").is_some() { 1 } else { COUNT }
}

fn description(i: usize) -> String {
    format!("Generated tool number {i}: joins its arguments into one line of text.")
}

/// mcp-runtime: plain functions under `#[mcp_tool]`, plus `all_tools()` listing every tool.
pub fn ours() -> String {
    let count = count();
    let mut s = String::new();
    for i in 0..count {
        let _ = write!(
            s,
            "/// {}\n#[mcp_tool]\nfn tool_{i:03}(\n    /// Some text to repeat\n    text: String,\n    /// How many times\n    count: u32,\n) -> String {{\n    format!(\"{i:03}:{{text}}:{{count}}\")\n}}\n\n",
            description(i)
        );
    }
    s.push_str("fn all_tools() -> mcp_runtime::ToolSet {\n    tools![echo, add, big");
    for i in 0..count {
        let _ = write!(s, ", tool_{i:03}");
    }
    s.push_str("]\n}\n");
    s
}

/// rmcp: an argument struct per tool and one `#[tool_router(router = generated_router)]` block.
pub fn rmcp() -> String {
    let count = count();
    let mut s = String::new();
    for i in 0..count {
        let _ = write!(
            s,
            "#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]\npub struct Tool{i:03}Args {{\n    /// Some text to repeat\n    pub text: String,\n    /// How many times\n    pub count: u32,\n}}\n\n"
        );
    }
    s.push_str("#[tool_router(router = generated_router)]\nimpl Bench {\n");
    for i in 0..count {
        let _ = write!(
            s,
            "    /// {}\n    #[tool]\n    fn tool_{i:03}(&self, Parameters(Tool{i:03}Args {{ text, count }}): Parameters<Tool{i:03}Args>) -> String {{\n        format!(\"{i:03}:{{text}}:{{count}}\")\n    }}\n\n",
            description(i)
        );
    }
    s.push_str("}\n");
    s
}

/// The ceiling: hand-written serde structs, a `match` on the name, and the `tools/list`
/// entries as one JSON string (`GENERATED_TOOLS_JSON`, comma-separated objects).
pub fn ceiling() -> String {
    let count = count();
    let mut s = String::new();
    for i in 0..count {
        let _ = write!(s, "#[derive(serde::Deserialize)]\nstruct Tool{i:03}Args {{ text: String, count: u32 }}\n");
    }
    s.push_str(
        "fn call_generated(name: &str, args: &str) -> Option<Result<String, String>> {\n    Some(match name {\n",
    );
    for i in 0..count {
        let _ = writeln!(
            s,
            "        \"tool_{i:03}\" => serde_json::from_str::<Tool{i:03}Args>(args).map(|a| format!(\"{i:03}:{{}}:{{}}\", a.text, a.count)).map_err(|e| e.to_string()),"
        );
    }
    s.push_str("        _ => return None,\n    })\n}\n\n");
    let mut list = String::new();
    for i in 0..count {
        if i > 0 {
            list.push(',');
        }
        let _ = write!(
            list,
            r#"{{"name":"tool_{i:03}","description":"{}","inputSchema":{{"type":"object","properties":{{"text":{{"type":"string","description":"Some text to repeat"}},"count":{{"type":"integer","format":"uint32","minimum":0,"description":"How many times"}}}},"required":["text","count"]}}}}"#,
            description(i)
        );
    }
    let _ = writeln!(s, "const GENERATED_TOOLS_JSON: &str = r#\"{list}\"#;");
    s
}

/// Writes `generated.rs` into `OUT_DIR` (call from a build script).
pub fn write_out(source: String) {
    let dir = std::env::var("OUT_DIR").expect("OUT_DIR is set for build scripts");
    std::fs::write(std::path::Path::new(&dir).join("generated.rs"), source).expect("write generated.rs");
    println!("cargo:rerun-if-changed=build.rs");
}
