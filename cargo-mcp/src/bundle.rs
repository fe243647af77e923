//! MCP Bundles (`.mcpb`): a zip holding `manifest.json` and the server's release binary, which
//! Claude Desktop and other hosts install in one click.
//!
//! The manifest follows the MCPB specification at manifest version 0.3 (what the official
//! `@anthropic-ai/mcpb` CLI calls latest; its JSON schemas ship in that npm package, which
//! `scripts/mcpb.sh` installs): a `binary` server at `server/<bin>`, started by the host as
//! `${__dirname}/server/<bin>`, with the arguments and environment of [`Settings`], and the
//! tools the server lists.

use crate::package::{Package, Settings};
use serde_json::{Map, Value, json};
use std::io::Write as _;
use std::path::Path;
use zip::write::SimpleFileOptions;

/// The MCPB manifest version written.
pub const MANIFEST_VERSION: &str = "0.3";

/// Where the binary goes in the bundle, relative to its root.
pub fn entry_point(binary_file: &str) -> String {
    format!("server/{binary_file}")
}

/// The platform this binary was built for, as MCPB's `compatibility.platforms` names it
/// (`None` for one the specification does not name).
pub fn platform() -> Option<&'static str> {
    match std::env::consts::OS {
        "macos" => Some("darwin"),
        "windows" => Some("win32"),
        "linux" => Some("linux"),
        _ => None,
    }
}

/// The manifest of `package`'s bundle: its binary is `binary_file` (with the platform's
/// suffix), its tools the items of `tools/list`.
pub fn manifest(package: &Package, binary_file: &str, tools: &[Value]) -> Result<Value, String> {
    let settings = &package.settings;
    let mut mcp_config = Map::new();
    mcp_config.insert("command".into(), format!("${{__dirname}}/{}", entry_point(binary_file)).into());
    mcp_config.insert("args".into(), json!(settings.args));
    if !settings.env.is_empty() {
        mcp_config.insert("env".into(), json!(settings.env));
    }
    let mut manifest = Map::new();
    manifest.insert("manifest_version".into(), MANIFEST_VERSION.into());
    manifest.insert("name".into(), package.name.clone().into());
    manifest.insert("version".into(), package.version.clone().into());
    manifest.insert("description".into(), package.description.clone().into());
    manifest.insert("author".into(), package.author()?);
    if let Some(url) = &package.repository {
        manifest.insert("repository".into(), json!({"type": "git", "url": url}));
    }
    for (key, value) in [("homepage", &package.homepage), ("documentation", &package.documentation)] {
        if let Some(value) = value {
            manifest.insert(key.into(), value.clone().into());
        }
    }
    if let Some(license) = &package.license {
        manifest.insert("license".into(), license.clone().into());
    }
    if !package.keywords.is_empty() {
        manifest.insert("keywords".into(), json!(package.keywords));
    }
    manifest.insert(
        "server".into(),
        json!({"type": "binary", "entry_point": entry_point(binary_file), "mcp_config": mcp_config}),
    );
    manifest.insert("tools".into(), Value::Array(tools.iter().map(listed_tool).collect()));
    if !settings.user_config.is_empty() {
        manifest.insert("user_config".into(), Value::Object(settings.user_config.clone()));
    }
    if let Some(platform) = platform() {
        manifest.insert("compatibility".into(), json!({"platforms": [platform]}));
    }
    Ok(Value::Object(manifest))
}

/// A tool as the manifest lists it: its name and description.
fn listed_tool(tool: &Value) -> Value {
    let mut listed = Map::new();
    listed.insert("name".into(), tool["name"].clone());
    if let Some(description) = tool.get("description").filter(|d| d.is_string()) {
        listed.insert("description".into(), description.clone());
    }
    Value::Object(listed)
}

/// Writes the bundle at `path`: `manifest.json` and the binary at its entry point, executable.
/// Entries carry no timestamps, so the same manifest and binary give the same bytes (and
/// the same SHA-256 in the registry's `server.json`).
pub fn write(path: &Path, manifest: &Value, binary: &Path, binary_file: &str) -> Result<(), String> {
    let failed = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(|e| failed(&e))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    let text = serde_json::to_string_pretty(manifest).expect("a JSON value always serializes") + "\n";
    zip.start_file("manifest.json", options.unix_permissions(0o644)).map_err(|e| failed(&e))?;
    zip.write_all(text.as_bytes()).map_err(|e| failed(&e))?;
    zip.start_file(entry_point(binary_file), options.unix_permissions(0o755).large_file(large(binary)))
        .map_err(|e| failed(&e))?;
    let mut input =
        std::fs::File::open(binary).map_err(|e| format!("cannot read the server {}: {e}", binary.display()))?;
    std::io::copy(&mut input, &mut zip).map_err(|e| failed(&e))?;
    zip.finish().map_err(|e| failed(&e))?;
    Ok(())
}

/// Whether the binary needs ZIP64 (4 GiB or more).
fn large(binary: &Path) -> bool {
    std::fs::metadata(binary).is_ok_and(|m| m.len() >= u64::from(u32::MAX))
}

/// How to start the server outside a host: its arguments and environment variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// The arguments.
    pub args: Vec<String>,
    /// The environment variables set.
    pub env: Vec<(String, String)>,
}

/// The server's launch for a listing of its tools at pack time: the manifest's arguments and
/// environment, each `${user_config.KEY}` replaced by the setting's default. A setting
/// without one is left out where it is the whole value, and refused where it is required.
pub fn launch_with_defaults(settings: &Settings, dirname: &Path) -> Result<Launch, String> {
    let fill = |text: &str| -> Result<Option<String>, String> {
        let mut out = text.replace("${__dirname}", &dirname.display().to_string());
        for (key, setting) in &settings.user_config {
            let reference = format!("${{user_config.{key}}}");
            if !out.contains(&reference) {
                continue;
            }
            let default = match setting.get("default") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
                Some(Value::Null) | None => {
                    if setting.get("required") == Some(&Value::Bool(true)) {
                        return Err(format!(
                            "the server needs the setting `{key}` to start and it has no default: give \
                             the arguments to list its tools with after `--` (`cargo mcp pack -- ARGS`)"
                        ));
                    }
                    if out == reference {
                        return Ok(None);
                    }
                    String::new()
                }
                Some(other) => other.to_string(),
            };
            out = out.replace(&reference, &default);
        }
        Ok(Some(out))
    };
    let mut launch = Launch::default();
    for arg in &settings.args {
        launch.args.extend(fill(arg)?);
    }
    for (name, value) in &settings.env {
        if let Some(value) = fill(value)? {
            launch.env.push((name.clone(), value));
        }
    }
    Ok(launch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package::Settings;

    fn calculator() -> Package {
        Package {
            name: "calculator".into(),
            version: "0.1.0".into(),
            description: "A calculator".into(),
            authors: vec!["Ada <ada@example.com>".into()],
            license: Some("MIT".into()),
            ..Package::default()
        }
    }

    #[test]
    fn the_manifest_names_the_binary_and_lists_the_tools() {
        let tools = [json!({"name": "add", "description": "Add.", "inputSchema": {}}), json!({"name": "bare"})];
        let manifest = manifest(&calculator(), "calculator", &tools).unwrap();
        assert_eq!(manifest["manifest_version"], "0.3");
        assert_eq!(
            manifest["server"],
            json!({"type": "binary", "entry_point": "server/calculator",
                   "mcp_config": {"command": "${__dirname}/server/calculator", "args": []}})
        );
        assert_eq!(manifest["tools"], json!([{"name": "add", "description": "Add."}, {"name": "bare"}]));
        assert_eq!(manifest["author"], json!({"name": "Ada", "email": "ada@example.com"}));
        assert_eq!(manifest["compatibility"]["platforms"], json!([platform().unwrap()]));
        assert!(manifest.get("user_config").is_none());
    }

    #[test]
    fn settings_become_user_config_args_and_env() {
        let mut package = calculator();
        package.settings = Settings::from_metadata(&json!({
            "args": ["${user_config.folder}"],
            "env": {"LEVEL": "${user_config.level}"},
            "user_config": {
                "folder": {"type": "directory", "title": "Folder", "description": "Where", "required": true},
                "level": {"type": "number", "title": "Level", "description": "How much", "default": 3}
            }
        }))
        .unwrap();
        let manifest = manifest(&package, "calculator", &[]).unwrap();
        assert_eq!(manifest["server"]["mcp_config"]["args"], json!(["${user_config.folder}"]));
        assert_eq!(manifest["server"]["mcp_config"]["env"], json!({"LEVEL": "${user_config.level}"}));
        assert_eq!(manifest["user_config"]["folder"]["type"], "directory");

        let refused = launch_with_defaults(&package.settings, Path::new("/b")).unwrap_err();
        assert!(refused.contains("`folder`") && refused.contains("-- ARGS"), "{refused}");
        package.settings.user_config["folder"]["default"] = json!("/srv/notes");
        package.settings.args.push("${__dirname}/data".into());
        let launch = launch_with_defaults(&package.settings, Path::new("/b")).unwrap();
        let args = vec!["/srv/notes".into(), "/b/data".into()];
        assert_eq!(launch, Launch { args, env: vec![("LEVEL".into(), "3".into())] });
    }

    #[test]
    fn the_same_inputs_give_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("calculator");
        std::fs::write(&binary, b"\x7fELF not really").unwrap();
        let manifest = manifest(&calculator(), "calculator", &[]).unwrap();
        let (first, second) = (dir.path().join("a.mcpb"), dir.path().join("b.mcpb"));
        write(&first, &manifest, &binary, "calculator").unwrap();
        write(&second, &manifest, &binary, "calculator").unwrap();
        assert_eq!(std::fs::read(&first).unwrap(), std::fs::read(&second).unwrap());

        let mut archive = zip::ZipArchive::new(std::fs::File::open(&first).unwrap()).unwrap();
        let mut names = Vec::new();
        for index in 0..archive.len() {
            let entry = archive.by_index(index).unwrap();
            // No clock in the bytes: a build tomorrow gives the same file.
            assert_eq!(entry.last_modified(), Some(zip::DateTime::default()));
            names.push(entry.name().unwrap().into_owned());
        }
        assert_eq!(names, ["manifest.json", "server/calculator"]);
        let entry = archive.by_name("server/calculator").unwrap();
        assert_eq!(entry.unix_mode().map(|mode| mode & 0o777), Some(0o755));
    }
}
