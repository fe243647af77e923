//! `cargo mcp pack`: the crate's release binary as an MCP Bundle, and the `server.json` that
//! lists it in the MCP Registry, side by side in one folder (default `target/mcpb/`).
//!
//! The flow: read the package ([`Package`]: a missing description or author fails before
//! anything is built), `cargo build --release`, run the binary and list its tools (the same
//! client `cargo mcp list` uses), write `<name>-<version>.mcpb` ([`bundle`]), hash it, and
//! write `server.json` ([`registry`]).

use crate::cli::PackArgs;
use crate::connection::{Connection, connect_command};
use crate::package::Package;
use crate::registry::{self, Bundle, Remote};
use crate::{bundle, install, terminal};
use sha2::{Digest as _, Sha256};
use std::path::{Path, PathBuf};

/// What `pack` wrote.
#[derive(Clone, Debug)]
pub struct Packed {
    /// The bundle.
    pub bundle: PathBuf,
    /// The registry entry beside it.
    pub server_json: PathBuf,
    /// The bundle's SHA-256.
    pub sha256: String,
    /// How many tools the manifest lists.
    pub tools: usize,
}

/// Runs `cargo mcp pack`.
pub async fn pack(args: &PackArgs) -> Result<Packed, String> {
    let found = install::find_crate(None, args.package.as_deref(), args.bin.as_deref())?;
    let package = Package::from_metadata(&found.package)?;
    package.author()?;
    let name = match args.registry_name.clone().or_else(|| registry::default_name(&package)) {
        Some(name) => name,
        None => {
            return Err(format!(
                "cannot tell `{}`'s name in the MCP Registry: pass --registry-name io.github.OWNER/NAME, \
                 or set a GitHub or GitLab `repository` in its Cargo.toml",
                package.name
            ));
        }
    };
    install::build(&found, true)?;
    let binary = &found.release_binary;
    let binary_file = binary.file_name().expect("a binary's path names a file").to_string_lossy().into_owned();
    let tools = list_tools(args, &package, binary).await?;

    let out = match &args.out {
        Some(out) => out.clone(),
        None => binary.parent().and_then(Path::parent).unwrap_or(Path::new("target")).join("mcpb"),
    };
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let file = format!("{}-{}.mcpb", package.name, package.version);
    let bundle_path = out.join(&file);
    let manifest = bundle::manifest(&package, &binary_file, &tools)?;
    bundle::write(&bundle_path, &manifest, binary, &binary_file)?;
    let sha256 = sha256_of(&bundle_path)?;

    let url = match args.url.clone().or_else(|| registry::default_download_url(&package, &file)) {
        Some(url) => url,
        None => {
            terminal::eprint(format_args!(
                "warning: server.json points at `{file}`: pass --url with the address the bundle will be \
                 downloaded from before publishing it\n"
            ));
            file.clone()
        }
    };
    let remote = args.remote.as_ref().map(|url| Remote { url: url.clone(), headers: args.headers.clone() });
    let server = registry::server_json(&package, &name, &Bundle { url, sha256: sha256.clone() }, remote.as_ref())?;
    let server_json = out.join("server.json");
    let text = serde_json::to_string_pretty(&server).expect("a JSON value always serializes") + "\n";
    std::fs::write(&server_json, text).map_err(|e| format!("cannot write {}: {e}", server_json.display()))?;
    Ok(Packed { bundle: bundle_path, server_json, sha256, tools: tools.len() })
}

/// The server's tools, from the built binary: started with the arguments after `--`, else with
/// the manifest's, each setting at its default.
async fn list_tools(args: &PackArgs, package: &Package, binary: &Path) -> Result<Vec<serde_json::Value>, String> {
    let mut command = tokio::process::Command::new(binary);
    if args.run_args.is_empty() {
        let dirname = binary.parent().unwrap_or(Path::new("."));
        let launch = bundle::launch_with_defaults(&package.settings, dirname)?;
        command.args(launch.args).envs(launch.env);
    } else {
        command.args(&args.run_args);
    }
    let shown = binary.display().to_string();
    terminal::eprint(format_args!("Listing the tools of {shown}\n"));
    let mut client = connect_command(command, &shown, None).await.map_err(|e| e.to_string())?;
    let tools = Connection::list_tools(&mut client).await;
    client.close().await;
    match tools {
        Ok(tools) => Ok(tools),
        Err(crate::connection::ConnectionError::Rpc { code: crate::connection::METHOD_NOT_FOUND, .. }) => {
            Ok(Vec::new())
        }
        Err(error) => Err(format!("cannot list the tools of {shown}: {error}")),
    }
}

/// The SHA-256 of a file, lowercase hex.
fn sha256_of(path: &Path) -> Result<String, String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect())
}
