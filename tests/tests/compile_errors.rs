//! Compile-time errors of the macros, locked with trybuild: each rejected program in
//! `ui/fail` must fail with exactly the `.stderr` next to it, and each program in `ui/pass`
//! must compile and run.
//!
//! Regenerate the snapshots with `TRYBUILD=overwrite cargo test -p mcp-tests --test compile_errors`
//! and read the diff: the first error of each should sit on the user's tokens and say what to do.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.pass("ui/pass/*.rs");
    // Typed calls (feature `client`) guess from tokens which parameters are injected; the type
    // has the last word, and a wrong guess is a warning (denied in these programs) saying what
    // to write.
    #[cfg(feature = "client")]
    t.compile_fail("ui/client-fail/*.rs");
}
