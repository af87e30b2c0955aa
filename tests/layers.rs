//! The import rule of `ARCHITECTURE.md` inside a crate, where Cargo cannot check it. Between
//! the crates Cargo does: the engines (`crates/engine`) depend on no other crate, and the
//! program (`src`) reaches the library (`crates/nqueens`) through its public API alone. Inside
//! the library and inside the program (each with its own layers), a file imports
//! only from its own layer and the layers below it, and no two modules import each other,
//! directly or round a circle (a module may use its parent's items). Test code (`tests.rs`
//! files, and a file's `mod tests` at its end) is not held to the rule.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The library's layers, lowest first: each top-level module of `crates/nqueens/src/` (and
/// `crate`, the crate root's own items) in one of them. The engines are another crate, below
/// them all.
const LAYERS: &[(&str, &[&str])] = &[
    ("facts", &["board", "hash", "known", "shard", "system"]),
    ("boards", &["constraint", "solutions", "trace"]),
    ("plan", &["plan"]),
    ("tally", &["tally"]),
    ("persist", &["persist"]),
    ("config", &["config"]),
    ("errors", &["error"]),
    ("run", &["run"]),
    ("top", &["crate"]),
];

/// The program's layers, lowest first: exit codes, arguments and output formats; what the
/// commands read and show (boards, progress, estimates, a count's status); the commands; the dispatch of the
/// small tasks; `main`.
const BIN_LAYERS: &[(&str, &[&str])] = &[
    ("words", &["args", "exit", "machine", "output"]),
    ("inputs", &["boards", "estimate", "progress", "status"]),
    ("commands", &["bench", "constrained", "count"]),
    ("tasks", &["tasks"]),
    ("top", &["crate"]),
];

/// A module path (`plan::join`) for a source file under `src`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    if parts.is_empty() {
        "crate".to_string()
    } else {
        parts.join("::")
    }
}

/// The source files under `src` with their modules, test files left out.
fn sources(src: &Path) -> Vec<(String, PathBuf)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|f| {
            let name = f.file_name().unwrap().to_string_lossy();
            name != "tests.rs" && name != "tests_support.rs"
        })
        .map(|f| (module_of(src, &f), f))
        .collect()
}

/// The code of a file without its comments and its trailing `mod tests`.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path a file's code names from `crate::`, `super::` or `self::`, with `use`
/// groups (`use crate::{a::b, c}`) expanded, as lists of segments.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .find(|p| bytes[i..].starts_with(p.as_bytes()))
            .filter(|_| i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b':');
        match starts {
            Some(_) => {
                let (paths, end) = parse_path(code, i, Vec::new());
                out.extend(paths);
                i = end.max(i + 1);
            }
            None => i += 1,
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Parses the path starting at `i` (after the segments `prefix`): its segments, and a brace
/// group's paths each; returns them and where the path ends.
fn parse_path(code: &str, mut i: usize, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let bytes = code.as_bytes();
    let mut segments = prefix;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'{' {
            let mut paths = Vec::new();
            i += 1;
            loop {
                while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b',') {
                    i += 1;
                }
                if i >= bytes.len() || bytes[i] == b'}' {
                    return (paths, i + 1);
                }
                let (inner, end) = parse_path(code, i, segments.clone());
                paths.extend(inner);
                i = end;
            }
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        if i == start {
            return (vec![segments], i);
        }
        segments.push(code[start..i].to_string());
        if code[i..].starts_with("::") {
            i += 2;
        } else {
            // A trailing ` as name` or anything else ends the path.
            while i < bytes.len() && !matches!(bytes[i], b',' | b'}' | b';' | b'\n') {
                i += 1;
            }
            return (vec![segments], i);
        }
    }
}

/// The module a path from `from` leads to: the longest of `modules` it names (`crate` where
/// it names an item of the crate root).
fn target(from: &str, path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    let mut at: Vec<String> = match from {
        "crate" => Vec::new(),
        m => m.split("::").map(String::from).collect(),
    };
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => at.clear(),
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                at.pop()?;
                rest = &rest[1..];
            }
        }
        Some("self") => {}
        _ => return None,
    }
    if matches!(rest.first().map(String::as_str), Some("crate" | "self")) {
        rest = &rest[1..];
    }
    let mut best = if at.is_empty() {
        "crate".to_string()
    } else {
        at.join("::")
    };
    for segment in rest {
        at.push(segment.clone());
        let m = at.join("::");
        if modules.contains(&m) {
            best = m;
        } else {
            break;
        }
    }
    Some(best)
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap()
}

fn layer_of(layers: &[(&str, &[&str])], module: &str) -> usize {
    let t = top(module);
    layers
        .iter()
        .position(|(_, tops)| tops.contains(&t))
        .unwrap_or_else(|| panic!("module {t} is in no layer: add it to LAYERS"))
}

/// The module graph of `files` (module, code): edges from each module to the modules it
/// imports, other than itself and its ancestors.
fn graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, code) in files {
        let to = edges.entry(m.clone()).or_default();
        for path in paths_in(code) {
            if let Some(t) = target(m, &path, &modules) {
                let ancestor = m.starts_with(&format!("{t}::")) || *m == t;
                if !ancestor {
                    to.insert(t);
                }
            }
        }
    }
    edges
}

/// The imports that go up `layers`.
fn upward(
    layers: &[(&str, &[&str])],
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (m, to) in edges {
        for t in to {
            if layer_of(layers, t) > layer_of(layers, m) {
                out.insert((m.clone(), top(t).to_string()));
            }
        }
    }
    out
}

/// The circles of the graph: its strongly connected components of more than one module
/// (Tarjan's algorithm), each sorted.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<Vec<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: BTreeSet<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            let edges = self.edges;
            for w in edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.out.insert(component);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: BTreeSet::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out
}

/// The modules under `src` with their code, comments and tests left out.
fn code_under(src: &Path) -> Vec<(String, String)> {
    sources(src)
        .into_iter()
        .map(|(m, f)| (m, code_of(&std::fs::read_to_string(f).unwrap())))
        .collect()
}

/// The imports of the crate under `src` (at least `min_files` files) that go up `layers`, and
/// the circles of its modules: none of either.
fn assert_layered(src: &str, layers: &[(&str, &[&str])], min_files: usize) {
    let files = code_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join(src));
    assert!(files.len() >= min_files, "the files of {src} were found");
    let edges = graph(&files);
    let up = upward(layers, &edges);
    let found = circles(&edges);
    assert!(
        up.is_empty() && found.is_empty(),
        "{src}: imports up the layers: {up:?}; circles: {found:?}"
    );
}

#[test]
fn the_programs_imports_go_down_its_layers_in_no_circle() {
    assert_layered("src", BIN_LAYERS, 6);
}

#[test]
fn the_librarys_imports_go_down_its_layers_in_no_circle() {
    assert_layered("crates/nqueens/src", LAYERS, 21);
}

#[test]
fn the_checker_sees_an_import_up_the_layers_and_a_circle() {
    let files = vec![
        (
            "board".to_string(),
            "use crate::plan::{Plan, Work};\n// use crate::run::Job;\n".to_string(),
        ),
        (
            "plan".to_string(),
            "use crate::{board::Size, constraint::parse::{self, parse_board}};".to_string(),
        ),
        ("constraint".to_string(), "pub mod parse;".to_string()),
        (
            "constraint::parse".to_string(),
            "fn f() { crate::board::check(); super::parse::g(); }".to_string(),
        ),
    ];
    let files: Vec<(String, String)> = files.into_iter().map(|(m, t)| (m, code_of(&t))).collect();
    let edges = graph(&files);
    let up = upward(LAYERS, &edges);
    assert_eq!(
        up,
        BTreeSet::from([("board".to_string(), "plan".to_string())]),
        "the comment's import is not one"
    );
    let found = circles(&edges);
    let want = ["board", "constraint::parse", "plan"]
        .map(String::from)
        .to_vec();
    assert_eq!(found, BTreeSet::from([want]));
}

/// The door between plan and engines (`ARCHITECTURE.md`): outside the plan's own files, only
/// `run/prepared.rs` matches on the kinds of work a plan holds (`plan::Work`), so that a new
/// kind of work touches the plan, its engine and that one file.
#[test]
fn only_the_door_names_the_kinds_of_work() {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/nqueens/src");
    let files = code_under(&lib);
    let door = "run::prepared";
    assert!(files.iter().any(|(m, _)| m == door), "the door was found");
    let naming: Vec<&String> = files
        .iter()
        .filter(|(m, code)| {
            m != door && top(m) != "plan" && (code.contains("Work::") || code.contains("Work {"))
        })
        .map(|(m, _)| m)
        .collect();
    assert!(
        naming.is_empty(),
        "kinds of work named outside the door: {naming:?}"
    );
    // The check sees a match where there is one.
    let prepared = &files.iter().find(|(m, _)| m == door).unwrap().1;
    assert!(prepared.contains("Work::Join"));
}

/// Whether `code` names one of the engines' types that the plan has its own of.
fn names_an_engine_type(code: &str) -> bool {
    [
        "kernel::",
        "join::Unit",
        "join::Middle",
        "nqueens_engine::Slice",
    ]
    .iter()
    .any(|t| code.contains(t))
}

/// The plan keeps its work in its own types (`plan/work.rs`): the plan, its kinds of work and
/// its compact entries name none of the engines' types, so that an engine's change of its own
/// types cannot move a plan's identity. The builders may use the engines' geometry, whose
/// results `plan/work.rs` takes in (its `From` impls); the door gives the work back.
#[test]
fn the_plan_keeps_its_work_in_its_own_types() {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/nqueens/src");
    let files = code_under(&lib);
    let code = |m: &str| {
        let found = files.iter().find(|(name, _)| name == m);
        found.unwrap_or_else(|| panic!("{m} was found")).1.clone()
    };
    for m in ["plan", "plan::entries"] {
        assert!(!names_an_engine_type(&code(m)), "{m} names an engine type");
    }
    let work = code("plan::work");
    let (kinds, conversions) = work
        .split_once("impl From<")
        .expect("plan/work.rs takes the engines' work in");
    let kinds: String = kinds
        .lines()
        .filter(|l| !l.trim_start().starts_with("use "))
        .collect();
    assert!(
        !names_an_engine_type(&kinds),
        "the kinds of work name an engine type"
    );
    // The check sees an engine type where there is one.
    assert!(names_an_engine_type(conversions));
}
