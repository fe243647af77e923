//! `State<T>` (and `Context`) are injected into resources and prompts, never read as arguments.

use mcp_runtime::State;
use mcp_runtime::prelude::*;

struct Library {
    books: Vec<String>,
}

#[mcp_resource(uri = "library://books")]
fn books(State(library): State<Library>) -> String {
    library.books.join("\n")
}

#[mcp_resource(uri = "library://books/{index}")]
async fn book(index: usize, library: State<Library>, ctx: Context) -> Option<String> {
    let _ = ctx;
    library.books.get(index).cloned()
}

#[mcp_prompt]
fn recommend(library: State<Library>, genre: String) -> String {
    format!("Recommend a {genre} book among: {}", library.books.join(", "))
}

fn main() {
    let _ = resources![books, book];
    let _ = prompts![recommend];
    let _ = Library { books: vec![] };
}
