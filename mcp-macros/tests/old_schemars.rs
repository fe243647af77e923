//! A crate whose `Cargo.toml` depends on schemars 0.8 (this package's dev-dependencies, which
//! trybuild gives its UI programs) and derives `JsonSchema` from it: the tool parameter's error
//! names the version and the fix, rather than asking for the derive already written.
//!
//! Regenerate the snapshot with `TRYBUILD=overwrite cargo test -p mcp-runtime-macros --test old_schemars`.

#[test]
fn a_json_schema_derived_with_schemars_0_8_is_named() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
