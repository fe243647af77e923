//! The runtime's layering: the files of `mcp-runtime/src` may not import each other in a loop
//! of more than two files (a type and its helper).
//!
//! Layers run one way (docs/ARCHITECTURE.md): each knows only the ones below it. A loop of
//! files that import each other means a lower layer reaches up, and a large one means the
//! layers have merged. Each file is parsed with `syn`; its dependencies are its non-`pub` `use`
//! trees, and every `crate::`/`super::`/`self::` path or path through a child module in its
//! code, macro bodies (`$crate::`) and attribute arguments. A `pub use` is a face that hands
//! names on, not a dependency: a path through it is followed to the file that defines the name.
//! `#[cfg(test)]` modules are left out (tests are no part of the layering), and so are doc
//! comments (intra-doc links are not dependencies). The loops are the strongly connected
//! components of the graph of files.

use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::Path;
use syn::visit::{self, Visit};

const MAX_CYCLE: usize = 2;
const RULE: &str = "the runtime's layers must run one way (docs/ARCHITECTURE.md); \
                    a loop of more than two files (a type and its helper) means a lower layer reaches up";

/// A module's path from the crate root: `[]` for `lib.rs`, `[transport, http]` for `transport/http/mod.rs`.
type ModPath = Vec<String>;

/// Files by their path under `src/`, sorted, and the files each imports.
struct Graph {
    names: Vec<String>,
    edges: Vec<BTreeSet<usize>>,
}

fn module_of(rel: &str) -> ModPath {
    let mut segs: ModPath = rel.trim_end_matches(".rs").split('/').map(String::from).collect();
    if matches!(segs.last().map(String::as_str), Some("lib" | "main" | "mod")) {
        segs.pop();
    }
    segs
}

fn is_cfg_test(attr: &syn::Attribute) -> bool {
    let syn::Meta::List(list) = &attr.meta else { return false };
    let cfg = list.tokens.to_string().replace(' ', "");
    list.path.is_ident("cfg")
        && (cfg == "test" || cfg.strip_prefix("all(").is_some_and(|all| all.split([',', ')']).any(|c| c == "test")))
}

/// What one file says, with paths made absolute: what it uses, and the names its `pub use`s hand on.
struct Collector<'a> {
    files: &'a HashMap<ModPath, usize>,
    module: ModPath,
    inline_modules: Vec<ModPath>,
    uses: Vec<ModPath>,
    faces: Vec<(ModPath, String, ModPath)>,
}

impl Collector<'_> {
    fn absolute(&self, segs: &[String], in_use: bool) -> Option<ModPath> {
        let here = &self.module[..];
        let is_child = |name: &str| {
            self.files.keys().any(|f| f.len() > here.len() && f.starts_with(here) && f[here.len()] == name)
        };
        let ups = segs.iter().take_while(|s| *s == "super").count();
        match segs.first()?.as_str() {
            "crate" => Some(segs[1..].to_vec()),
            "self" => Some([here, &segs[1..]].concat()),
            "super" => Some([&here[..here.len().saturating_sub(ups)], &segs[ups..]].concat()),
            child if in_use && is_child(child) => Some([here, segs].concat()),
            _ => None, // an external crate or a local name
        }
    }

    /// A path in code: through `crate`, `self`, `super`, or a child module named bare
    /// (`lifecycle::set_level` inside `router/mod.rs`), which shadows any crate of that name.
    fn code_path(&mut self, segs: &[String]) {
        if segs.len() > 1 {
            self.uses.extend(self.absolute(segs, true));
        }
    }

    /// Paths in tokens syn leaves unparsed (macro bodies, attribute arguments): `crate :: a :: b`.
    fn scan(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let colon = |i: usize| matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ':');
        for (i, token) in tokens.iter().enumerate() {
            match token {
                TokenTree::Group(group) => self.scan(group.stream()),
                TokenTree::Ident(ident) if i == 0 || !colon(i - 1) => {
                    let (mut segs, mut j) = (vec![ident.to_string()], i);
                    while let (true, true, Some(TokenTree::Ident(next))) =
                        (colon(j + 1), colon(j + 2), tokens.get(j + 3))
                    {
                        segs.push(next.to_string());
                        j += 3;
                    }
                    self.code_path(&segs);
                }
                _ => {}
            }
        }
    }
}

/// `a::{b, c::{self, d as e}, f::*}` -> `a::b` (b), `a::c` (c), `a::c::d` (e), `a::f` (none).
fn expand(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(ModPath, Option<String>)>) {
    let mut named = |ident: &syn::Ident, name: &syn::Ident| {
        let path = if ident == "self" { prefix.clone() } else { [&prefix[..], &[ident.to_string()]].concat() };
        let name = if name == "self" { path.last().cloned() } else { Some(name.to_string()) };
        out.push((path, name));
    };
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            expand(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => named(&n.ident, &n.ident),
        syn::UseTree::Rename(r) => named(&r.ident, &r.rename),
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(g) => g.items.iter().for_each(|tree| expand(tree, prefix, out)),
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut found = Vec::new();
        expand(&item.tree, &mut Vec::new(), &mut found);
        let face = !matches!(item.vis, syn::Visibility::Inherited);
        for (segs, name) in found {
            let Some(target) = self.absolute(&segs, true) else { continue };
            match name {
                _ if !face => self.uses.push(target),
                Some(name) if target[..] != [&self.module[..], std::slice::from_ref(&name)].concat() => {
                    self.faces.push((self.module.clone(), name, target))
                }
                _ => {}
            }
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.attrs.iter().any(is_cfg_test) {
            return;
        }
        if let Some((_, items)) = &item.content {
            self.module.push(item.ident.to_string());
            self.inline_modules.push(self.module.clone());
            items.iter().for_each(|item| self.visit_item(item));
            self.module.pop();
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            self.code_path(&path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>());
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.scan(mac.tokens.clone());
        visit::visit_macro(self, mac);
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if let syn::Meta::List(list) = &attr.meta {
            self.scan(list.tokens.clone()); // `#[doc = "…"]` is a name-value, left alone
        }
    }
}

type Faces = HashMap<(ModPath, String), ModPath>;

/// The file of the longest module prefix of `segs`, following a `pub use` of the next name.
fn resolve(segs: &[String], modules: &HashMap<ModPath, usize>, faces: &Faces, hops: usize) -> Option<usize> {
    (0..=segs.len()).rev().find_map(|cut| {
        let file = *modules.get(&segs[..cut])?;
        match segs.get(cut).and_then(|next| faces.get(&(segs[..cut].to_vec(), next.clone()))) {
            Some(target) if hops < 8 => resolve(&[&target[..], &segs[cut + 1..]].concat(), modules, faces, hops + 1),
            _ => Some(file),
        }
    })
}

/// The import graph of a crate's sources, given as (path under `src/`, text).
fn build(sources: &[(String, String)]) -> Graph {
    let mut sources = sources.to_vec();
    sources.sort();
    let files: HashMap<ModPath, usize> = sources.iter().enumerate().map(|(i, (rel, _))| (module_of(rel), i)).collect();
    let (mut modules, mut faces, mut uses) = (files.clone(), Faces::new(), Vec::new());
    for (i, (rel, text)) in sources.iter().enumerate() {
        let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{rel} does not parse: {e}"));
        let mut collector =
            Collector { files: &files, module: module_of(rel), inline_modules: vec![], uses: vec![], faces: vec![] };
        collector.visit_file(&file);
        modules.extend(collector.inline_modules.into_iter().map(|module| (module, i)));
        for (module, name, target) in collector.faces {
            faces.entry((module, name)).or_insert(target);
        }
        uses.push(collector.uses);
    }
    let edges = (uses.iter().enumerate())
        .map(|(i, paths)| paths.iter().filter_map(|p| resolve(p, &modules, &faces, 0)).filter(|&t| t != i).collect())
        .collect();
    Graph { names: sources.into_iter().map(|(rel, _)| rel).collect(), edges }
}

/// Kosaraju's strongly connected components with more than one file, largest first.
fn cycles(graph: &Graph) -> Vec<Vec<usize>> {
    fn dfs(v: usize, edges: &[BTreeSet<usize>], seen: &mut [bool], out: &mut Vec<usize>) {
        if !std::mem::replace(&mut seen[v], true) {
            edges[v].iter().for_each(|&w| dfs(w, edges, seen, out));
            out.push(v);
        }
    }
    let n = graph.names.len();
    let mut reversed = vec![BTreeSet::new(); n];
    for (v, targets) in graph.edges.iter().enumerate() {
        targets.iter().for_each(|&w| _ = reversed[w].insert(v));
    }
    let (mut seen, mut finished) = (vec![false; n], Vec::new());
    (0..n).for_each(|v| dfs(v, &graph.edges, &mut seen, &mut finished));
    let mut seen = vec![false; n];
    let mut found: Vec<Vec<usize>> = (finished.iter().rev())
        .map(|&v| {
            let mut component = Vec::new();
            dfs(v, &reversed, &mut seen, &mut component);
            component.sort();
            component
        })
        .filter(|component| component.len() > 1)
        .collect();
    found.sort_by_key(|c| (std::cmp::Reverse(c.len()), c[0]));
    found
}

/// Each loop with, per file, the files it imports inside the loop; then the figure.
fn report(graph: &Graph, cycles: &[Vec<usize>]) -> String {
    let mut out = String::new();
    for (n, cycle) in cycles.iter().enumerate() {
        writeln!(out, "cycle {}: {} files", n + 1, cycle.len()).unwrap();
        for &file in cycle {
            let inside: Vec<&str> =
                graph.edges[file].iter().filter(|t| cycle.contains(t)).map(|&t| graph.names[t].as_str()).collect();
            writeln!(out, "  {} -> {}", graph.names[file], inside.join(", ")).unwrap();
        }
    }
    let (total, largest) = (cycles.iter().map(Vec::len).sum::<usize>(), cycles.first().map_or(0, Vec::len));
    writeln!(out, "files in cycles: {total} (largest cycle: {largest} files)").unwrap();
    out
}

fn runtime_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-runtime/src");
    let (mut sources, mut dirs) = (Vec::new(), vec![src.clone()]);
    while let Some(dir) = dirs.pop() {
        for path in std::fs::read_dir(&dir).unwrap().map(|entry| entry.unwrap().path()) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let rel = path.strip_prefix(&src).unwrap().iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>();
                sources.push((rel.join("/"), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    build(&sources)
}

#[test]
fn runtime_files_import_each_other_in_no_loop_over_two() {
    let graph = runtime_graph();
    let cycles = cycles(&graph);
    let largest = cycles.first().map_or(0, Vec::len);
    assert!(largest <= MAX_CYCLE, "\n{}\n{RULE}", report(&graph, &cycles));
}

/// Runs with the ignored check above: every runtime file parses, and its imports are found.
#[test]
fn runtime_sources_parse() {
    let graph = runtime_graph();
    assert!(graph.names.contains(&"lib.rs".to_string()) && graph.edges.iter().any(|e| !e.is_empty()));
}

fn graph_of(files: &[(&str, &str)]) -> Graph {
    build(&files.iter().map(|(rel, text)| (rel.to_string(), text.to_string())).collect::<Vec<_>>())
}

fn imports<'a>(graph: &'a Graph, file: &str) -> Vec<&'a str> {
    let i = graph.names.iter().position(|n| n == file).unwrap();
    graph.edges[i].iter().map(|&t| graph.names[t].as_str()).collect()
}

#[test]
fn a_path_through_a_reexport_reaches_the_defining_file() {
    let graph = graph_of(&[
        ("lib.rs", "mod a; mod b; mod d; pub use a::Thing; pub mod face { pub use crate::d::Other; }"),
        ("a/mod.rs", "mod c; pub(crate) use self::c::Deep as Renamed;"),
        ("a/c.rs", "pub struct Deep;"),
        ("b.rs", "use crate::Thing; fn f(_: crate::face::Other) -> crate::a::Renamed { todo!() }"),
        ("d.rs", "pub struct Other;"),
    ]);
    assert_eq!(imports(&graph, "b.rs"), ["a/c.rs", "a/mod.rs", "d.rs"]);
    assert_eq!(imports(&graph, "lib.rs"), Vec::<&str>::new());
}

#[test]
fn a_pub_use_is_no_dependency() {
    let graph = graph_of(&[
        ("lib.rs", "mod a; mod b;"),
        ("a.rs", "pub use crate::b::X; pub(crate) use super::b::{Y, Z};"),
        ("b.rs", "pub struct X; pub struct Y; pub struct Z;"),
    ]);
    assert_eq!(imports(&graph, "a.rs"), Vec::<&str>::new());
}

#[test]
fn test_modules_doc_links_and_inline_modules_are_ignored() {
    let graph = graph_of(&[
        ("lib.rs", "mod a; mod b; struct Y;"),
        ("a.rs", "/// See [`X`](crate::b::X).\npub fn f() {}\n#[cfg(test)]\nmod tests { use crate::b::X; }"),
        ("b.rs", "pub struct X; mod unix { use super::X; } #[cfg(all(test, unix))] mod tests { use super::super::a; }"),
    ]);
    assert!(imports(&graph, "a.rs").is_empty() && imports(&graph, "b.rs").is_empty());
}

#[test]
fn a_path_through_a_child_module_named_bare_is_a_dependency() {
    let graph = graph_of(&[
        ("lib.rs", "mod router; mod core;"),
        ("router/mod.rs", "mod lifecycle; fn route() { lifecycle::set_level(); }"),
        ("router/lifecycle.rs", "pub fn set_level() { crate::core::f(); }"),
        ("core.rs", "pub fn f() {} fn g() { crate::router::route(); }"),
    ]);
    assert_eq!(imports(&graph, "router/mod.rs"), ["router/lifecycle.rs"]);
    assert_eq!(
        cycles(&graph).first().map(Vec::len),
        Some(3),
        "router/mod.rs -> lifecycle.rs -> core.rs -> router/mod.rs"
    );
}

#[test]
fn a_two_file_cycle_is_reported() {
    let graph = graph_of(&[
        ("lib.rs", "mod a; mod b; macro_rules! m { () => { $crate::a::f() } }"),
        ("a.rs", "use crate::b::X; pub fn f() {}"),
        ("b.rs", "pub struct X; fn g() { format!(\"{:?}\", crate::a::f()); }"),
    ]);
    let cycles = cycles(&graph);
    assert_eq!(cycles.len(), 1);
    let report = report(&graph, &cycles);
    assert!(report.contains("cycle 1: 2 files\n  a.rs -> b.rs\n  b.rs -> a.rs\n"), "{report}");
    assert_eq!(imports(&graph, "lib.rs"), ["a.rs"]);
}
