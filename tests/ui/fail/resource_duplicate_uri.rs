use mcp_runtime::prelude::*;

#[mcp_resource(uri = "docs://readme")]
fn readme() -> String {
    "# Readme".into()
}

#[mcp_resource(uri = "docs://readme", name = "readme_v2")]
fn readme_v2() -> String {
    "# Readme, again".into()
}

fn main() {
    let _ = resources![readme, readme_v2];
}
