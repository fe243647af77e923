//! The surface check from a unit test: `cargo_mcp::check` on an in-process `TestClient`.

use cargo_mcp::check::{self, Report};
use cargo_mcp::{ChangeKind, Surface};
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;

/// Add two numbers.
#[mcp_tool(read_only)]
fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

mod v2 {
    use mcp_runtime::prelude::*;

    /// Add two whole numbers, with a required rounding mode.
    #[mcp_tool(read_only)]
    pub fn add(a: i64, b: i64, rounding: String) -> i64 {
        let _ = rounding;
        a + b
    }
}

/// A code review.
#[mcp_prompt]
fn review(code: String, language: Option<String>) -> String {
    format!("Review this {} code: {code}", language.unwrap_or_default())
}

#[mcp_runtime::main]
#[test]
async fn the_recorded_surface_passes_and_a_breaking_change_fails() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-surface.json");
    let client = TestClient::connect(server!().tools(tools![add]).prompts(prompts![review])).await;
    check::record_surface(&client, &path).await;
    let recorded = Surface::from_json_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(recorded.tools.len(), 1);
    assert_eq!(recorded.prompts[0]["name"], "review");
    assert!(recorded.tokens.unwrap() > 20);
    check::assert_surface_compatible(&client, &path).await;

    let changed = TestClient::connect(server!().tools(tools![v2::add])).await;
    let report: Report = check::check(&changed, &recorded).await;
    assert!(!report.passed());
    let kinds: Vec<ChangeKind> = report.breaking().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::TypeNarrowed,
            ChangeKind::TypeNarrowed,
            ChangeKind::ArgumentNewlyRequired,
            ChangeKind::PromptRemoved
        ]
    );
    let text = report.to_string();
    assert!(text.contains("breaking: tool `add`: argument `a` narrowed from number to integer"), "{text}");
    assert!(text.contains("breaking: tool `add`: new required argument `rounding`"), "{text}");
    assert!(text.contains("breaking: prompt `review`: removed"), "{text}");
}

#[mcp_runtime::main]
#[test]
#[should_panic(expected = "new required argument `rounding`")]
async fn assert_surface_compatible_fails_the_test_with_the_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-surface.json");
    let client = TestClient::connect(server!().tools(tools![add])).await;
    check::record_surface(&client, &path).await;
    let changed = TestClient::connect(server!().tools(tools![v2::add])).await;
    check::assert_surface_compatible(&changed, &path).await;
}

#[mcp_runtime::main]
#[test]
#[should_panic(expected = "record one first")]
async fn a_missing_surface_file_says_how_to_make_one() {
    let client = TestClient::connect(server!().tools(tools![add])).await;
    check::assert_surface_compatible(&client, "/nonexistent/mcp-surface.json").await;
}
