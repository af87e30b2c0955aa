//! What files agree on and what one run chooses stay apart in the code: `Plan` (the identity a
//! file names by its hash) has no field or method about slices or a run's ids, and `Cut` (one
//! run's slices and ids) is made in exactly two ways, fresh from the plan or from the files
//! being resumed or merged. Read from the sources, as `tests/layers.rs` reads the imports.

use std::path::Path;

const PLAN_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/nqueens/src/plan");

/// The text of every `.rs` file of the plan's folder.
fn plan_sources() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(PLAN_DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(files.iter().any(|(n, _)| n == "mod.rs"), "{PLAN_DIR}");
    files
}

/// The bodies of the blocks of `text` that open with the line `opening` and end at the next
/// line `}`, leaving out those under `#[cfg(test)]`.
fn blocks<'a>(text: &'a str, opening: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = text.lines().collect();
    let offset = |k: usize| -> usize { text.split_inclusive('\n').take(k).map(str::len).sum() };
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] == opening {
            let end = (i..lines.len()).find(|&j| lines[j] == "}").unwrap();
            if i == 0 || lines[i - 1].trim() != "#[cfg(test)]" {
                found.push(&text[offset(i + 1)..offset(end)]);
            }
            i = end;
        }
        i += 1;
    }
    found
}

/// The functions declared at the first level of a block's body that other files may call
/// (`pub`, `pub(crate)`, `pub(super)`): each one's name and its signature up to its opening
/// brace.
fn functions(body: &str) -> Vec<(String, String)> {
    let body = format!("\n{body}");
    let mut found = Vec::new();
    for (at, _) in body.match_indices("\n    ") {
        let rest = &body[at + 5..];
        let Some(rest) = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
        else {
            continue;
        };
        if let Some(sig) = rest.strip_prefix("fn ") {
            let name: String = sig
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.push((name, sig[..sig.find('{').unwrap()].to_string()));
        }
    }
    found
}

/// Whether a name speaks of a run's cut: a slice, a cut, or ids (as `_`-separated words).
fn names_a_run(name: &str) -> bool {
    name.split('_')
        .any(|w| w.starts_with("slice") || w == "cut" || w == "id" || w == "ids")
}

#[test]
fn the_plan_holds_no_slice_and_no_id_of_a_run() {
    let sources = plan_sources();
    let mod_rs = &sources.iter().find(|(n, _)| n == "mod.rs").unwrap().1;
    let start = mod_rs
        .find("\npub struct Plan {\n")
        .expect("no struct Plan in plan/mod.rs");
    let fields_text = &mod_rs[start..start + mod_rs[start..].find("\n}\n").unwrap()];
    let fields: Vec<&str> = fields_text
        .lines()
        .skip(2)
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && l.contains(':'))
        .map(|l| l.split(':').next().unwrap().trim_start_matches("pub "))
        .collect();
    assert!(
        fields.contains(&"entries") && fields.contains(&"hash"),
        "{fields:?}"
    );
    let mut methods = Vec::new();
    for (file, text) in &sources {
        for body in blocks(text, "impl Plan {") {
            methods.extend(functions(body).into_iter().map(|(n, _)| (file.clone(), n)));
        }
    }
    assert!(methods.iter().any(|(_, n)| n == "hash"), "{methods:?}");
    let run_fields: Vec<&&str> = fields.iter().filter(|f| names_a_run(f)).collect();
    assert!(
        run_fields.is_empty(),
        "Plan's fields name a run's cut: {run_fields:?}"
    );
    let run_methods: Vec<_> = methods.iter().filter(|(_, n)| names_a_run(n)).collect();
    assert!(
        run_methods.is_empty(),
        "Plan's methods name a run's cut: {run_methods:?}"
    );
}

#[test]
fn a_cut_is_made_fresh_or_from_files_and_no_other_way() {
    let cut_rs = std::fs::read_to_string(Path::new(PLAN_DIR).join("cut.rs")).unwrap();
    let makers: Vec<String> = blocks(&cut_rs, "impl Cut {")
        .into_iter()
        .flat_map(functions)
        .filter(|(_, sig)| {
            !sig.contains("self") && (sig.contains("-> Cut") || sig.contains("-> Self"))
        })
        .map(|(n, _)| n)
        .collect();
    assert_eq!(makers, ["fresh", "from_files"]);
    // Its fields are private to `plan/cut.rs`, so no other file can make one by its fields.
    let start = cut_rs
        .find("\npub struct Cut {\n")
        .expect("no struct Cut in plan/cut.rs");
    let fields = &cut_rs[start + 1..start + 1 + cut_rs[start + 1..].find("\n}\n").unwrap()];
    let open: Vec<&str> = fields
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| l.starts_with("pub"))
        .collect();
    assert!(open.is_empty(), "fields of Cut others could set: {open:?}");
}

#[test]
fn the_reading_finds_what_it_must() {
    // The helpers above see a block, its functions and a run's words as they are written.
    let text = "impl Plan {\n    pub fn hash(&self) -> u64 {\n        1\n    }\n\n    pub(crate) fn slice_of(&self) {}\n\n    fn private(&self) {}\n}\n\n#[cfg(test)]\nimpl Plan {\n    pub fn ids(&self) {}\n}\n";
    let found: Vec<String> = blocks(text, "impl Plan {")
        .into_iter()
        .flat_map(functions)
        .map(|(n, _)| n)
        .collect();
    assert_eq!(found, ["hash", "slice_of"]);
    assert!(names_a_run("slice_of") && names_a_run("run_ids") && names_a_run("cut"));
    assert!(!names_a_run("hash") && !names_a_run("split_depth") && !names_a_run("identity"));
}
