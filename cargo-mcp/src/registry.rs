//! The `server.json` that lists a server in the official MCP Registry
//! (<https://github.com/modelcontextprotocol/registry>), schema revision 2025-12-11: an `mcpb`
//! package (the bundle's download URL and SHA-256, the settings a user supplies as
//! `environmentVariables` and `packageArguments`) and, for a server also deployed over HTTP,
//! a `streamable-http` remote with the headers its clients send.

use crate::package::Package;
use serde_json::{Map, Value, json};

/// The `$schema` of the file written: the registry's published schema revision.
pub const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The longest `description` the registry takes.
pub const DESCRIPTION_LIMIT: usize = 100;

/// The bundle the package entry points at.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// Where clients download it (`identifier`).
    pub url: String,
    /// Its SHA-256, lowercase hex (`fileSha256`).
    pub sha256: String,
}

/// A Streamable HTTP deployment of the same server.
#[derive(Clone, Debug, Default)]
pub struct Remote {
    /// Its endpoint.
    pub url: String,
    /// The headers a client sends, as `NAME` or `NAME: VALUE` (see [`header`]).
    pub headers: Vec<String>,
}

/// The server's registry name: `namespace/name`, where the namespace is `io.github.OWNER`
/// (or `io.gitlab.OWNER`) for a package whose repository is there.
pub fn default_name(package: &Package) -> Option<String> {
    package.forge().map(|forge| format!("io.{}.{}/{}", forge.source, forge.owner, package.name))
}

/// Where a GitHub or GitLab release of this version would serve `file`.
pub fn default_download_url(package: &Package, file: &str) -> Option<String> {
    let forge = package.forge()?;
    let tag = format!("v{}", package.version);
    Some(match forge.source {
        "gitlab" => format!("{}/-/releases/{tag}/downloads/{file}", forge.url),
        _ => format!("{}/releases/download/{tag}/{file}", forge.url),
    })
}

/// The `server.json` of `package`, named `name`, for `bundle` and an optional `remote`.
pub fn server_json(package: &Package, name: &str, bundle: &Bundle, remote: Option<&Remote>) -> Result<Value, String> {
    let mut server = Map::new();
    server.insert("$schema".into(), SCHEMA.into());
    server.insert("name".into(), name.into());
    server.insert("description".into(), short(&package.description).into());
    server.insert("version".into(), package.version.clone().into());
    if let Some(forge) = package.forge() {
        server.insert("repository".into(), json!({"url": forge.url, "source": forge.source}));
    }
    if let Some(homepage) = &package.homepage {
        server.insert("websiteUrl".into(), homepage.clone().into());
    }
    let mut mcpb = Map::new();
    mcpb.insert("registryType".into(), "mcpb".into());
    mcpb.insert("identifier".into(), bundle.url.clone().into());
    mcpb.insert("version".into(), package.version.clone().into());
    mcpb.insert("fileSha256".into(), bundle.sha256.clone().into());
    mcpb.insert("transport".into(), json!({"type": "stdio"}));
    let settings = &package.settings;
    let arguments: Vec<Value> = settings
        .args
        .iter()
        .filter_map(|arg| settings.setting_of(arg))
        .map(|key| with_input(json!({"type": "positional", "valueHint": key}), &settings.user_config[key]))
        .collect();
    if !arguments.is_empty() {
        mcpb.insert("packageArguments".into(), Value::Array(arguments));
    }
    let variables: Vec<Value> = settings
        .env
        .iter()
        .filter_map(|(variable, value)| settings.setting_of(value).map(|key| (variable, key)))
        .map(|(variable, key)| with_input(json!({"name": variable}), &settings.user_config[key]))
        .collect();
    if !variables.is_empty() {
        mcpb.insert("environmentVariables".into(), Value::Array(variables));
    }
    server.insert("packages".into(), json!([mcpb]));
    if let Some(remote) = remote {
        let headers = remote.headers.iter().map(|h| header(h)).collect::<Result<Vec<_>, _>>()?;
        let mut transport = Map::new();
        transport.insert("type".into(), "streamable-http".into());
        transport.insert("url".into(), remote.url.clone().into());
        if !headers.is_empty() {
            transport.insert("headers".into(), Value::Array(headers));
        }
        server.insert("remotes".into(), json!([transport]));
    }
    Ok(Value::Object(server))
}

/// An MCPB setting as the registry's `Input`: what a user is asked for.
fn with_input(mut input: Value, setting: &Value) -> Value {
    let object = input.as_object_mut().expect("built as an object");
    if let Some(description) = setting.get("description").and_then(Value::as_str) {
        object.insert("description".into(), description.into());
    }
    if setting.get("required") == Some(&Value::Bool(true)) {
        object.insert("isRequired".into(), true.into());
    }
    if setting.get("sensitive") == Some(&Value::Bool(true)) {
        object.insert("isSecret".into(), true.into());
    }
    let format = match setting.get("type").and_then(Value::as_str) {
        Some("number") => "number",
        Some("boolean") => "boolean",
        Some("directory" | "file") => "filepath",
        _ => "string",
    };
    object.insert("format".into(), format.into());
    match setting.get("default") {
        Some(Value::String(text)) => {
            object.insert("default".into(), text.clone().into());
        }
        Some(value @ (Value::Number(_) | Value::Bool(_))) => {
            object.insert("default".into(), value.to_string().into());
        }
        _ => {}
    }
    input
}

/// A header of the remote, from `NAME` (the user supplies its value) or `NAME: VALUE`, where each
/// `{variable}` in the value is asked of the user and kept secret: `Authorization: Bearer {token}`.
pub fn header(text: &str) -> Result<Value, String> {
    let (name, value) = match text.split_once(':') {
        Some((name, value)) => (name.trim(), Some(value.trim())),
        None => (text.trim(), None),
    };
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
        return Err(format!("`{text}` is not a header: write NAME or \"NAME: VALUE\""));
    }
    let mut header = Map::new();
    header.insert("name".into(), name.into());
    header.insert("isRequired".into(), true.into());
    if let Some(value) = value.filter(|v| !v.is_empty()) {
        header.insert("value".into(), value.into());
        let mut variables = Map::new();
        for variable in value.split('{').skip(1).filter_map(|rest| rest.split_once('}').map(|(v, _)| v)) {
            variables.insert(variable.to_owned(), json!({"isRequired": true, "isSecret": true}));
        }
        if !variables.is_empty() {
            header.insert("isSecret".into(), true.into());
            header.insert("variables".into(), Value::Object(variables));
        }
    }
    Ok(Value::Object(header))
}

/// `description` within the registry's limit: its first sentence if that fits, else cut at a
/// word and ended with an ellipsis.
pub fn short(description: &str) -> String {
    let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
    if description.chars().count() <= DESCRIPTION_LIMIT {
        return description;
    }
    if let Some((sentence, _)) = description.split_once(". ")
        && sentence.chars().count() < DESCRIPTION_LIMIT
    {
        return format!("{sentence}.");
    }
    let mut cut = String::new();
    for word in description.split(' ') {
        if cut.chars().count() + word.chars().count() + 2 > DESCRIPTION_LIMIT {
            break;
        }
        if !cut.is_empty() {
            cut.push(' ');
        }
        cut.push_str(word);
    }
    let mut cut = cut.trim_end_matches([',', ';', ':']).to_owned();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package::Settings;

    #[test]
    fn names_and_urls_follow_the_repository() {
        let package = Package {
            name: "calc".into(),
            version: "1.0.0".into(),
            repository: Some("https://github.com/octo/tools".into()),
            ..Package::default()
        };
        assert_eq!(default_name(&package).as_deref(), Some("io.github.octo/calc"));
        assert_eq!(
            default_download_url(&package, "calc-1.0.0.mcpb").as_deref(),
            Some("https://github.com/octo/tools/releases/download/v1.0.0/calc-1.0.0.mcpb")
        );
        assert_eq!(default_name(&Package::default()), None);
    }

    #[test]
    fn headers_ask_for_their_variables_as_secrets() {
        assert_eq!(
            header("Authorization: Bearer {token}").unwrap(),
            json!({"name": "Authorization", "value": "Bearer {token}", "isRequired": true, "isSecret": true,
                   "variables": {"token": {"isRequired": true, "isSecret": true}}})
        );
        assert_eq!(header("X-Tenant").unwrap(), json!({"name": "X-Tenant", "isRequired": true}));
        assert!(header("bad header: x").is_err());
        assert!(header(": x").is_err());
    }

    #[test]
    fn long_descriptions_are_shortened_within_the_limit() {
        assert_eq!(short("A calculator."), "A calculator.");
        let long = format!("{}. And more.", "word ".repeat(30).trim());
        let cut = short(&long);
        assert!(cut.chars().count() <= DESCRIPTION_LIMIT && cut.ends_with('…'), "{cut}");
        let sentence = format!("Short first sentence. {}", "more ".repeat(30));
        assert_eq!(short(&sentence), "Short first sentence.");
    }

    #[test]
    fn settings_the_user_supplies_are_listed() {
        let package = Package {
            name: "notes".into(),
            version: "0.1.0".into(),
            description: "Notes".into(),
            settings: Settings::from_metadata(&json!({
                "args": ["--verbose", "${user_config.folder}"],
                "env": {"TOKEN": "${user_config.token}", "FIXED": "1"},
                "user_config": {
                    "folder": {"type": "directory", "title": "F", "description": "Where", "required": true},
                    "token": {"type": "string", "title": "T", "description": "Secret", "sensitive": true}
                }
            }))
            .unwrap(),
            ..Package::default()
        };
        let bundle = Bundle { url: "https://example.com/notes.mcpb".into(), sha256: "0".repeat(64) };
        let server = server_json(&package, "io.github.octo/notes", &bundle, None).unwrap();
        let mcpb = &server["packages"][0];
        assert_eq!(
            mcpb["packageArguments"],
            json!([{"type": "positional", "valueHint": "folder", "description": "Where", "isRequired": true, "format": "filepath"}])
        );
        assert_eq!(
            mcpb["environmentVariables"],
            json!([{"name": "TOKEN", "description": "Secret", "isSecret": true, "format": "string"}])
        );
        assert!(server.get("remotes").is_none());
    }
}
