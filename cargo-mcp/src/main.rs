//! `cargo-mcp`, run as `cargo mcp ...` once installed (`cargo install --path cargo-mcp`).

use clap::Parser as _;

fn main() {
    let cli = cargo_mcp::cli::Cli::parse_from(cargo_mcp::cli::args_from_cargo(std::env::args_os().collect()));
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            cargo_mcp::terminal::eprint(format_args!("error: cannot start the async runtime: {e}\n"));
            std::process::exit(cargo_mcp::cli::EXIT_USAGE);
        }
    };
    let code = runtime.block_on(cargo_mcp::cli::run(cli));
    std::process::exit(code);
}
