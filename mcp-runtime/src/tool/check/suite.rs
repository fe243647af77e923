//! The official JSON-Schema-Test-Suite's draft 2020-12 cases (vendored in
//! `tests/json-schema-suite`, see its README), every case of every file run through the
//! compiled validator; what it does not pass is listed below with the reason.

use super::compile::compile;
use super::validate::{is_valid, problems};
use serde_json::Value;
use std::path::Path;

/// Cases not passed: (file, group, case; `*` for all), and why. An entry that matches no
/// failing case, or names one case that passes, fails the test, so the list cannot go stale.
const SKIPPED: &[(&str, &str, &str, &str)] = &[
    // Formats are asserted on purpose (the format-assertion vocabulary): a tool's schema that
    // says `email` means it, as jsonschema with `should_validate_formats` did before.
    ("format.json", "*", "*", "formats are asserted, not annotations"),
    // Fail closed by design: these need a schema from elsewhere (the meta-schema, a remote
    // document) or `$dynamicRef`, which this validator does not implement; the tool is refused.
    ("dynamicRef.json", "*", "*", "`$dynamicRef` is not implemented: refused"),
    ("refRemote.json", "*", "*", "remote documents are not fetched: refused"),
    ("defs.json", "validate definition against metaschema", "*", "the meta-schema is remote: refused"),
    ("ref.json", "remote ref, containing refs itself", "*", "the meta-schema is remote: refused"),
    ("unevaluatedItems.json", "unevaluatedItems with $dynamicRef", "*", "`$dynamicRef`: refused"),
    ("unevaluatedProperties.json", "unevaluatedProperties with $dynamicRef", "*", "`$dynamicRef`: refused"),
    ("vocabulary.json", "*", "*", "a custom meta-schema is remote; its vocabularies are not read"),
    // `\p{..}` needs Unicode's tables, which regex-lite leaves out: refused.
    ("pattern.json", "pattern with Unicode property escape requires unicode mode", "*", "`\\p`: refused"),
    ("patternProperties.json", "patternProperties with Unicode property escape", "*", "`\\p`: refused"),
    ("optional/ecmascript-regex.json", "patterns always use unicode semantics with pattern", "*", "`\\p`: refused"),
    ("optional/ecmascript-regex.json", "pattern with non-ASCII digits", "*", "`\\p`: refused"),
    (
        "optional/ecmascript-regex.json",
        "patterns always use unicode semantics with patternProperties",
        "*",
        "`\\p`: refused",
    ),
    ("optional/ecmascript-regex.json", "patternProperties with non-ASCII digits", "*", "`\\p`: refused"),
    // IDNA 2008's code point classes and Punycode's encoding direction are not implemented
    // (the tables are what this validator leaves out).
    (
        "optional/format/idn-hostname.json",
        "validation of internationalized host names",
        "A-label that decodes to a disallowed code point is invalid",
        "IDNA tables",
    ),
    (
        "optional/format/idn-hostname.json",
        "validation of internationalized host names",
        "a U-label whose A-label form is longer than 63 octets is invalid",
        "Punycode encoding",
    ),
    (
        "optional/format/idn-hostname.json",
        "validation of internationalized host names",
        "non-canonical Punycode that does not re-encode to itself is invalid",
        "Punycode encoding",
    ),
];

#[test]
fn the_official_suite_passes_but_for_the_listed_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-schema-suite");
    assert!(root.is_dir(), "{} is missing: the suite is in the repository, not in the published crate", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let (mut passed, mut skipped, mut failures) = (0, 0, Vec::new());
    let mut used = vec![false; SKIPPED.len()];
    for file in &files {
        let name = file.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let groups: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        for group in &groups {
            let description = group["description"].as_str().unwrap();
            let compiled = compile(&group["schema"]);
            for case in group["tests"].as_array().unwrap() {
                let case_description = case["description"].as_str().unwrap();
                let expected = case["valid"].as_bool().unwrap();
                let outcome = match &compiled {
                    Ok(compiled) if !compiled.ignored.is_empty() => Err(format!("ignored: {:?}", compiled.ignored)),
                    Ok(compiled) => {
                        let schema = &compiled.schema;
                        let valid = is_valid(schema, &case["data"]);
                        let reported = problems(schema, &case["data"], 8);
                        assert_eq!(
                            valid,
                            reported.is_empty(),
                            "{name} / {description} / {case_description}: a problem reported iff invalid"
                        );
                        match valid == expected {
                            true => Ok(()),
                            false => Err(format!("expected valid: {expected}")),
                        }
                    }
                    Err(unchecked) => Err(format!("refused: {unchecked:?}")),
                };
                let skip = SKIPPED.iter().position(|(f, g, c, _)| {
                    *f == name && (*g == "*" || *g == description) && (*c == "*" || *c == case_description)
                });
                match (outcome, skip) {
                    (Ok(()), Some(i)) if SKIPPED[i].2 != "*" => failures.push(format!(
                        "{name} / {description} / {case_description}: passes but is listed as skipped ({})",
                        SKIPPED[i].3
                    )),
                    (Ok(()), _) => passed += 1,
                    (Err(_), Some(i)) => {
                        used[i] = true;
                        skipped += 1;
                    }
                    (Err(why), None) => failures.push(format!("{name} / {description} / {case_description}: {why}")),
                }
            }
        }
    }
    for (i, entry) in SKIPPED.iter().enumerate().filter(|(i, _)| !used[*i]) {
        failures.push(format!("skip entry {i} matches nothing: {entry:?}"));
    }
    eprintln!(
        "JSON-Schema-Test-Suite: {passed} passed, {skipped} skipped, {} failed, in {} files",
        failures.len(),
        files.len()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

fn collect(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
}
