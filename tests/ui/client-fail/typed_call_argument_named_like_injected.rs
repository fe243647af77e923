// An argument whose type is named like one the runtime injects: the handler reads it from the
// arguments, but the typed call `triage::get(&client, ..)` is written from tokens and would
// leave it out.
#![deny(deprecated)]

use mcp_runtime::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct State {
    open: bool,
}

impl std::str::FromStr for State {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        Ok(State { open: text == "open" })
    }
}

#[mcp_prompt]
fn triage(state: State) -> String {
    format!("triage {}", state.open)
}

fn main() {}
