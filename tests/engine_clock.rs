//! The engines read no clock: they count and report what they did, and whoever runs them times
//! them from outside (a probe of a join unit marks the phases of its work for the caller's
//! clock, `join::Phases`). Read from the sources, as `tests/layers.rs` reads the imports: no
//! code of `crates/engine/src` outside its tests names `Instant`, `SystemTime`, `Duration` or
//! `std::time`. A slice still stops on request, by the stop flag the caller raises.

use std::path::{Path, PathBuf};

const ENGINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/engine/src");

/// The names of the clock that the engines' code may not use.
const CLOCK: [&str; 4] = ["Instant", "SystemTime", "Duration", "std::time"];

/// `text` with its comments and the insides of its string literals blanked out.
fn without_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let end = if b[i..].starts_with(b"//") {
            i + b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .unwrap_or(b.len() - i)
        } else if b[i..].starts_with(b"/*") {
            i + 2 + text[i + 2..].find("*/").map_or(b.len() - i - 2, |k| k + 2)
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            j + 1
        } else {
            out.push(b[i]);
            i += 1;
            continue;
        };
        out.push(b' ');
        i = end.min(b.len());
    }
    String::from_utf8(out).unwrap()
}

/// `code` without the items under `#[cfg(test)]`, and the names of the modules so declared
/// in files of their own (`#[cfg(test)] mod tests;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let (mut out, mut modules, mut rest) = (String::new(), Vec::new(), code);
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let semi = item.find(';').unwrap_or(item.len());
        let end = match item.find('{').filter(|&open| open < semi) {
            Some(open) => {
                let mut depth = 0;
                let close = item[open..].char_indices().find(|&(_, c)| {
                    depth += i32::from(c == '{') - i32::from(c == '}');
                    depth == 0
                });
                open + close.expect("a closing brace").0 + 1
            }
            None => {
                let words: Vec<&str> = item[..semi].split_whitespace().collect();
                if let [.., "mod", name] = words[..] {
                    modules.push(name.to_string());
                }
                semi + 1
            }
        };
        rest = &item[end.min(item.len())..];
    }
    out.push_str(rest);
    (out, modules)
}

/// The clock's names that `code` uses, as whole words.
fn clock_names(code: &str) -> Vec<&'static str> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    CLOCK
        .into_iter()
        .filter(|name| {
            code.match_indices(name).any(|(at, _)| {
                let before = code[..at].chars().next_back().is_none_or(|c| !word(c));
                let after = code[at + name.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !word(c));
                before && after
            })
        })
        .collect()
}

/// Every file of the engines' sources that is no test module, with the clock's names its
/// code outside tests uses.
fn engine_files() -> Vec<(PathBuf, Vec<&'static str>)> {
    let mut found = Vec::new();
    let mut test_files = Vec::new();
    let mut dirs = vec![PathBuf::from(ENGINE)];
    let mut files = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    for path in &files {
        let (code, modules) =
            without_tests(&without_comments(&std::fs::read_to_string(path).unwrap()));
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let home = match stem {
            "lib" | "mod" => path.parent().unwrap().to_path_buf(),
            _ => path.with_extension(""),
        };
        for m in modules {
            test_files.push(home.join(format!("{m}.rs")));
            test_files.push(home.join(m).join("mod.rs"));
        }
        found.push((path.clone(), clock_names(&code)));
    }
    found.retain(|(path, _)| !test_files.contains(path));
    found
}

#[test]
fn no_code_of_the_engines_reads_a_clock() {
    let files = engine_files();
    assert!(files.len() >= 30, "{ENGINE}: {} files", files.len());
    let rel = |p: &Path| p.strip_prefix(ENGINE).unwrap().display().to_string();
    assert!(
        files.iter().all(|(p, _)| !rel(p).ends_with("tests.rs")),
        "test modules are left out"
    );
    let reading: Vec<String> = files
        .iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(p, names)| format!("{} names {}", rel(p), names.join(", ")))
        .collect();
    assert!(reading.is_empty(), "the engines read a clock: {reading:?}");
}

#[test]
fn the_check_sees_a_clock_in_code_and_none_in_comments_strings_or_tests() {
    let seen = |text: &str| clock_names(&without_tests(&without_comments(text)).0);
    assert_eq!(
        seen("let t = std::time::Instant::now();"),
        ["Instant", "std::time"]
    );
    assert_eq!(seen("fn f(d: Duration) {}\n"), ["Duration"]);
    assert_eq!(seen("use std::time;"), ["std::time"]);
    assert!(seen("// Instant::now()\n/* Duration */ let s = \"SystemTime\";").is_empty());
    assert!(seen("struct Instants; fn durations() {}").is_empty());
    let test_code = "#[cfg(test)]\nmod tests {\n    use std::time::Instant;\n}\nfn f() {}";
    assert!(seen(test_code).is_empty());
    assert_eq!(without_tests("#[cfg(test)]\nmod tests;\n").1, ["tests"]);
}
