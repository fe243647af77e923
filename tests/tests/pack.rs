//! `cargo mcp pack` on the calculator example, checked by the official tools: the bundle
//! passes `mcpb info`, `mcpb unpack` and `mcpb validate` (`@anthropic-ai/mcpb`, installed by
//! `scripts/mcpb.sh`), the unpacked server answers `initialize`, and `server.json` is valid
//! against the MCP Registry's schema and carries the bundle's SHA-256.
//!
//! `cargo-mcp` is `CARGO_MCP_BIN`, else the one in this test's target folder (`cargo build -p
//! cargo-mcp`, as scripts/test.sh does); `pack` builds the calculator's release binary itself.

use mcp_tests::StdioServer;
use mcp_tests::external::{example_binary, mcpb, repo_root};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

const URL: &str = "https://github.com/mcp-runtime/mcp-runtime/releases/download/v0.1.0/calculator-0.1.0.mcpb";

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

#[tokio::test]
async fn the_calculator_packs_into_a_bundle_the_official_cli_accepts_and_a_valid_registry_entry() {
    let out = std::env::temp_dir().join(format!("mcp-pack-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let pack = Command::new(example_binary("cargo-mcp"))
        .args(["pack", "-p", "calculator", "--url", URL])
        .args(["--remote", "https://calculator.example.com/mcp", "--header", "Authorization: Bearer {token}"])
        .arg("--out")
        .arg(&out)
        .current_dir(repo_root())
        .output()
        .expect("cargo-mcp runs");
    assert!(pack.status.success(), "cargo mcp pack failed:\n{}", text(&pack));
    let bundle = out.join("calculator-0.1.0.mcpb");
    assert!(String::from_utf8_lossy(&pack.stdout).contains("calculator-0.1.0.mcpb (4 tools"), "{}", text(&pack));

    // The official CLI reads the bundle, unpacks it, and accepts its manifest.
    let info = mcpb(&[OsStr::new("info"), bundle.as_os_str()]);
    assert!(info.status.success() && text(&info).contains("calculator-0.1.0.mcpb"), "mcpb info:\n{}", text(&info));
    let unpacked = out.join("unpacked");
    let unpack = mcpb(&[OsStr::new("unpack"), bundle.as_os_str(), unpacked.as_os_str()]);
    assert!(unpack.status.success(), "mcpb unpack:\n{}", text(&unpack));
    let manifest_path = unpacked.join("manifest.json");
    let validate = mcpb(&[OsStr::new("validate"), manifest_path.as_os_str()]);
    assert!(
        validate.status.success() && text(&validate).contains("Manifest schema validation passes"),
        "mcpb validate:\n{}",
        text(&validate)
    );

    let manifest = read_json(&manifest_path);
    assert_eq!(manifest["name"], "calculator");
    assert_eq!(manifest["version"], "0.1.0");
    assert_eq!(manifest["server"]["type"], "binary");
    assert_eq!(manifest["server"]["entry_point"], "server/calculator");
    assert_eq!(manifest["server"]["mcp_config"]["command"], "${__dirname}/server/calculator");
    let tools: Vec<&str> = manifest["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["add", "subtract", "multiply", "divide"], "the tools the built server lists");
    assert_eq!(manifest["tools"][0]["description"], "Add two numbers.");
    assert_eq!(manifest["compatibility"]["platforms"], json!(["linux"]));

    // What the host runs: the unpacked binary (executable, as the bundle says) answers initialize.
    let entry = unpacked.join("server/calculator");
    let mut server = StdioServer::spawn(entry.to_str().unwrap());
    let initialized = server.initialize("2025-11-25").await;
    assert_eq!(initialized["serverInfo"]["name"], "calculator", "{initialized}");
    assert_eq!(initialized["serverInfo"]["version"], "0.1.0");
    server.assert_schema_valid();

    // server.json: valid against the registry's schema, pointing at this very bundle.
    let server_json = read_json(&out.join("server.json"));
    mcp_tests::check_server_json(&server_json).unwrap();
    let digest: String = Sha256::digest(std::fs::read(&bundle).unwrap()).iter().map(|b| format!("{b:02x}")).collect();
    let package = &server_json["packages"][0];
    assert_eq!(
        (&package["registryType"], &package["identifier"], &package["fileSha256"]),
        (&json!("mcpb"), &json!(URL), &json!(digest))
    );
    assert_eq!(server_json["name"], "io.github.mcp-runtime/calculator");
    assert_eq!(
        server_json["remotes"],
        json!([{"type": "streamable-http", "url": "https://calculator.example.com/mcp", "headers": [
            {"name": "Authorization", "value": "Bearer {token}", "isRequired": true, "isSecret": true,
             "variables": {"token": {"isRequired": true, "isSecret": true}}}
        ]}])
    );

    // The schema check is not vacuous: the registry refuses an mcpb package without its hash.
    let mut unhashed = server_json.clone();
    unhashed["packages"][0]["fileSha256"] = json!("not a hash");
    assert!(mcp_tests::check_server_json(&unhashed).is_err());

    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_servers_settings_become_user_config_the_cli_accepts_and_registry_inputs() {
    // examples/notes declares its folder in [package.metadata.mcpb]; the tools are listed with
    // the folder given after `--`.
    let out = std::env::temp_dir().join(format!("mcp-pack-notes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let folder = out.join("notes");
    std::fs::create_dir_all(&folder).unwrap();
    let pack = Command::new(example_binary("cargo-mcp"))
        .args(["pack", "-p", "notes", "--out"])
        .arg(&out)
        .arg("--")
        .arg(&folder)
        .current_dir(repo_root())
        .output()
        .expect("cargo-mcp runs");
    assert!(pack.status.success(), "cargo mcp pack failed:\n{}", text(&pack));

    let unpacked = out.join("unpacked");
    let unpack = mcpb(&[OsStr::new("unpack"), out.join("notes-0.1.0.mcpb").as_os_str(), unpacked.as_os_str()]);
    assert!(unpack.status.success(), "mcpb unpack:\n{}", text(&unpack));
    let validate = mcpb(&[OsStr::new("validate"), unpacked.join("manifest.json").as_os_str()]);
    assert!(validate.status.success(), "mcpb validate:\n{}", text(&validate));
    let manifest = read_json(&unpacked.join("manifest.json"));
    assert_eq!(manifest["server"]["mcp_config"]["args"], json!(["${user_config.folder}"]));
    assert_eq!(manifest["user_config"]["folder"]["type"], "directory");

    let server_json = read_json(&out.join("server.json"));
    mcp_tests::check_server_json(&server_json).unwrap();
    assert_eq!(server_json["packages"][0]["packageArguments"][0]["valueHint"], "folder");
    assert!(server_json["description"].as_str().unwrap().chars().count() <= 100, "the registry's limit");
    std::fs::remove_dir_all(&out).unwrap();
}
