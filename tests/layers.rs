//! The import rule of `ARCHITECTURE.md` inside each crate, where Cargo cannot check it.
//! Between the crates Cargo does: the engines (`crates/engine`) depend on no other crate, and
//! the program (`src`) reaches the library (`crates/nqueens`) through its public API alone.
//!
//! Inside every crate of the workspace (the program, the library, the engines), no two files
//! import each other, directly or round a circle, and no two modules either; inside the
//! library and inside the program, each with its own layers, a file imports only from its own
//! layer and the layers below it.
//!
//! What counts as an import: file A imports file B when A's code names an item (a function, a
//! type, a trait, a constant, a static, a macro) that B defines, by a path from `crate::`,
//! `super::`, `self::` or one of A's own child modules, or by a name A brought in with `use`.
//! A re-export (`pub use`) is no import of its own: a path through one leads to the file that
//! defines the item, so that a module's file re-exporting its children's items, and a child
//! naming a sibling's item through its parent (`super::Unit`), are seen for what they are. A
//! `use` that A's code never names (a re-export) and a `mod` declaration import nothing. A
//! module may use its parent's items (a child file naming an item its parent's file defines),
//! and a parent its children's, but not both: the two files would be a circle.
//!
//! What counts as a module circle: two modules of one parent whose files import each other,
//! the files of a module's whole subtree taken together (`constraint/pictures.rs` importing
//! `trace`, which imports `constraint`, is a circle of the modules `constraint` and `trace`
//! though no two files import each other).
//!
//! Test code is not held to the rule: the modules declared under `#[cfg(test)]` (`tests.rs`
//! files), and any item marked `#[cfg(test)]`. Comments and the insides of string literals are
//! no code either.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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

/// The crates of the workspace: the folder of each one's sources, its root file, and at least
/// how many files it has (so that a checker that finds none fails).
const CRATES: &[(&str, &str, usize)] = &[
    ("src", "main.rs", 10),
    ("crates/nqueens/src", "lib.rs", 40),
    ("crates/engine/src", "lib.rs", 30),
];

/// A file's code with its comments, the insides of its string and character literals and its
/// test code (each item under `#[cfg(test)]`) blanked out, every other character where it was.
fn code_of(text: &str) -> String {
    strip_test_items(&blank_comments_and_literals(text))
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Blanks `out[from..to]` with spaces, newlines kept.
fn blank(out: &mut [u8], from: usize, to: usize) {
    let to = to.min(out.len());
    for b in &mut out[from..to] {
        if *b != b'\n' {
            *b = b' ';
        }
    }
}

/// `text` with its comments and the literals of strings and characters blanked out.
fn blank_comments_and_literals(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        let after_ident = i > 0 && is_ident(b[i - 1]);
        if b[i..].starts_with(b"//") {
            let end = text[i..].find('\n').map_or(b.len(), |at| i + at);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (0, i);
            while j < b.len() {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(hashes) = (!after_ident).then(|| raw_string_at(&b[i..])).flatten() {
            // r"..", r#".."#, br"..": ends at the quote followed by as many hashes.
            let open = b[i..].iter().position(|&c| c == b'"').unwrap() + 1;
            let close = format!("\"{}", "#".repeat(hashes));
            let end = text[i + open..]
                .find(&close)
                .map_or(b.len(), |at| i + open + at + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', 'é'), or else a lifetime's quote.
            let len = if b.get(i + 1) == Some(&b'\\') {
                // The escaped character, then up to the closing quote ('\n', '\'', '\u{e9}').
                let rest = b.get(i + 3..).unwrap_or_default();
                rest.iter().position(|&c| c == b'\'').map(|at| at + 4)
            } else {
                let c = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + c) == Some(&b'\'')).then_some(c + 2)
            };
            match len {
                Some(len) => {
                    blank(&mut out, i, i + len);
                    i += len;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("only whole characters are blanked")
}

/// The number of hashes of a raw string literal starting at `b` (`r"`, `r#"`, `br"`).
fn raw_string_at(b: &[u8]) -> Option<usize> {
    let rest = b.strip_prefix(b"b").unwrap_or(b).strip_prefix(b"r")?;
    let hashes = rest.iter().take_while(|&&c| c == b'#').count();
    (rest.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// The tokens of `code` with where each starts: names (`$crate` one of them), `::`, and every
/// other character alone.
fn tokens(code: &str) -> Vec<(usize, &str)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        } else if is_ident(b[i]) || (b[i] == b'$' && b.get(i + 1).is_some_and(|&c| is_ident(c))) {
            i += 1;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
        } else if b[i..].starts_with(b"::") {
            i += 2;
        } else {
            i += code[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push((start, &code[start..i]));
    }
    out
}

/// Whether `t` is a name (`$crate` one) rather than a number or a sign.
fn is_name(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') || t == "$crate"
}

/// The tokens of `#[cfg(test)]`.
const CFG_TEST: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];

/// `code` with each item, field, statement or arm under `#[cfg(test)]` blanked out.
fn strip_test_items(code: &str) -> String {
    let toks = tokens(code);
    let mut out = code.as_bytes().to_vec();
    let mut i = 0;
    while i < toks.len() {
        let marked = toks.len() - i >= CFG_TEST.len()
            && toks[i..i + CFG_TEST.len()].iter().map(|t| t.1).eq(CFG_TEST);
        if marked {
            let end = item_end(&toks, i + CFG_TEST.len());
            let to = toks.get(end).map_or(code.len(), |t| t.0);
            blank(&mut out, toks[i].0, to);
            i = end;
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("only whole characters are blanked")
}

/// Where the item starting at token `j` ends (the token after it): its other attributes, then
/// up to its `;` or its closing brace; a field, statement or arm ends at a `,` too, or before
/// the bracket that closes what holds it.
fn item_end(toks: &[(usize, &str)], mut j: usize) -> usize {
    while toks.get(j).map(|t| t.1) == Some("#") {
        j = group_end(toks, j + 1);
    }
    let mut k = j;
    if toks.get(k).map(|t| t.1) == Some("pub") {
        k += 1;
        if toks.get(k).map(|t| t.1) == Some("(") {
            k = group_end(toks, k);
        }
    }
    let item = toks.get(k).is_some_and(|t| {
        [
            "fn",
            "struct",
            "enum",
            "impl",
            "mod",
            "use",
            "const",
            "static",
            "trait",
            "type",
            "union",
            "unsafe",
            "extern",
            "async",
            "macro_rules",
        ]
        .contains(&t.1)
    });
    let mut depth = 0usize;
    while j < toks.len() {
        match toks[j].1 {
            "(" | "[" | "{" => depth += 1,
            t @ (")" | "]" | "}") => {
                if depth == 0 {
                    return j;
                }
                depth -= 1;
                if depth == 0 && t == "}" {
                    return j + 1;
                }
            }
            ";" if depth == 0 => return j + 1,
            "," if depth == 0 && !item => return j + 1,
            _ => {}
        }
        j += 1;
    }
    j
}

/// The token after the bracketed group that opens at token `j`.
fn group_end(toks: &[(usize, &str)], mut j: usize) -> usize {
    let mut depth = 0usize;
    while j < toks.len() {
        match toks[j].1 {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// One `use` of a file: the path it names and the name it brings in (`None` for a glob).
type Use = (Vec<String>, Option<String>);

/// Parses the use tree at token `j` below the path `prefix`, into `out`; returns the token
/// after it.
fn use_tree(toks: &[(usize, &str)], mut j: usize, prefix: &[String], out: &mut Vec<Use>) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(j).map(|t| t.1) {
            Some("::") => j += 1,
            Some("{") => {
                j += 1;
                loop {
                    match toks.get(j).map(|t| t.1) {
                        Some(",") => j += 1,
                        Some("}") => return j + 1,
                        None => return j,
                        _ => j = use_tree(toks, j, &path, out).max(j + 1),
                    }
                }
            }
            Some("*") => {
                out.push((path, None));
                return j + 1;
            }
            Some(t) if is_name(t) => {
                path.push(t.to_string());
                j += 1;
                if toks.get(j).map(|t| t.1) == Some("::") {
                    continue;
                }
                if t == "self" {
                    path.pop();
                }
                let mut name = path.last().cloned().unwrap_or_default();
                if toks.get(j).map(|t| t.1) == Some("as") {
                    name = toks.get(j + 1).map_or("_", |t| t.1).to_string();
                    j += 2;
                }
                out.push((path, Some(name)));
                return j;
            }
            _ => return j,
        }
    }
}

/// One file of a crate: its module, what it declares and defines, what it brings in, and the
/// rest of its code.
struct Module {
    /// The module's path from the crate root (empty for the root).
    path: Vec<String>,
    /// Its code ([`code_of`]).
    code: String,
    /// Its child modules.
    children: BTreeSet<String>,
    /// The names of the items it defines.
    defines: BTreeSet<String>,
    /// The macros it defines (`macro_rules!`).
    macros: BTreeSet<String>,
    /// Its `use` declarations.
    uses: Vec<Use>,
    /// Its tokens outside its `use` and `mod` declarations.
    body: Vec<String>,
}

impl Module {
    /// Reads the module at `path` from `code` (its file's code), its children among `all`.
    fn new(path: Vec<String>, code: String, all: &BTreeSet<Vec<String>>) -> Module {
        let toks = tokens(&code);
        let children = all
            .iter()
            .filter(|m| m.len() == path.len() + 1 && m.starts_with(&path))
            .map(|m| m[path.len()].clone())
            .collect();
        let (mut defines, mut macros) = (BTreeSet::new(), BTreeSet::new());
        for w in toks.windows(3) {
            let [(_, a), (_, b), (_, c)] = [w[0], w[1], w[2]];
            let kinds = [
                "fn", "struct", "enum", "const", "static", "trait", "type", "union",
            ];
            if kinds.contains(&a) && is_name(b) && !["fn", "unsafe", "_"].contains(&b) {
                defines.insert(b.to_string());
            }
            if a == "macro_rules" && b == "!" {
                macros.insert(c.to_string());
            }
        }
        let (mut uses, mut body) = (Vec::new(), Vec::new());
        let mut j = 0;
        while j < toks.len() {
            let t = toks[j].1;
            let declares_mod = t == "mod" && toks.get(j + 2).map(|t| t.1) == Some(";");
            if t == "use" {
                j = use_tree(&toks, j + 1, &[], &mut uses);
            } else if declares_mod {
                j += 3;
            } else {
                body.push(t.to_string());
                j += 1;
            }
        }
        Module {
            path,
            code,
            children,
            defines,
            macros,
            uses,
            body,
        }
    }

    /// The module's name: its path (`join::units`), or `crate` for the root.
    fn name(&self) -> String {
        name_of(&self.path)
    }

    /// The path a name brought in with `use` stands for.
    fn alias(&self, name: &str) -> Option<&Vec<String>> {
        self.uses
            .iter()
            .rev()
            .find(|(_, n)| n.as_deref() == Some(name))
            .map(|(path, _)| path)
    }
}

fn name_of(path: &[String]) -> String {
    if path.is_empty() {
        "crate".to_string()
    } else {
        path.join("::")
    }
}

/// The files of one crate and the imports between them.
struct Crate {
    modules: Vec<Module>,
    index: BTreeMap<Vec<String>, usize>,
}

/// The imports of a crate: for each file (by index), the files it imports, each with the
/// paths that import it.
type Imports = BTreeMap<usize, BTreeMap<usize, BTreeSet<String>>>;

impl Crate {
    /// The crate whose root file is `root`: every module its `mod` declarations reach, test
    /// modules left out.
    fn read(root: &Path) -> Crate {
        fn walk(file: &Path, path: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
            let text = std::fs::read_to_string(file)
                .unwrap_or_else(|e| panic!("{} is read: {e}", file.display()));
            let code = code_of(&text);
            let toks = tokens(&code);
            let stem = file.file_stem().unwrap().to_string_lossy();
            let dir = if ["mod", "lib", "main"].contains(&stem.as_ref()) {
                file.parent().unwrap().to_path_buf()
            } else {
                file.with_extension("")
            };
            for (j, w) in toks.windows(3).enumerate() {
                if w[0].1 != "mod" || !is_name(w[1].1) || w[2].1 != ";" {
                    continue;
                }
                let name = w[1].1;
                let mut child = dir.join(format!("{name}.rs"));
                if !child.exists() {
                    child = dir.join(name).join("mod.rs");
                }
                // A `#[path = "…"]` attribute: the literal is blanked in the code, not in
                // the text.
                let mut attrs = toks[..j]
                    .iter()
                    .rev()
                    .take_while(|t| t.1 != ";" && t.1 != "}");
                if let Some(&(at, _)) = attrs.find(|t| t.1 == "path") {
                    let literal = text[at..].split('"').nth(1).expect("a #[path] literal");
                    child = file.parent().unwrap().join(literal);
                }
                let mut sub = path.clone();
                sub.push(name.to_string());
                walk(&child, sub, out);
            }
            out.push((path, code));
        }
        let mut files = Vec::new();
        walk(root, Vec::new(), &mut files);
        Crate::new(files)
    }

    /// The crate of `files` (module path, code).
    fn new(files: Vec<(Vec<String>, String)>) -> Crate {
        let all: BTreeSet<Vec<String>> = files.iter().map(|f| f.0.clone()).collect();
        let mut modules: Vec<Module> = files
            .into_iter()
            .map(|(path, code)| Module::new(path, code, &all))
            .collect();
        modules.sort_by(|a, b| a.path.cmp(&b.path));
        let index = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.path.clone(), i))
            .collect();
        Crate { modules, index }
    }

    /// The file that defines the item `path` names from module `from`: `None` for a path to
    /// a module, or out of the crate.
    fn resolve(&self, from: usize, path: &[String], depth: usize) -> Option<usize> {
        let m = &self.modules[from];
        let first = path.first()?.as_str();
        let (at, rest) = match first {
            "crate" | "$crate" => (Vec::new(), &path[1..]),
            "super" => {
                let (mut at, mut rest) = (m.path.clone(), path);
                while rest.first().map(String::as_str) == Some("super") {
                    at.pop()?;
                    rest = &rest[1..];
                }
                (at, rest)
            }
            "self" => (m.path.clone(), &path[1..]),
            _ if m.children.contains(first) => ([&m.path[..], &path[..1]].concat(), &path[1..]),
            _ => {
                let alias = m.alias(first)?;
                if depth > 16 || alias[..] == path[..1] {
                    return None;
                }
                return self.resolve(from, &[&alias[..], &path[1..]].concat(), depth + 1);
            }
        };
        self.walk(at, rest, depth)
    }

    /// The file that defines the item `rest` names inside the module `at`.
    fn walk(&self, mut at: Vec<String>, mut rest: &[String], depth: usize) -> Option<usize> {
        loop {
            let here = *self.index.get(&at)?;
            let m = &self.modules[here];
            let s = rest.first()?;
            if s == "self" {
                rest = &rest[1..];
            } else if m.children.contains(s) {
                at.push(s.clone());
                rest = &rest[1..];
            } else if let Some(alias) = m.alias(s).filter(|_| depth <= 16) {
                // Before the items: a method may share a re-exported name.
                return self.resolve(here, &[&alias[..], &rest[1..]].concat(), depth + 1);
            } else if m.defines.contains(s) || m.macros.contains(s) {
                return Some(here);
            } else {
                // A glob's items, or else a name this reading cannot place: the file itself.
                let globs = m.uses.iter().filter(|(_, n)| n.is_none());
                let found = globs
                    .filter(|_| depth <= 16)
                    .find_map(|(g, _)| self.resolve(here, &[&g[..], rest].concat(), depth + 1));
                return Some(found.unwrap_or(here));
            }
        }
    }

    /// Every file's imports.
    fn imports(&self) -> Imports {
        let macros: BTreeMap<&str, usize> = self
            .modules
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.macros.iter().map(move |name| (name.as_str(), i)))
            .collect();
        let mut out = Imports::new();
        for (from, m) in self.modules.iter().enumerate() {
            // Each path named, with the file it leads to where that is known already (a macro).
            let mut named: Vec<(Vec<String>, Option<usize>)> = Vec::new();
            let body = &m.body;
            for (i, t) in body.iter().enumerate() {
                let prev = if i == 0 { "" } else { body[i - 1].as_str() };
                if !is_name(t) || prev == "::" || prev == "." {
                    continue;
                }
                let mut path = vec![t.clone()];
                while body.get(path.len() * 2 - 1 + i).map(String::as_str) == Some("::")
                    && body.get(path.len() * 2 + i).is_some_and(|s| is_name(s))
                {
                    path.push(body[path.len() * 2 + i].clone());
                }
                let roots = ["crate", "$crate", "super", "self"];
                if path.len() > 1 && (roots.contains(&t.as_str()) || m.children.contains(t)) {
                    named.push((path, None));
                } else if let Some(alias) = m.alias(t) {
                    // A name brought in with `use`, alone or leading a path.
                    named.push(([&alias[..], &path[1..]].concat(), None));
                } else if body.get(i + 1).map(String::as_str) == Some("!")
                    && let Some(&def) = macros.get(t.as_str())
                {
                    named.push((vec![format!("{t}!")], Some(def)));
                }
            }
            let to = out.entry(from).or_default();
            for (path, known) in named {
                let file = known.or_else(|| self.resolve(from, &path, 0));
                if let Some(file) = file.filter(|&file| file != from) {
                    to.entry(file).or_default().insert(path.join("::"));
                }
            }
        }
        out
    }
}

/// The circles of a graph: its strongly connected components of more than one node (Tarjan's
/// algorithm), each sorted.
fn circles<T: Ord + Clone>(edges: &BTreeMap<T, BTreeSet<T>>) -> BTreeSet<Vec<T>> {
    struct Walk<'a, T> {
        edges: &'a BTreeMap<T, BTreeSet<T>>,
        index: BTreeMap<&'a T, usize>,
        low: BTreeMap<&'a T, usize>,
        stack: Vec<&'a T>,
        on_stack: BTreeSet<&'a T>,
        out: BTreeSet<Vec<T>>,
    }
    impl<'a, T: Ord + Clone> Walk<'a, T> {
        fn visit(&mut self, v: &'a T) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            let edges = self.edges;
            for w in edges.get(v).into_iter().flatten() {
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
                    component.push(w.clone());
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
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.out
}

/// What the check of one crate finds.
#[derive(Debug, Default)]
struct Findings {
    /// Circles of files, each its files' modules and the imports between them.
    files: Vec<String>,
    /// Circles of modules of one parent, each named by their modules.
    modules: Vec<String>,
    /// Imports up the layers: the importing module and the top-level module it imports.
    upward: BTreeSet<(String, String)>,
}

impl Findings {
    fn is_empty(&self) -> bool {
        self.files.is_empty() && self.modules.is_empty() && self.upward.is_empty()
    }
}

/// The top-level module of `path` (`crate` for the root).
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

/// Checks `krate`: circles of files, circles of modules, and, given `layers`, imports up the
/// layers.
fn check(krate: &Crate, layers: Option<&[(&str, &[&str])]>) -> Findings {
    let imports = krate.imports();
    let mut found = Findings::default();
    let name = |i: usize| krate.modules[i].name();
    let graph: BTreeMap<usize, BTreeSet<usize>> = imports
        .iter()
        .map(|(&a, to)| (a, to.keys().copied().collect()))
        .collect();
    // Circles of files.
    for circle in circles(&graph) {
        let mut words = Vec::new();
        for &a in &circle {
            for (&b, paths) in &imports[&a] {
                if circle.contains(&b) {
                    let path = paths.iter().next().unwrap();
                    words.push(format!("{} -> {} ({path})", name(a), name(b)));
                }
            }
        }
        found.files.push(words.join(", "));
    }
    // Circles of modules: the children of each module, each with its whole subtree.
    for parent in &krate.modules {
        let p = &parent.path;
        let child = |i: usize| {
            let q = &krate.modules[i].path;
            (q.len() > p.len() && q.starts_with(p)).then(|| q[p.len()].clone())
        };
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (&a, to) in &imports {
            for &b in to.keys() {
                if let (Some(ca), Some(cb)) = (child(a), child(b))
                    && ca != cb
                {
                    edges.entry(ca).or_default().insert(cb);
                }
            }
        }
        for circle in circles(&edges) {
            let named: Vec<String> = circle
                .iter()
                .map(|c| name_of(&[&p[..], std::slice::from_ref(c)].concat()))
                .collect();
            found.modules.push(named.join(" <-> "));
        }
    }
    if let Some(layers) = layers {
        for (&a, to) in &imports {
            for &b in to.keys() {
                if layer_of(layers, &name(b)) > layer_of(layers, &name(a)) {
                    found.upward.insert((name(a), top(&name(b)).to_string()));
                }
            }
        }
    }
    found
}

/// The crate under `src` (at the workspace's root) whose root file is `root`.
fn read_crate(src: &str, root: &str) -> Crate {
    Crate::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(src).join(root))
}

/// Checks the crate under `src`, with its layers where it has them.
fn assert_clean(src: &str, layers: Option<&[(&str, &[&str])]>) {
    let (_, root, min_files) = CRATES.iter().find(|c| c.0 == src).unwrap();
    let krate = read_crate(src, root);
    assert!(
        krate.modules.len() >= *min_files,
        "the files of {src} were found"
    );
    let found = check(&krate, layers);
    assert!(found.is_empty(), "{src}: {found:#?}");
}

#[test]
fn the_programs_imports_go_down_its_layers_in_no_circle() {
    assert_clean("src", Some(BIN_LAYERS));
}

#[test]
fn the_librarys_imports_go_down_its_layers_in_no_circle() {
    assert_clean("crates/nqueens/src", Some(LAYERS));
}

#[test]
fn the_engines_files_and_modules_import_in_no_circle() {
    assert_clean("crates/engine/src", None);
}

/// A crate of `files` (module, code), each file's code read as the check reads it.
fn crate_of(files: &[(&str, &str)]) -> Crate {
    let path = |m: &str| match m {
        "crate" => Vec::new(),
        m => m.split("::").map(String::from).collect(),
    };
    Crate::new(
        files
            .iter()
            .map(|(m, text)| (path(m), code_of(text)))
            .collect(),
    )
}

#[test]
fn the_checker_sees_an_import_up_the_layers_and_a_circle() {
    let krate = crate_of(&[
        ("crate", "mod board; mod constraint; mod plan;"),
        (
            "board",
            "use crate::plan::{Plan, Work};\n// use crate::run::Job;\n\
             pub struct Size;\npub fn check(_: Plan) {}",
        ),
        (
            "plan",
            "use crate::{board::Size, constraint::parse::{self, parse_board}};\n\
             pub struct Plan; pub enum Work {}\nfn f(_: Size) { parse_board() }",
        ),
        ("constraint", "pub mod parse;"),
        (
            "constraint::parse",
            "pub fn parse_board() { crate::board::check(); super::parse::g(); }\nfn g() {}",
        ),
    ]);
    let found = check(&krate, Some(LAYERS));
    assert_eq!(
        found.upward,
        BTreeSet::from([("board".to_string(), "plan".to_string())]),
        "the comment's import is not one"
    );
    assert_eq!(found.files.len(), 1, "{found:#?}");
    for m in [
        "board -> plan",
        "plan -> constraint::parse",
        "constraint::parse -> board",
    ] {
        assert!(found.files[0].contains(m), "{found:#?}");
    }
    assert_eq!(found.modules.len(), 1, "{found:#?}");
    assert!(found.modules[0].contains("board <-> constraint <-> plan"));
}

/// Two children that import each other through their parent's re-exports are a circle; the
/// re-exports are none of the parent's.
#[test]
fn a_circle_through_the_parents_re_exports_is_seen() {
    let krate = crate_of(&[
        ("crate", "mod a;"),
        (
            "a",
            "mod b; mod c;\npub use b::B;\npub(crate) use c::{self, C};",
        ),
        ("a::b", "pub struct B;\nfn f(_: super::C) {}"),
        ("a::c", "use super::B;\npub struct C;\nfn g(_: B) {}"),
    ]);
    let found = check(&krate, None);
    assert_eq!(
        found.files,
        ["a::b -> a::c (super::C), a::c -> a::b (super::B)"],
        "{found:#?}"
    );
    assert_eq!(found.modules, ["a::b <-> a::c"]);
}

/// A child may use its parent's items, and a parent its children's, but not both.
#[test]
fn a_parent_and_its_child_importing_each_other_are_a_circle() {
    let krate = crate_of(&[
        ("crate", "mod x; mod z;"),
        ("x", "mod y;\npub struct S;\nfn f() { y::g() }"),
        ("x::y", "pub fn g() {}\nfn h(_: super::S) {}"),
        ("z", "mod w;\npub struct T;"),
        ("z::w", "fn h(_: super::T) {}"),
    ]);
    let found = check(&krate, None);
    assert_eq!(found.files, ["x -> x::y (y::g), x::y -> x (super::S)"]);
    assert!(
        found.modules.is_empty(),
        "a parent is no sibling of its children"
    );
}

/// Modules whose files import each other only across their subtrees are a circle of modules.
#[test]
fn a_circle_of_modules_is_seen_where_no_files_make_one() {
    let krate = crate_of(&[
        ("crate", "mod p;"),
        ("p", "mod q; mod s;"),
        ("p::q", "mod r;\npub struct U;"),
        ("p::q::r", "fn f() { crate::p::s::t() }"),
        ("p::s", "pub fn t() {}\nfn g(_: super::q::U) {}"),
    ]);
    let found = check(&krate, None);
    assert!(found.files.is_empty(), "{found:#?}");
    assert_eq!(found.modules, ["p::q <-> p::s"]);
}

/// Comments, strings, characters and test code import nothing; a macro's uses do.
#[test]
fn only_code_imports() {
    let krate = crate_of(&[
        ("crate", "mod a; mod b;"),
        (
            "a",
            "// crate::b::B\n/* crate::b::B */\nconst S: &str = \"crate::b::B\";\n\
             const R: &str = r##\"crate::b::B \"# x\"##;\nconst C: char = '\"';\n\
             fn f<'l>(_: &'l u8) { crate::b::used(); twice!(); }\n\
             #[cfg(test)]\nmod tests {\n    use crate::b::B;\n}\n\
             #[cfg(test)]\nfn helper(_: crate::b::B) {}\n\
             pub struct A;",
        ),
        (
            "b",
            "pub struct B;\npub fn used() {}\nmacro_rules! twice { () => {} }\n\
             fn g() { twice!(); }",
        ),
    ]);
    let imports = krate.imports();
    let named: BTreeSet<_> = imports[&1].values().flatten().cloned().collect();
    let want = ["crate::b::used", "twice!"].map(String::from);
    assert_eq!(named, BTreeSet::from(want));
    assert!(imports[&2].is_empty());
    let code = &krate.modules[1].code;
    assert!(code.contains("fn f<'l>(_: &'l u8)") && !code.contains("helper"));
}

/// The modules under `src` with their code, comments and tests left out.
fn code_under(src: &Path) -> Vec<(String, String)> {
    let root = ["lib.rs", "main.rs"]
        .into_iter()
        .map(|r| src.join(r))
        .find(|r| r.exists())
        .expect("a crate root");
    Crate::read(&root)
        .modules
        .into_iter()
        .map(|m| (m.name(), m.code))
        .collect()
}

/// The door between plan and engines (`ARCHITECTURE.md`): outside the plan's own files, only
/// the engines' adapters (`run/engines/`) match on the kinds of work a plan holds
/// (`plan::Work`), so that a new kind of work touches the plan, its engine and its adapter.
#[test]
fn only_the_door_names_the_kinds_of_work() {
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/nqueens/src");
    let files = code_under(&lib);
    let door = "run::engines";
    let in_door = |m: &str| m == door || m.starts_with("run::engines::");
    assert!(files.iter().any(|(m, _)| m == door), "the door was found");
    let naming: Vec<&String> = files
        .iter()
        .filter(|(m, code)| {
            !in_door(m) && top(m) != "plan" && (code.contains("Work::") || code.contains("Work {"))
        })
        .map(|(m, _)| m)
        .collect();
    assert!(
        naming.is_empty(),
        "kinds of work named outside the door: {naming:?}"
    );
    // The check sees a match where there is one.
    let door = &files.iter().find(|(m, _)| m == door).unwrap().1;
    assert!(door.contains("Work::Join"));
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
