//! The guide (`docs/guide`, an mdBook) is whole: every chapter is in its table of contents and
//! among the runtime's doc tests (so its code blocks compile), and its links between chapters
//! and to the repository's files lead somewhere.

use mcp_tests::external::repo_root;
use std::path::Path;

/// The chapters' file names, `SUMMARY.md` left out.
fn chapters() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join("docs/guide/src"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".md") && name != "SUMMARY.md")
        .collect();
    names.sort();
    names
}

#[test]
fn every_chapter_is_in_the_summary_and_compiled_as_doc_tests() {
    let root = repo_root();
    let summary = std::fs::read_to_string(root.join("docs/guide/src/SUMMARY.md")).unwrap();
    let lib = std::fs::read_to_string(root.join("mcp-runtime/src/lib.rs")).unwrap();
    let chapters = chapters();
    assert!(chapters.len() > 10, "{chapters:?}");
    for chapter in &chapters {
        assert!(summary.contains(&format!("]({chapter})")), "SUMMARY.md does not list {chapter}");
        let included = format!("#[doc = include_str!(\"../../docs/guide/src/{chapter}\")]");
        assert!(lib.contains(&included), "mcp-runtime/src/lib.rs does not compile {chapter}'s code blocks");
    }
}

/// The relative links of `page` (in `dir`) that lead to no file.
fn broken_links(dir: &Path, page: &str) -> Vec<String> {
    let mut broken = Vec::new();
    for (i, _) in page.match_indices("](") {
        let rest = &page[i + 2..];
        let Some(end) = rest.find(')') else { continue };
        let target = &rest[..end];
        if target.starts_with("http") || target.starts_with('#') || target.contains(' ') {
            continue;
        }
        let file = target.split('#').next().unwrap();
        if !dir.join(file).exists() {
            broken.push(target.to_owned());
        }
    }
    broken
}

#[test]
fn links_in_the_guide_and_the_readme_lead_to_files() {
    let root = repo_root();
    let guide = root.join("docs/guide/src");
    let mut broken = Vec::new();
    for chapter in chapters().into_iter().chain(["SUMMARY.md".to_owned()]) {
        let page = std::fs::read_to_string(guide.join(&chapter)).unwrap();
        broken.extend(broken_links(&guide, &page).into_iter().map(|link| format!("{chapter}: {link}")));
    }
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    broken.extend(broken_links(&root, &readme).into_iter().map(|link| format!("README.md: {link}")));
    assert!(broken.is_empty(), "links to nothing: {broken:#?}");
    // The check sees a broken link.
    assert_eq!(broken_links(&guide, "see [this](missing.md#part)"), ["missing.md#part"]);
}

#[test]
fn the_readme_names_every_example() {
    let root = repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let layout = &readme[readme.find("## Layout").expect("a Layout section")..];
    for entry in std::fs::read_dir(root.join("examples")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(layout.contains(&format!("`{name}`")), "the README's Layout does not name examples/{name}");
    }
}
