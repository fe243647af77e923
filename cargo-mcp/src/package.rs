//! What `cargo mcp pack` reads of a Cargo package: the fields of its `Cargo.toml` that a bundle
//! and a registry entry repeat, and `[package.metadata.mcpb]`, for what a server's binary cannot
//! tell about itself: the settings it reads (MCPB `user_config`) and how they reach it (`args`,
//! `env`, where `${user_config.KEY}` stands for a setting's value):
//!
//! ```toml
//! [package.metadata.mcpb]
//! args = ["${user_config.folder}"]
//! env = { NOTES_TOKEN = "${user_config.token}" }
//!
//! [package.metadata.mcpb.user_config.folder]
//! type = "directory"
//! title = "Notes folder"
//! description = "The folder of Markdown notes to serve"
//! required = true
//!
//! [package.metadata.mcpb.user_config.token]
//! type = "string"
//! title = "Token"
//! description = "The token of the notes service"
//! sensitive = true
//! ```

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A package's facts, from its entry in `cargo metadata`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Package {
    /// `name`.
    pub name: String,
    /// `version`.
    pub version: String,
    /// `description`: a bundle and a registry entry both need one.
    pub description: String,
    /// `authors`, each `Name <email>` or a name.
    pub authors: Vec<String>,
    /// `repository`.
    pub repository: Option<String>,
    /// `homepage`.
    pub homepage: Option<String>,
    /// `documentation`.
    pub documentation: Option<String>,
    /// `license` (an SPDX expression).
    pub license: Option<String>,
    /// `keywords`.
    pub keywords: Vec<String>,
    /// `[package.metadata.mcpb]`.
    pub settings: Settings,
}

/// `[package.metadata.mcpb]`: the settings a server reads, and how each reaches it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// Each setting, as MCPB's `user_config` writes it (`type`, `title`, `description`,
    /// `required`, `default`, `sensitive`, `multiple`, `min`, `max`).
    pub user_config: Map<String, Value>,
    /// The server's arguments.
    pub args: Vec<String>,
    /// The server's environment variables.
    pub env: BTreeMap<String, String>,
}

/// The forge a repository URL is on, for the registry's namespace and download URLs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forge {
    /// `github` or `gitlab`, as the registry's `repository.source` writes it.
    pub source: &'static str,
    /// The account or group that owns the repository.
    pub owner: String,
    /// The repository's web URL, without `.git` or a trailing slash.
    pub url: String,
}

impl Package {
    /// Reads a package's entry in `cargo metadata`. Errors name what is missing or malformed,
    /// all at once.
    pub fn from_metadata(package: &Value) -> Result<Self, String> {
        let text = |key: &str| package[key].as_str().filter(|s| !s.trim().is_empty()).map(str::to_owned);
        let list = |key: &str| -> Vec<String> {
            package[key].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
        };
        let name = text("name").unwrap_or_default();
        let Some(description) = text("description") else {
            return Err(format!(
                "`{name}` has no description: add `description = \"...\"` to its Cargo.toml \
                 (a bundle and the registry show it)"
            ));
        };
        Ok(Package {
            version: text("version").unwrap_or_default(),
            description: description.trim().to_owned(),
            authors: list("authors"),
            repository: text("repository"),
            homepage: text("homepage"),
            documentation: text("documentation"),
            license: text("license"),
            keywords: list("keywords"),
            settings: Settings::from_metadata(&package["metadata"]["mcpb"])?,
            name,
        })
    }

    /// The bundle's author: the first of `authors` (`Name <email>` split), else the owner of a
    /// GitHub or GitLab repository.
    pub fn author(&self) -> Result<Value, String> {
        if let Some(first) = self.authors.first() {
            let mut author = Map::new();
            match first.split_once('<') {
                Some((name, email)) => {
                    author.insert("name".into(), name.trim().into());
                    author.insert("email".into(), email.trim_end_matches('>').trim().into());
                }
                None => {
                    author.insert("name".into(), first.trim().into());
                }
            }
            return Ok(Value::Object(author));
        }
        match self.forge() {
            Some(forge) => Ok(
                serde_json::json!({"name": forge.owner, "url": format!("https://{}.com/{}", forge.source, forge.owner)}),
            ),
            None => Err(format!(
                "`{}` names no author: add `authors = [\"Your Name <you@example.com>\"]` (or a GitHub \
                 `repository`) to its Cargo.toml",
                self.name
            )),
        }
    }

    /// The forge of `repository`, when it is a GitHub or GitLab project URL.
    pub fn forge(&self) -> Option<Forge> {
        let url = self.repository.as_deref()?.trim_end_matches('/').trim_end_matches(".git");
        let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"))?;
        let (host, path) = rest.split_once('/')?;
        let source = match host {
            "github.com" | "www.github.com" => "github",
            "gitlab.com" | "www.gitlab.com" => "gitlab",
            _ => return None,
        };
        let owner = path.split('/').next().filter(|o| !o.is_empty())?.to_owned();
        path.split('/').nth(1).filter(|r| !r.is_empty())?;
        Some(Forge { source, owner, url: format!("https://{host}/{path}") })
    }
}

impl Settings {
    /// Reads `[package.metadata.mcpb]` (`null` when absent). Each `${user_config.KEY}` in
    /// `args` and `env` must name a declared setting.
    pub fn from_metadata(table: &Value) -> Result<Self, String> {
        let Some(table) = table.as_object() else {
            return match table {
                Value::Null => Ok(Settings::default()),
                _ => Err("[package.metadata.mcpb] must be a table".into()),
            };
        };
        if let Some(unknown) = table.keys().find(|k| !["user_config", "args", "env"].contains(&k.as_str())) {
            return Err(format!("[package.metadata.mcpb] has `{unknown}`: it takes `user_config`, `args` and `env`"));
        }
        let user_config = match table.get("user_config") {
            None => Map::new(),
            Some(Value::Object(settings)) => {
                for (key, setting) in settings {
                    if !setting.is_object() {
                        return Err(format!("[package.metadata.mcpb.user_config.{key}] must be a table"));
                    }
                }
                settings.clone()
            }
            Some(_) => return Err("[package.metadata.mcpb.user_config] must be a table of settings".into()),
        };
        let args = match table.get("args") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or("`args` in [package.metadata.mcpb] must be a list of strings")?,
            Some(_) => return Err("`args` in [package.metadata.mcpb] must be a list of strings".into()),
        };
        let env = match table.get("env") {
            None => BTreeMap::new(),
            Some(Value::Object(vars)) => vars
                .iter()
                .map(|(name, value)| value.as_str().map(|v| (name.clone(), v.to_owned())))
                .collect::<Option<_>>()
                .ok_or("`env` in [package.metadata.mcpb] must map names to strings")?,
            Some(_) => return Err("`env` in [package.metadata.mcpb] must be a table".into()),
        };
        let settings = Settings { user_config, args, env };
        for text in settings.args.iter().chain(settings.env.values()) {
            for key in references(text) {
                if !settings.user_config.contains_key(key) {
                    return Err(format!(
                        "[package.metadata.mcpb] uses `${{user_config.{key}}}` but declares no \
                         [package.metadata.mcpb.user_config.{key}]"
                    ));
                }
            }
        }
        Ok(settings)
    }

    /// The setting `text` is, when it is exactly `${user_config.KEY}`.
    pub fn setting_of<'a>(&self, text: &'a str) -> Option<&'a str> {
        let key = text.strip_prefix("${user_config.")?.strip_suffix('}')?;
        self.user_config.contains_key(key).then_some(key)
    }
}

/// The keys of the `${user_config.KEY}` references in `text`.
fn references(text: &str) -> impl Iterator<Item = &str> {
    text.split("${user_config.").skip(1).filter_map(|rest| rest.split_once('}').map(|(key, _)| key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn metadata(mcpb: Value) -> Value {
        json!({"name": "notes", "version": "1.2.0", "description": "Notes", "metadata": {"mcpb": mcpb}})
    }

    #[test]
    fn settings_are_read_and_their_references_checked() {
        let package = Package::from_metadata(&metadata(json!({
            "args": ["--folder", "${user_config.folder}"],
            "env": {"TOKEN": "${user_config.token}"},
            "user_config": {
                "folder": {"type": "directory", "title": "Folder", "description": "Where", "required": true},
                "token": {"type": "string", "title": "Token", "description": "Secret", "sensitive": true}
            }
        })))
        .unwrap();
        assert_eq!(package.settings.args, ["--folder", "${user_config.folder}"]);
        assert_eq!(package.settings.env["TOKEN"], "${user_config.token}");
        assert_eq!(package.settings.setting_of("${user_config.folder}"), Some("folder"));
        assert_eq!(package.settings.setting_of("--folder"), None);

        let undeclared = Package::from_metadata(&metadata(json!({"args": ["${user_config.nope}"]}))).unwrap_err();
        assert!(undeclared.contains("user_config.nope"), "{undeclared}");
        let typo = Package::from_metadata(&metadata(json!({"user-config": {}}))).unwrap_err();
        assert!(typo.contains("`user-config`"), "{typo}");
    }

    #[test]
    fn a_package_without_description_or_author_is_told_what_to_add() {
        let error = Package::from_metadata(&json!({"name": "x", "version": "0.1.0"})).unwrap_err();
        assert!(error.contains("add `description"), "{error}");
        let package = Package::from_metadata(&json!({"name": "x", "version": "0.1.0", "description": "d"})).unwrap();
        assert!(package.author().unwrap_err().contains("authors = "));
    }

    #[test]
    fn the_author_comes_from_authors_or_the_repository_owner() {
        let mut package = Package {
            authors: vec!["Ada Lovelace <ada@example.com>".into()],
            repository: Some("https://github.com/octo/calc.git".into()),
            ..Package::default()
        };
        assert_eq!(package.author().unwrap(), json!({"name": "Ada Lovelace", "email": "ada@example.com"}));
        package.authors.clear();
        assert_eq!(package.author().unwrap()["name"], "octo");
        assert_eq!(
            package.forge(),
            Some(Forge { source: "github", owner: "octo".into(), url: "https://github.com/octo/calc".into() })
        );
        package.repository = Some("https://example.org/octo/calc".into());
        assert_eq!(package.forge(), None);
    }
}
