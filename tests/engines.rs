//! The runner names no engine: outside its adapters (`crates/nqueens/src/run/engines/`), no
//! file of the library's runner speaks of the join, rooks, the join's `Layout` or `Unit`, or
//! an `Algorithm` variant, in its code or its comments, so that the runner, the pool, the cost
//! model and the budget reach every engine through the one trait. Test code (`run/tests.rs`
//! and the items under `#[cfg(test)]`) builds plans of every kind and is left out. Read from
//! the sources, as `tests/layers.rs` reads the imports.

use std::path::Path;

const RUN_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/nqueens/src/run");

/// The text of `text` without its test code: each item under a `#[cfg(test)]` line, up to
/// the line that closes it at the same indentation.
fn without_tests(text: &str) -> String {
    let mut kept = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            kept.push_str(line);
            kept.push('\n');
            continue;
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        let Some(item) = lines.next() else { break };
        // An item of one line (`mod tests;`, a `use`) ends there; a block at its `}`.
        if !item.trim_end().ends_with('{') {
            continue;
        }
        let close = format!("{indent}}}");
        for rest in lines.by_ref() {
            if rest.trim_end() == close {
                break;
            }
        }
    }
    kept
}

/// The words of `text` that name an engine, with their line numbers: `join` and `rook(s)` in
/// any case, `Layout` and `Unit` (also as parts of a `snake_case` name or a path), and
/// `Algorithm::` followed by a variant.
fn engine_words(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for word in line.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            let word = word.trim_matches(':');
            let engine = word.split([':', '_']).any(|part| {
                matches!(part.to_lowercase().as_str(), "join" | "rook" | "rooks")
                    || part == "Layout"
                    || part == "Unit"
            });
            let variant = word
                .split_once("Algorithm::")
                .is_some_and(|(_, v)| v.starts_with(|c: char| c.is_ascii_uppercase()));
            if engine || variant {
                found.push((i + 1, word.to_string()));
            }
        }
    }
    found
}

/// The runner's files outside its adapters and its test file, with their text.
fn runner_sources() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(RUN_DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .filter(|p| p.file_name().is_some_and(|f| f != "tests.rs"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(
        files.iter().any(|(n, _)| n == "pool.rs") && files.iter().any(|(n, _)| n == "cost.rs"),
        "{RUN_DIR}"
    );
    files
}

#[test]
fn no_file_of_the_runner_outside_the_adapters_names_an_engine() {
    let mut named = Vec::new();
    for (name, text) in runner_sources() {
        for (line, word) in engine_words(&without_tests(&text)) {
            named.push(format!("run/{name}:{line}: {word}"));
        }
    }
    assert!(
        named.is_empty(),
        "the runner names engines outside run/engines/:\n{}",
        named.join("\n")
    );
}

#[test]
fn the_adapters_are_where_the_engines_are_named() {
    // The check finds what it looks for: the join's adapter names the join, its units and
    // its layout, and the kernel's an algorithm variant in its tests.
    let adapters = Path::new(RUN_DIR).join("engines");
    let join = std::fs::read_to_string(adapters.join("join.rs")).unwrap();
    let words: Vec<String> = engine_words(&without_tests(&join))
        .into_iter()
        .map(|w| w.1)
        .collect();
    for expected in ["join", "Layout", "Unit", "join::Unit"] {
        assert!(words.iter().any(|w| w == expected), "{expected}: {words:?}");
    }
    let kernel = std::fs::read_to_string(adapters.join("kernel.rs")).unwrap();
    assert!(engine_words(&without_tests(&kernel)).is_empty());
    assert!(!engine_words(&kernel).is_empty(), "its tests name variants");
}

#[test]
fn the_reading_leaves_out_test_code_only() {
    let text = "use a::Join;\n/// The join's lists.\nfn f() {}\n\n#[cfg(test)]\nuse b::rook;\n\n#[cfg(test)]\nmod tests {\n    fn g() {\n        Algorithm::Join;\n    }\n}\nconst X: Unit = 1;\n// Algorithm::Plain, a rook's\nlet y = join_layout(n);\n";
    let words = engine_words(&without_tests(text));
    let lines: Vec<usize> = words.iter().map(|w| w.0).collect();
    // `Join` (the type), `join's`, then after the tests `Unit`, `Algorithm::Plain`, `rook`
    // and `join_layout`, on the lines of the text without its tests.
    assert_eq!(lines, [1, 2, 6, 7, 7, 8], "{words:?}");
    assert!(words.iter().any(|w| w.1 == "Algorithm::Plain"));
    assert!(engine_words("the joint rooky Layouts Units; Algorithm::all()").is_empty());
}
