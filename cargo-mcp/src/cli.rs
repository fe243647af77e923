//! The command line: each subcommand's arguments (clap) and what it does. Results go to stdout,
//! progress and errors to stderr, both through [`terminal`](crate::terminal), which escapes
//! what a terminal would act on. Exit codes: 0 ok, 1 a tool error (`isError`) or a failed
//! check, 2 a usage or connection error.

use crate::check::{self, Report};
use crate::connection::{Connection, ConnectionError};
use crate::install::{self, Client, Outcome, Scope, Transport};
use crate::scaffold::{self, Runtime};
use crate::{arguments, output, surface, terminal};
use clap::{Args, Parser, Subcommand};
use mcp_runtime::client::Client as McpClient;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// Success.
pub const EXIT_OK: i32 = 0;
/// The tool answered with an error result, or the surface check failed.
pub const EXIT_FAILED: i32 = 1;
/// The command could not be carried out: bad usage, no server, a file that cannot be read.
pub const EXIT_USAGE: i32 = 2;

const EXAMPLES: &str = "\
Examples:
  cargo mcp new weather-server
  cargo mcp list --stdio target/debug/calculator
  cargo mcp call --stdio target/debug/calculator add a=2 b=3
  cargo mcp surface --stdio target/debug/calculator --check
  cargo build --release && cargo mcp install claude-code
  cargo mcp pack                     # an MCP Bundle and its server.json in target/mcpb/

Exit codes: 0 ok, 1 a tool error or a failed check, 2 a usage or connection error.";

/// Scaffold, install, inspect, call and check MCP servers built with mcp-runtime.
#[derive(Debug, Parser)]
#[command(name = "cargo mcp", bin_name = "cargo mcp", version, after_help = EXAMPLES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new MCP server crate: a tool, a main serving it over stdio (or HTTP), and a test.
    #[command(after_help = "\
Examples:
  cargo mcp new weather-server
  cargo mcp new weather-server --path servers/weather
  cargo mcp new weather-server --http             # Streamable HTTP instead of stdio
  cargo mcp new weather-server --runtime-version 0.1

mcp-runtime is not on crates.io yet: the new crate depends on it by path, on the runtime source
this cargo-mcp was built from, unless --runtime-path or --runtime-version says otherwise.")]
    New(NewArgs),
    /// Add this crate's server (its release binary) or an HTTP URL to an MCP client's configuration.
    #[command(after_help = "\
Examples:
  cargo build --release && cargo mcp install claude-code      # .mcp.json in the project
  cargo mcp install claude-desktop --build                     # builds the release binary first
  cargo mcp install vscode --http http://127.0.0.1:8080/mcp --name notes
  cargo mcp install cursor --scope user --dry-run             # show the change to ~/.cursor/mcp.json
  cargo mcp install claude-code --config /tmp/mcp.json --command /usr/local/bin/calc

A second run with the same entry changes nothing. Every other key and comment of the file is kept.")]
    Install(InstallArgs),
    /// Record the server's surface in mcp-surface.json, or check it against the recorded one.
    #[command(after_help = "\
Examples:
  cargo mcp surface --stdio target/debug/calculator                 # write mcp-surface.json
  cargo mcp surface --stdio target/debug/calculator --token-budget 2000
  cargo mcp surface --stdio target/debug/calculator --check         # in CI: exit 1 on a breaking change
  cd examples/calculator && cargo mcp surface --check                # the crate here, built first

The surface holds every tool (input and output schemas, annotations), resource, resource template
and prompt. --check lists each change, breaking or compatible, and fails on a breaking one or when
tools/list takes more tokens (o200k_base) than \"tokenBudget\" in the file.")]
    Surface(SurfaceArgs),
    /// List the server's tools, resources, resource templates and prompts.
    #[command(after_help = "\
Examples:
  cargo mcp list --stdio target/debug/calculator
  cargo mcp list --stdio \"target/debug/notes /tmp/notes\" --json
  cargo mcp list                         # the crate in this folder: cargo build, then its binary")]
    List(ListArgs),
    /// Call a tool: `key=value` arguments are typed by its input schema (`key:=JSON` for raw JSON).
    #[command(after_help = "\
Examples:
  cargo mcp call --stdio target/release/calculator add a=2 b=3        # prints 5
  cargo mcp call --stdio target/release/calculator divide a=1 b=0     # exit 1: a tool error
  cargo mcp call --stdio target/debug/notes add_note name=todo text='buy milk' --json
  cargo mcp call --stdio target/debug/server tag ids:='[1, 2]'                # key:=JSON")]
    Call(CallArgs),
    /// Read a resource by URI.
    #[command(after_help = "\
Examples:
  cargo mcp read --stdio \"target/debug/notes /tmp/notes\" notes://index
  cargo mcp read --stdio target/debug/notes notes://welcome --json")]
    Read(ReadArgs),
    /// Sign in to an OAuth-protected HTTP server: the browser opens its sign-in page, and the
    /// tokens are kept for `list`, `call` and the other commands (refreshed as they expire).
    #[command(after_help = "\
Examples:
  cargo mcp login https://example.com/mcp
  cargo mcp login https://example.com/mcp --no-browser        # print the URL to open instead
  cargo mcp login https://example.com/mcp --client-id my-app --scope notes:read
  cargo mcp call --http https://example.com/mcp whoami        # uses the stored tokens

The tokens are kept in $CARGO_MCP_TOKENS, else $XDG_CONFIG_HOME/cargo-mcp/tokens.json, else
~/.config/cargo-mcp/tokens.json, readable by you only.")]
    Login(LoginArgs),
    /// Forget the tokens kept for an HTTP server.
    Logout(LogoutArgs),
    /// Bundle the crate's release binary as an MCP Bundle (.mcpb), with the server.json that
    /// lists it in the MCP Registry.
    #[command(after_help = "\
Examples:
  cargo mcp pack                                   # target/mcpb/<name>-<version>.mcpb and server.json
  cargo mcp pack -p calculator --out dist
  cargo mcp pack --url https://github.com/me/calc/releases/download/v0.1.0/calculator-0.1.0.mcpb
  cargo mcp pack --remote https://calc.example.com/mcp --header 'Authorization: Bearer {token}'
  cargo mcp pack -- /srv/notes                     # the arguments to list the tools with

The manifest takes the name, version, description, authors, repository, homepage and license from
Cargo.toml, the tools from the built server, and the settings the server reads (MCPB user_config,
passed as arguments or environment variables) from [package.metadata.mcpb]; see the README.
server.json names the bundle by --url (default: the GitHub or GitLab release of this version).")]
    Pack(PackArgs),
    /// Get a prompt, with `key=value` arguments.
    #[command(after_help = "\
Examples:
  cargo mcp get --stdio \"target/debug/notes /tmp/notes\" summarize_note name=welcome")]
    Get(GetArgs),
}

/// How to reach the server; neither: the current crate's binary, built first (as `cargo run` does).
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// Run the server as a child process: its program and arguments, in one quoted string
    /// (default: build the crate in this folder and run its binary).
    #[arg(long, value_name = "\"CMD ARGS\"", conflicts_with = "http")]
    pub stdio: Option<String>,
    /// Connect to a Streamable HTTP server.
    #[arg(long, value_name = "URL")]
    pub http: Option<String>,
    /// Send `Authorization: Bearer TOKEN` to the HTTP server.
    #[arg(long, value_name = "TOKEN", requires = "http", env = "MCP_BEARER_TOKEN")]
    pub bearer: Option<String>,
    /// The largest message accepted from the server, in bytes (default 4 MiB, as a server's):
    /// reading stops there, and the command fails saying so.
    #[arg(long, value_name = "BYTES", env = "MCP_MAX_MESSAGE_SIZE")]
    pub max_message_size: Option<usize>,
}

/// `cargo mcp login`.
#[derive(Debug, Args)]
pub struct LoginArgs {
    /// The server's MCP endpoint.
    pub url: String,
    /// Print the sign-in URL instead of opening a browser.
    #[arg(long)]
    pub no_browser: bool,
    /// The local port the sign-in page redirects back to (default: a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// A client id registered with the authorization server beforehand (default: register).
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// The secret of that client, if it has one.
    #[arg(long, value_name = "SECRET", requires = "client_id", env = "MCP_CLIENT_SECRET")]
    pub client_secret: Option<String>,
    /// A scope to ask for, besides those the server asks for (repeatable).
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scopes: Vec<String>,
    /// The largest message accepted from the server, in bytes.
    #[arg(long, value_name = "BYTES", env = "MCP_MAX_MESSAGE_SIZE")]
    pub max_message_size: Option<usize>,
}

/// `cargo mcp logout`.
#[derive(Debug, Args)]
pub struct LogoutArgs {
    /// The server's MCP endpoint.
    pub url: String,
}

/// `cargo mcp new`.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// The crate's name (and its binary's).
    pub name: String,
    /// The folder to create (default: ./NAME).
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    /// Depend on the mcp-runtime source in DIR (a checkout's mcp-runtime/ folder).
    #[arg(long, value_name = "DIR", conflicts_with = "runtime_version")]
    pub runtime_path: Option<PathBuf>,
    /// Depend on mcp-runtime VERSION from crates.io.
    #[arg(long, value_name = "VERSION")]
    pub runtime_version: Option<String>,
    /// Serve Streamable HTTP (http://127.0.0.1:8080/mcp, with an `HttpConfig`) instead of stdio.
    #[arg(long)]
    pub http: bool,
}

/// `cargo mcp install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The client whose configuration to edit.
    #[arg(value_enum)]
    pub client: Client,
    /// Add a Streamable HTTP server at URL instead of this crate's binary.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub http: Option<String>,
    /// The server's name in the client (default: the crate's name).
    #[arg(long)]
    pub name: Option<String>,
    /// The configuration file to edit (default: the client's own, for --scope).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// The project's file or the user's.
    #[arg(long, value_enum, default_value_t = Scope::Project)]
    pub scope: Scope,
    /// Run this program instead of the crate's release binary.
    #[arg(long, value_name = "PATH")]
    pub command: Option<PathBuf>,
    /// Arguments the client passes to the server (repeat for several).
    #[arg(long = "arg", value_name = "ARG", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Build the release binary first (`cargo build --release`).
    #[arg(long)]
    pub build: bool,
    /// The crate's Cargo.toml (default: the crate in the current folder).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// The package, in a workspace of several.
    #[arg(long, short = 'p', value_name = "NAME")]
    pub package: Option<String>,
    /// The binary, in a package of several.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,
    /// Show the change without writing it.
    #[arg(long)]
    pub dry_run: bool,
}

/// `cargo mcp surface`.
#[derive(Debug, Args)]
pub struct SurfaceArgs {
    /// How to reach the server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Compare with the recorded surface instead of writing it; exit 1 on a breaking change or
    /// over the token budget.
    #[arg(long)]
    pub check: bool,
    /// The surface file.
    #[arg(long, value_name = "PATH", default_value = surface::DEFAULT_FILE)]
    pub file: PathBuf,
    /// Set "tokenBudget" in the file: the most tokens tools/list may take.
    #[arg(long, value_name = "TOKENS", conflicts_with = "check")]
    pub token_budget: Option<u64>,
}

/// `cargo mcp list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// How to reach the server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print the lists as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `cargo mcp call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// How to reach the server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The tool's name.
    pub tool: String,
    /// Its arguments: key=value (typed by the tool's input schema) or key:=JSON.
    #[arg(value_name = "KEY=VALUE")]
    pub arguments: Vec<String>,
    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `cargo mcp read`.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// How to reach the server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The resource's URI.
    pub uri: String,
    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `cargo mcp get`.
#[derive(Debug, Args)]
pub struct GetArgs {
    /// How to reach the server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The prompt's name.
    pub prompt: String,
    /// Its arguments: key=value.
    #[arg(value_name = "KEY=VALUE")]
    pub arguments: Vec<String>,
    /// Print the whole result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `cargo mcp pack`.
#[derive(Debug, Args)]
pub struct PackArgs {
    /// The package to bundle (default: the one in the current folder).
    #[arg(short, long, value_name = "PACKAGE")]
    pub package: Option<String>,
    /// Its binary, when it has several.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,
    /// Where to write the bundle and server.json (default: target/mcpb/).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The URL the bundle will be downloaded from, for server.json (default: the GitHub or
    /// GitLab release `v<version>` of the package's repository).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The server's name in the MCP Registry, `namespace/name` (default: io.github.OWNER/<name>
    /// from the package's repository).
    #[arg(long, value_name = "NAME")]
    pub registry_name: Option<String>,
    /// A Streamable HTTP endpoint where this server also runs, listed as a remote in server.json.
    #[arg(long, value_name = "URL")]
    pub remote: Option<String>,
    /// A header clients send to the remote: NAME, or "NAME: VALUE" where each {variable} is
    /// asked of the user as a secret (repeatable).
    #[arg(long = "header", value_name = "HEADER", requires = "remote")]
    pub headers: Vec<String>,
    /// The arguments to start the server with while listing its tools (default: the bundle's
    /// own, each setting at its default).
    #[arg(last = true, value_name = "ARGS")]
    pub run_args: Vec<String>,
}

/// A command's failure: what to print, and the exit code.
#[derive(Debug)]
pub struct Failure {
    /// The message, for stderr.
    pub message: String,
    /// The exit code.
    pub code: i32,
}

impl Failure {
    fn usage(message: impl Into<String>) -> Self {
        Failure { message: message.into(), code: EXIT_USAGE }
    }
}

impl From<ConnectionError> for Failure {
    fn from(error: ConnectionError) -> Self {
        Failure::usage(error.to_string())
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::usage(message)
    }
}

/// Runs a parsed command; returns the exit code.
pub async fn run(cli: Cli) -> i32 {
    let outcome = match cli.command {
        Command::New(args) => new(args),
        Command::Install(args) => install(args),
        Command::Surface(args) => surface(args).await,
        Command::List(args) => list(args).await,
        Command::Call(args) => call(args).await,
        Command::Read(args) => read(args).await,
        Command::Get(args) => get(args).await,
        Command::Pack(args) => crate::pack::pack(&args)
            .await
            .map(|packed| {
                terminal::print(format_args!(
                    "wrote {} ({} tools, sha256 {})\nwrote {}\n",
                    packed.bundle.display(),
                    packed.tools,
                    packed.sha256,
                    packed.server_json.display()
                ));
                EXIT_OK
            })
            .map_err(Failure::usage),
        Command::Login(args) => login(args).await,
        Command::Logout(args) => crate::login::logout(&args.url)
            .map(|message| {
                crate::login::say(&message);
                EXIT_OK
            })
            .map_err(Failure::usage),
    };
    match outcome {
        Ok(code) => code,
        Err(failure) => {
            if !failure.message.is_empty() {
                terminal::eprint(format_args!("error: {}\n", failure.message));
            }
            failure.code
        }
    }
}

/// The connection the server arguments ask for.
///
/// To wire in `mcp_runtime::client`: connect with it here (stdio and HTTP) and implement
/// [`Connection`] for it; the commands below do not change.
async fn connect(server: &ServerArgs) -> Result<McpClient, Failure> {
    let limit = server.max_message_size;
    match (&server.stdio, &server.http) {
        (Some(command), _) => Ok(crate::connection::connect_stdio(command, limit).await?),
        (None, Some(url)) => Ok(crate::connection::connect_http(url, server.bearer.as_deref(), limit).await?),
        (None, None) => {
            let found = install::find_crate(None, None, None).map_err(|e| {
                format!(
                    "no server given: pass --stdio \"CMD ARGS\" or --http URL, or run this in your server's crate ({e})"
                )
            })?;
            install::build(&found, false)?;
            let binary = found.debug_binary.display().to_string();
            terminal::eprint(format_args!(
                "Running {binary}
"
            ));
            let command = shlex::try_quote(&binary).map_err(|e| e.to_string())?;
            Ok(crate::connection::connect_stdio(&command, limit).await?)
        }
    }
}

async fn login(args: LoginArgs) -> Result<i32, Failure> {
    let login = crate::login::Login {
        url: &args.url,
        no_browser: args.no_browser,
        port: args.port,
        client_id: args.client_id,
        client_secret: args.client_secret,
        scopes: args.scopes,
        max_message_size: args.max_message_size,
    };
    let message = crate::login::login(login).await?;
    crate::login::say(&message);
    Ok(EXIT_OK)
}

fn new(args: NewArgs) -> Result<i32, Failure> {
    let runtime = match (args.runtime_path, args.runtime_version) {
        (Some(path), _) => Runtime::Path(path.canonicalize().map_err(|e| {
            format!("--runtime-path {}: {e} (name the mcp-runtime/ folder of a checkout)", path.display())
        })?),
        (None, Some(version)) => Runtime::Version(version),
        (None, None) => Runtime::built_from()?,
    };
    let dir = args.path.unwrap_or_else(|| PathBuf::from(&args.name));
    let transport = if args.http { scaffold::Transport::Http } else { scaffold::Transport::Stdio };
    scaffold::create(&dir, &args.name, &runtime, transport)?;
    terminal::eprint(format_args!("Created MCP server `{}` in {}\n", args.name, dir.display()));
    if let Some(workspace) = scaffold::enclosing_workspace(&dir) {
        terminal::eprint(format_args!(
            "  note: {} holds a workspace: add \"{}\" to its `members` (or to `exclude`, to build it on its own)\n",
            workspace.display(),
            dir.display()
        ));
    }
    if let Runtime::Path(path) = &runtime {
        terminal::eprint(format_args!("  mcp-runtime from {} (--runtime-version to use crates.io)\n", path.display()));
    }
    terminal::eprint("Next:\n");
    terminal::eprint(format_args!("  cd {}\n", dir.display()));
    terminal::eprint("  cargo test\n");
    match transport {
        scaffold::Transport::Stdio => terminal::eprint(format_args!(
            "  cargo build && cargo mcp call --stdio target/debug/{} greet name=Ada\n",
            args.name
        )),
        scaffold::Transport::Http => {
            terminal::eprint("  cargo run    # then: cargo mcp call --http http://127.0.0.1:8080/mcp greet name=Ada\n")
        }
    }
    Ok(EXIT_OK)
}

fn install(args: InstallArgs) -> Result<i32, Failure> {
    // The crate gives the binary, the default name and the project's root; each can be given instead.
    let needs_binary = args.http.is_none() && args.command.is_none();
    let needs_name = args.name.is_none() && args.command.is_none();
    let wants_root = args.config.is_none() && args.scope == Scope::Project;
    let found = if needs_binary || needs_name || wants_root {
        match install::find_crate(args.manifest_path.as_deref(), args.package.as_deref(), args.bin.as_deref()) {
            Ok(found) => Some(found),
            Err(e) if needs_binary || needs_name => return Err(e.into()),
            Err(_) => None, // the project is the current folder
        }
    } else {
        None
    };
    let transport = match (&args.http, &args.command, &found) {
        (Some(url), _, _) => Transport::Http { url: url.clone() },
        (None, Some(command), _) => Transport::Stdio { command: absolute(command), args: args.args.clone() },
        (None, None, Some(found)) => {
            if args.build {
                install::build(found, true)?;
            }
            if !found.release_binary.is_file() {
                return Err(Failure::usage(format!(
                    "{} does not exist: build it first with `cargo build --release -p {} --bin {}`, or pass --build",
                    found.release_binary.display(),
                    found.name,
                    found.bin
                )));
            }
            // A project's file is shared: it names the binary relative to the project.
            let shared = match args.scope {
                Scope::Project => args.client.project_command(&found.release_binary, &found.workspace_root),
                Scope::User => None,
            };
            let command = shared.unwrap_or_else(|| absolute(&found.release_binary));
            Transport::Stdio { command, args: args.args.clone() }
        }
        (None, None, None) => unreachable!("find_crate answered or failed above"),
    };
    let name = match (&args.name, &found, &args.command) {
        (Some(name), _, _) => name.clone(),
        (None, _, Some(command)) => command.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        (None, Some(found), None) => found.name.clone(),
        (None, None, None) => return Err(Failure::usage("name the server with --name NAME")),
    };
    let config = match args.config {
        Some(path) => path,
        None => {
            let project = match &found {
                Some(found) => found.workspace_root.clone(),
                None => std::env::current_dir().map_err(|e| format!("cannot tell the current folder: {e}"))?,
            };
            let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")).map(PathBuf::from);
            args.client.config_path(args.scope, &project, home.as_deref())?
        }
    };
    let before = install::read(&config)?;
    let entry = args.client.entry(&transport);
    let key = args.client.servers_key();
    let (after, outcome) = install::edit(&before, key, &name, &entry).map_err(|why| {
        let snippet = serde_json::to_string_pretty(&json!({ key: { &name: entry } })).unwrap_or_default();
        format!("cannot edit {}: {why}. Fix the file, or add this by hand:\n{snippet}", config.display())
    })?;
    let client = args.client.title();
    if outcome == Outcome::Unchanged {
        terminal::eprint(format_args!(
            "{} already has `{name}` with this entry: nothing to change\n",
            config.display()
        ));
        return Ok(EXIT_OK);
    }
    terminal::print(install::diff(&config, &before, &after));
    if args.dry_run {
        terminal::eprint(format_args!("dry run: {} not written\n", config.display()));
        return Ok(EXIT_OK);
    }
    install::write(&config, &after)?;
    let verb = if outcome == Outcome::Added { "added" } else { "updated" };
    terminal::eprint(format_args!(
        "{verb} `{name}` in {} for {client}; restart {client} (or reload its MCP servers) to use it\n",
        config.display()
    ));
    Ok(EXIT_OK)
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}

async fn surface(args: SurfaceArgs) -> Result<i32, Failure> {
    let recorded = if args.check { Some(check::read(&args.file)?) } else { None };
    let mut connection = connect(&args.server).await?;
    terminal::eprint("listing the server's tools, resources and prompts, and counting tokens...\n");
    let mut current = check::fetch(&mut connection).await?;
    connection.close().await;
    if let Some(recorded) = recorded {
        let report = Report::new(&recorded, &current);
        terminal::print(&report);
        return Ok(if report.passed() { EXIT_OK } else { EXIT_FAILED });
    }
    current.token_budget = args.token_budget;
    // What changed since the recorded surface, for the person about to commit the new one.
    if let Ok(previous) = check::read(&args.file) {
        for change in crate::compare(&previous, &current) {
            terminal::eprint(format_args!("{change}\n"));
        }
    }
    let changed = check::write(&args.file, &current)?;
    let counts = format!(
        "{} tools, {} resources, {} resource templates, {} prompts; tools/list takes {} tokens ({})",
        current.tools.len(),
        current.resources.len(),
        current.resource_templates.len(),
        current.prompts.len(),
        current.tokens.unwrap_or(0),
        crate::tokens::ENCODING
    );
    if changed {
        terminal::print(format_args!("wrote {}: {counts}\n", args.file.display()));
    } else {
        terminal::print(format_args!("{} is up to date: {counts}\n", args.file.display()));
    }
    Ok(EXIT_OK)
}

async fn list(args: ListArgs) -> Result<i32, Failure> {
    let mut connection = connect(&args.server).await?;
    let tools = Connection::list_tools(&mut connection).await.or_else(empty_if_absent)?;
    let resources = Connection::list_resources(&mut connection).await.or_else(empty_if_absent)?;
    let templates = Connection::list_resource_templates(&mut connection).await.or_else(empty_if_absent)?;
    let prompts = Connection::list_prompts(&mut connection).await.or_else(empty_if_absent)?;
    connection.close().await;
    if args.json {
        terminal::print(format_args!(
            "{}",
            output::pretty(&json!({
                "tools": tools, "resources": resources, "resourceTemplates": templates, "prompts": prompts
            }))
        ));
    } else {
        terminal::print(output::lists(&tools, &resources, &templates, &prompts));
    }
    Ok(EXIT_OK)
}

fn empty_if_absent(error: ConnectionError) -> Result<Vec<Value>, ConnectionError> {
    match error {
        ConnectionError::Rpc { code: crate::connection::METHOD_NOT_FOUND, .. } => Ok(Vec::new()),
        other => Err(other),
    }
}

async fn call(args: CallArgs) -> Result<i32, Failure> {
    let mut connection = connect(&args.server).await?;
    let tools = Connection::list_tools(&mut connection).await?;
    let listed = tools.iter().find(|t| t["name"] == args.tool.as_str());
    let arguments = arguments::from_words(&args.arguments, listed.and_then(|tool| tool.get("inputSchema")))
        .map_err(|e| format!("{e}\nusage: cargo mcp call ... {} KEY=VALUE...", args.tool))?;
    // A tool missing from the list is called all the same: a server hides from each caller the
    // tools its token may not call, and then says why (a 403 naming the scope).
    let result = match Connection::call_tool(&mut connection, &args.tool, arguments).await {
        Ok(result) => result,
        Err(ConnectionError::Rpc { .. }) if listed.is_none() => {
            let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
            let message = format!("the server has no tool `{}`; its tools: {}", args.tool, names.join(", "));
            return Err(Failure::usage(message));
        }
        Err(error) => return Err(error.into()),
    };
    connection.close().await;
    let is_error = result.get("isError") == Some(&Value::Bool(true));
    if args.json {
        terminal::print(output::pretty(&result));
    } else if is_error {
        terminal::eprint(format_args!("tool error: {}", output::call_result(&result)));
    } else {
        terminal::print(output::call_result(&result));
    }
    Ok(if is_error { EXIT_FAILED } else { EXIT_OK })
}

async fn read(args: ReadArgs) -> Result<i32, Failure> {
    let mut connection = connect(&args.server).await?;
    let result = Connection::read_resource(&mut connection, &args.uri).await?;
    connection.close().await;
    terminal::print(if args.json { output::pretty(&result) } else { output::read_result(&result) });
    Ok(EXIT_OK)
}

async fn get(args: GetArgs) -> Result<i32, Failure> {
    // Prompt arguments are strings: no schema to type them by.
    let mut arguments = Map::new();
    for word in &args.arguments {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("`{word}` is not an argument: write key=value (prompt arguments are text)"))?;
        arguments.insert(key.to_owned(), Value::String(value.to_owned()));
    }
    let mut connection = connect(&args.server).await?;
    let result = Connection::get_prompt(&mut connection, &args.prompt, Value::Object(arguments)).await?;
    connection.close().await;
    terminal::print(if args.json { output::pretty(&result) } else { output::prompt_result(&result) });
    Ok(EXIT_OK)
}

/// The arguments as `cargo` passes them to `cargo-mcp` (`cargo-mcp mcp ARGS`), or as typed to
/// the binary directly (`cargo-mcp ARGS`): the `mcp` that cargo inserts is dropped.
pub fn args_from_cargo(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    if args.get(1).is_some_and(|a| a == "mcp") {
        args.remove(1);
    }
    args
}
