//! The skills extension (SEP-2640) on the server, `Server::skills(folder)`: in a 2025-11-25
//! session and statelessly (2026-07-28), `skills/list` and `skills/get` entries whose digests and
//! sizes match what `resources/read` serves, directory reads, pages that never split a skill,
//! and a folder that tries to get out: names that escape, a huge file, symlinks out, files
//! changed after the listing. Every message is validated against the official schemas.
#![cfg(feature = "skills")]

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use mcp_runtime::Server;
use mcp_runtime::http::HttpConfig;
use mcp_runtime::testing::TestClient;
use mcp_tests::cluster::TempDir;
use mcp_tests::{spec_2025_11_25, spec_2026_07_28};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use std::path::Path;

const PDF_SKILL: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: Apache-2.0\nmetadata:\n  version: \"2.1\"\n  reviewed: true\n---\n\n# PDF processing\n\nSee `references/FORMS.md`.\n";
const FORMS: &str = "# Forms\n\nFill each field.\n";
const LOGO: &[u8] = &[0x89, b'P', b'N', b'G', 0xff, 0x00, 0xfe];

fn write(root: &Path, relative: &str, bytes: &[u8]) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\nBody of {name}.\n")
}

/// Two skills, one with a subfolder and a binary file, one beneath organising folders; and
/// what is not served: a README above the skills, a hidden folder.
fn library() -> TempDir {
    let dir = TempDir::new("mcp-skills");
    let root = dir.path();
    write(root, "pdf-processing/SKILL.md", PDF_SKILL.as_bytes());
    write(root, "pdf-processing/references/FORMS.md", FORMS.as_bytes());
    write(root, "pdf-processing/assets/logo.png", LOGO);
    write(root, "acme/billing/refunds/SKILL.md", skill_md("refunds", "Process refunds").as_bytes());
    write(root, "acme/README.md", b"not a skill's file");
    write(root, "pdf-processing/.git/config", b"hidden");
    dir
}

fn server(folder: &Path) -> Server {
    Server::new("skills-test", "1.0").skills(folder)
}

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(bytes))
}

fn stateless(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "skills-test", "version": "1"},
    });
    params
}

/// One era's requests: in a session, or each one stateless.
struct Era {
    client: TestClient,
    stateless: bool,
}

impl Era {
    async fn request(&self, method: &str, params: Value) -> Result<Value, mcp_runtime::ErrorObject> {
        let params = if self.stateless { stateless(params) } else { params };
        self.client.request(method, params).await
    }

    /// The bytes `resources/read` serves at `uri`.
    async fn read(&self, uri: &str) -> Vec<u8> {
        let read = self.request("resources/read", json!({"uri": uri})).await.unwrap();
        let contents = &read["contents"][0];
        assert_eq!(contents["uri"], uri);
        match contents.get("text") {
            Some(text) => text.as_str().unwrap().as_bytes().to_vec(),
            None => STANDARD.decode(contents["blob"].as_str().unwrap()).unwrap(),
        }
    }
}

async fn both_eras(server: impl Fn() -> Server) -> [Era; 2] {
    [
        Era { client: TestClient::connect_with_version(server(), "2025-11-25").await, stateless: false },
        Era { client: TestClient::connect_uninitialized(server()), stateless: true },
    ]
}

#[tokio::test]
async fn skills_are_listed_got_and_read_with_matching_digests_in_both_eras() {
    let dir = library();
    let [session, stateless] = both_eras(|| server(dir.path())).await;

    let init = session.client.transcript()[0].message["result"]["capabilities"].clone();
    assert_eq!(init["extensions"]["io.modelcontextprotocol/skills"], json!({"directoryRead": true}));
    assert!(init["resources"].is_object(), "skill files are resources: {init}");
    let discover = stateless.request("server/discover", json!({})).await.unwrap();
    assert_eq!(discover["capabilities"]["extensions"]["io.modelcontextprotocol/skills"]["directoryRead"], true);

    for era in [&session, &stateless] {
        let list = era.request("skills/list", json!({})).await.unwrap();
        assert_eq!(list.get("nextCursor"), None);
        let skills = list["skills"].as_array().unwrap();
        let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
        assert_eq!(uris, ["skill://acme/billing/refunds/SKILL.md", "skill://pdf-processing/SKILL.md"]);
        let pdf = &skills[1];
        assert_eq!(
            pdf["frontmatter"],
            json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents",
                   "license": "Apache-2.0", "metadata": {"version": "2.1", "reviewed": true}})
        );
        let files: Vec<&str> =
            pdf["resources"].as_array().unwrap().iter().map(|f| f["uri"].as_str().unwrap()).collect();
        assert_eq!(
            files,
            [
                "skill://pdf-processing/SKILL.md",
                "skill://pdf-processing/assets/logo.png",
                "skill://pdf-processing/references/FORMS.md"
            ],
            "every file once, hidden ones left out"
        );
        for (file, bytes) in
            pdf["resources"].as_array().unwrap().iter().zip([PDF_SKILL.as_bytes(), LOGO, FORMS.as_bytes()])
        {
            let served = era.read(file["uri"].as_str().unwrap()).await;
            assert_eq!(served, bytes);
            assert_eq!(
                (file["size"].as_u64(), file["digest"].as_str()),
                (Some(bytes.len() as u64), Some(&*digest(bytes)))
            );
        }
        let got = era.request("skills/get", json!({"uri": "skill://pdf-processing/SKILL.md"})).await.unwrap();
        assert_eq!(got["skill"], *pdf);
        assert_eq!(got.get("nextCursor"), None);
        let unknown = era.request("skills/get", json!({"uri": "skill://nope/SKILL.md"})).await.unwrap_err();
        assert_eq!(unknown.code, -32602);

        let resources = era.request("resources/list", json!({})).await.unwrap();
        let manifest = resources["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["uri"] == "skill://pdf-processing/SKILL.md")
            .expect("SKILL.md is listed")
            .clone();
        assert_eq!(
            (&manifest["name"], &manifest["description"], &manifest["mimeType"]),
            (&json!("pdf-processing"), &json!("Extract, fill, and assemble PDF documents"), &json!("text/markdown"))
        );
        let read = era.request("resources/read", json!({"uri": "skill://pdf-processing/SKILL.md"})).await.unwrap();
        assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
        let logo =
            era.request("resources/read", json!({"uri": "skill://pdf-processing/assets/logo.png"})).await.unwrap();
        assert_eq!(logo["contents"][0]["mimeType"], "image/png");

        let root = era.request("resources/directory/read", json!({"uri": "skill://pdf-processing"})).await.unwrap();
        assert_eq!(
            root["resources"],
            json!([
                {"uri": "skill://pdf-processing/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown", "size": PDF_SKILL.len()},
                {"uri": "skill://pdf-processing/assets", "name": "assets", "mimeType": "inode/directory"},
                {"uri": "skill://pdf-processing/references", "name": "references", "mimeType": "inode/directory"},
            ])
        );
        let above = era.request("resources/directory/read", json!({"uri": "skill://acme"})).await.unwrap();
        assert_eq!(
            above["resources"],
            json!([{"uri": "skill://acme/billing", "name": "billing", "mimeType": "inode/directory"}]),
            "a folder above skills leads to them, and shows none of its own files"
        );
        for not_a_directory in ["skill://pdf-processing/SKILL.md", "skill://nope", "skill://pdf-processing/"] {
            let error = era.request("resources/directory/read", json!({"uri": not_a_directory})).await.unwrap_err();
            assert_eq!(error.code, -32602, "{not_a_directory}");
        }
        let readme = era.request("resources/read", json!({"uri": "skill://acme/README.md"})).await.unwrap_err();
        assert!([-32002, -32602].contains(&readme.code), "a file outside every skill is not served");

        if era.stateless {
            assert_eq!((list["resultType"].as_str(), list["cacheScope"].as_str()), (Some("complete"), Some("public")));
            assert_eq!((got["ttlMs"].as_u64(), got["cacheScope"].as_str()), (Some(0), Some("public")));
            assert_eq!(root["resultType"], "complete");
            assert_eq!(root.get("ttlMs"), None, "a directory read is not cacheable");
        } else {
            assert_eq!(list.get("ttlMs"), None);
        }
    }
    spec_2025_11_25().assert_all_valid(&session.client.transcript());
    spec_2026_07_28().assert_all_valid(&stateless.client.transcript());
}

#[tokio::test]
async fn pages_of_skills_hold_whole_entries() {
    let dir = TempDir::new("mcp-skills-pages");
    // Five skills of 500 files: about 60 KiB of entry each, more than a page holds in all.
    for skill in ["alpha", "bravo", "charlie", "delta", "echo"] {
        write(dir.path(), &format!("{skill}/SKILL.md"), skill_md(skill, "Many files").as_bytes());
        for i in 0..499 {
            write(dir.path(), &format!("{skill}/files/file-{i:03}.txt"), skill.as_bytes());
        }
    }
    for era in both_eras(|| server(dir.path())).await {
        let (mut seen, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
        loop {
            let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
            let page = era.request("skills/list", params).await.unwrap();
            pages += 1;
            for skill in page["skills"].as_array().unwrap() {
                assert_eq!(skill["resources"].as_array().unwrap().len(), 500, "a skill's files all on its page");
                seen.push(skill["uri"].as_str().unwrap().to_owned());
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        assert!(pages > 1, "the listing is paged");
        let names: Vec<&str> =
            seen.iter().map(|u| u.trim_start_matches("skill://").trim_end_matches("/SKILL.md")).collect();
        assert_eq!(names, ["alpha", "bravo", "charlie", "delta", "echo"], "each skill once, in order");
        let error = era.request("skills/list", json!({"cursor": "99"})).await.unwrap_err();
        assert_eq!(error.code, -32602);
    }
}

/// The error that refuses to build a server of the skills in `folder`.
fn refusal(folder: &Path) -> String {
    let Err(error) = server(folder).into_http_service(HttpConfig::default()) else { panic!("not refused") };
    assert_eq!(error.kind(), mcp_runtime::ErrorKind::Config);
    error.to_string()
}

#[tokio::test]
async fn a_folder_that_breaks_the_rules_is_refused_when_the_server_is_built() {
    let alias_bomb = "---\nname: x\ndescription: d\na: &a [1, 1]\nb: &b [*a, *a]\nc: [*b, *b]\n---\n";
    let cases = [
        ("a name that escapes", "x/SKILL.md", "---\nname: ../etc\ndescription: d\n---\n", "naming rules"),
        ("a name unlike its folder", "x/SKILL.md", &skill_md("y", "d"), "differs from its folder"),
        ("an upper-case folder", "Bad/SKILL.md", &skill_md("Bad", "d"), "naming rules"),
        ("no description", "x/SKILL.md", "---\nname: x\n---\n", "description"),
        ("no front matter", "x/SKILL.md", "# x\n", "front matter"),
        ("a skill at the top", "SKILL.md", &skill_md("top", "d"), "at the top"),
        ("an alias bomb", "x/SKILL.md", alias_bomb, "alias"),
    ];
    for (case, relative, text, expected) in cases {
        let dir = TempDir::new("mcp-skills-bad");
        write(dir.path(), relative, text.as_bytes());
        let error = refusal(dir.path());
        assert!(error.contains(expected), "{case}: {error}");
    }
    let missing = refusal(Path::new("/nonexistent/skills"));
    assert!(missing.contains("cannot open"), "{missing}");
}

#[tokio::test]
async fn a_skill_past_the_limits_is_refused_without_reading_it() {
    let dir = TempDir::new("mcp-skills-huge");
    write(dir.path(), "big/SKILL.md", skill_md("big", "Too big").as_bytes());
    // 17 MiB, sparse: the limit is checked from the sizes before anything is read.
    let huge = std::fs::File::create(dir.path().join("big/huge.bin")).unwrap();
    huge.set_len(17 * 1024 * 1024).unwrap();
    let error = refusal(dir.path());
    assert!(error.contains("limits") && error.contains("big"), "{error}");

    let dir = TempDir::new("mcp-skills-many");
    write(dir.path(), "many/SKILL.md", skill_md("many", "Too many files").as_bytes());
    for i in 0..512 {
        write(dir.path(), &format!("many/f{i}"), b"x");
    }
    let error = refusal(dir.path());
    assert!(error.contains("513 files"), "{error}");
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_out_are_refused_and_those_inside_stay_inside() {
    let outside = TempDir::new("mcp-skills-outside");
    write(outside.path(), "secret.txt", b"a secret");
    let dir = library();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("pdf-processing/leak.txt")).unwrap();
    let error = refusal(dir.path());
    assert!(error.contains("leak.txt") && error.contains("outside"), "{error}");

    let dir = library();
    std::os::unix::fs::symlink("../references/FORMS.md", dir.path().join("pdf-processing/assets/forms.md")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("pdf-processing/elsewhere")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("pdf-processing/loop")).unwrap();
    let error = refusal(dir.path());
    assert!(error.contains("elsewhere"), "a folder symlink out is refused too: {error}");
    std::fs::remove_file(dir.path().join("pdf-processing/elsewhere")).unwrap();

    let [era, _] = both_eras(|| server(dir.path())).await;
    let got = era.request("skills/get", json!({"uri": "skill://pdf-processing/SKILL.md"})).await.unwrap();
    let files: Vec<&str> =
        got["skill"]["resources"].as_array().unwrap().iter().map(|f| f["uri"].as_str().unwrap()).collect();
    assert!(files.contains(&"skill://pdf-processing/assets/forms.md"), "a file symlink inside is served: {files:?}");
    assert!(!files.iter().any(|f| f.contains("loop")), "a folder symlink is not followed: {files:?}");
    assert_eq!(era.read("skill://pdf-processing/assets/forms.md").await, FORMS.as_bytes());
}

#[tokio::test]
async fn uris_that_climb_out_or_files_changed_since_the_listing_are_not_served() {
    let dir = library();
    let [session, stateless] = both_eras(|| server(dir.path())).await;
    for era in [&session, &stateless] {
        for escape in [
            "skill://pdf-processing/../../etc/passwd",
            "skill://pdf-processing/%2e%2e/%2e%2e/etc/passwd",
            "skill://pdf-processing/references/../SKILL.md",
            "skill:///etc/passwd",
        ] {
            let error = era.request("resources/read", json!({"uri": escape})).await.unwrap_err();
            assert!([-32002, -32602].contains(&error.code), "{escape}: {error:?}");
            let error = era.request("resources/directory/read", json!({"uri": escape})).await.unwrap_err();
            assert_eq!(error.code, -32602, "{escape}");
        }
    }
    // Same size, other bytes; then a file that grew: neither is served as the listed one.
    write(dir.path(), "pdf-processing/references/FORMS.md", FORMS.to_uppercase().as_bytes());
    let error = session.request("resources/read", json!({"uri": "skill://pdf-processing/references/FORMS.md"})).await;
    assert!(error.unwrap_err().message.contains("changed after the server listed it"));
    write(dir.path(), "pdf-processing/SKILL.md", PDF_SKILL.repeat(1000).as_bytes());
    let error = stateless.request("resources/read", json!({"uri": "skill://pdf-processing/SKILL.md"})).await;
    assert!(error.unwrap_err().message.contains("changed after the server listed it"));
    spec_2025_11_25().assert_all_valid(&session.client.transcript());
    spec_2026_07_28().assert_all_valid(&stateless.client.transcript());
}
