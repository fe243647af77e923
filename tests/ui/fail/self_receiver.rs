use mcp_runtime::prelude::*;

struct Greeter {
    greeting: String,
}

impl Greeter {
    #[mcp_tool]
    fn greet(&self, name: String) -> String {
        format!("{}, {name}!", self.greeting)
    }
}

fn main() {}
