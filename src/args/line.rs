//! Reading the command line's words around clap: a leading `count` (the default command)
//! taken out, a mistyped command named, and clap's refusals made one line, clearer where words
//! stand in the wrong place. What comes out is a [`Cli`] to run, text to print, or the
//! message of a usage error; `main` turns the last into exit code 2.

use std::ffi::OsString;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};

use super::{Cli, parse_sizes};

/// Why the command line runs no task.
#[derive(Debug)]
pub enum NotRun {
    /// Text to print on stdout, and exit 0: `--help`, `--version`.
    Print(String),
    /// A usage error, in one line.
    Usage(String),
}

/// Reads the command line `words` (the program's name first) into the task it asks for.
pub fn read(words: Vec<OsString>) -> Result<Cli, NotRun> {
    let words = without_count(words).map_err(NotRun::Usage)?;
    if let Some(msg) = mistyped_command(words.get(1).and_then(|w| w.to_str())) {
        return Err(NotRun::Usage(msg));
    }
    match Cli::try_parse_from(&words) {
        Ok(cli) => Ok(cli),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            Err(NotRun::Print(e.render().to_string()))
        }
        Err(e) => {
            let words: Vec<String> = words
                .iter()
                .map(|w| w.to_string_lossy().into_owned())
                .collect();
            Err(NotRun::Usage(
                misplaced(&words, &e).unwrap_or_else(|| one_line(&e)),
            ))
        }
    }
}

/// clap's message on one line: its first paragraph without its own `error:` prefix, its tip
/// ("a similar argument exists: '--threads'") where it has one, and where to read more.
fn one_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let body = rendered.split("\n\n").next().unwrap_or(&rendered);
    let line = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut parts = vec![line.strip_prefix("error: ").unwrap_or(&line).to_string()];
    // clap's "to pass '--x' as a value, use '-- --x'" never helps here: no value starts
    // with a dash.
    parts.extend(
        rendered
            .lines()
            .filter_map(|l| l.trim().strip_prefix("tip: "))
            .filter(|tip| !tip.starts_with("to pass '"))
            .map(String::from),
    );
    format!("{}; try --help", parts.join("; "))
}

/// The message for a first word that is neither a board size nor a command but close to a
/// command's name (`lsit 4`), which clap would take for the size.
fn mistyped_command(first: Option<&str>) -> Option<String> {
    let word = first.filter(|w| !w.starts_with('-') && w.chars().any(|c| c.is_alphabetic()))?;
    let names = command_names();
    if names.iter().any(|n| n == word) {
        return None;
    }
    let (distance, closest) = names
        .iter()
        .map(|name| (strsim::damerau_levenshtein(word, name), name))
        .min()?;
    (distance <= 2)
        .then(|| format!("unknown command '{word}': did you mean '{closest}'? try --help"))
}

/// The words of the command line with a leading `count` taken out: counting is the default
/// command, and `nqueens-count count 16` is `nqueens-count 16`. `count` before another
/// command is refused.
fn without_count(mut words: Vec<OsString>) -> Result<Vec<OsString>, String> {
    if words.get(1).is_some_and(|w| w == "count") {
        words.remove(1);
        if let Some(other) = words
            .get(1)
            .and_then(|w| w.to_str())
            .filter(|w| command_names().iter().any(|n| n == w))
        {
            return Err(format!(
                "'count' and '{other}' are two commands: give one of them; try --help"
            ));
        }
    }
    Ok(words)
}

/// The names of the commands besides counting.
fn command_names() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// Whether `word` (`--threads`, `-t`) names the option `arg`.
fn names(arg: &clap::Arg, word: &str) -> bool {
    match word.strip_prefix("--") {
        Some(long) => arg.get_long() == Some(long),
        None => word.len() == 2 && arg.get_short() == word.chars().nth(1),
    }
}

/// The words of `words` (the program's name first) that are not options or their values,
/// for `cmd`'s options; after `--`, every word.
fn positionals<'a>(cmd: &clap::Command, words: &'a [String]) -> Vec<&'a str> {
    let takes_value = |word: &str| {
        if word.contains('=') {
            return false;
        }
        cmd.get_arguments()
            .any(|a| names(a, word) && a.get_action().takes_values())
    };
    let mut found = Vec::new();
    let mut rest = words.iter().skip(1);
    while let Some(word) = rest.next() {
        if word == "--" {
            found.extend(rest.map(String::as_str));
            break;
        }
        let number = word.parse::<i64>().is_ok();
        if word.starts_with('-') && word.len() > 1 && !number {
            if takes_value(word) {
                rest.next();
            }
        } else {
            found.push(word.as_str());
        }
    }
    found
}

/// A clearer message than clap's for words in the wrong place: two board sizes
/// (`nqueens-count 8 9`), a command after the size (`nqueens-count 8 list`), or one of the
/// count's options given to another command (`nqueens-count list 8 --threads 2`).
fn misplaced(words: &[String], e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    let cli = Cli::command();
    let commands = command_names();
    let found = positionals(&cli, words);
    match found[..] {
        [first, ..] if commands.iter().any(|n| n == first) => {
            // A command's option that only the count takes.
            if e.kind() != ErrorKind::UnknownArgument {
                return None;
            }
            let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
                return None;
            };
            let option = arg.split('=').next().unwrap_or(arg);
            cli.get_arguments().any(|a| names(a, option)).then(|| {
                let why = match (first, option) {
                    ("list" | "trace", "--threads" | "-t") => {
                        ": it walks the solutions in order, on one thread"
                    }
                    _ => ", only the count does",
                };
                format!("{first} does not take {option}{why}; try nqueens-count {first} --help")
            })
        }
        // An unknown option: clap's message names it, and the words after it are not
        // sizes for sure.
        _ if e.kind() == ErrorKind::UnknownArgument => None,
        [_, ..] if let Some(command) = found.iter().find(|w| commands.iter().any(|n| n == *w)) => {
            Some(format!(
                "the command '{command}' comes first: nqueens-count {command} ...; try --help"
            ))
        }
        [first, _, ..] if let Some(word) = found.iter().find(|w| parse_sizes(w).is_err()) => {
            Some(if word == &first {
                format!("'{word}' is neither a board size nor a command; try --help")
            } else {
                format!(
                    "'{word}' after the board size {first} is neither a size nor an option: \
                     give one N (a size, a range or a list) and options; try --help"
                )
            })
        }
        [_, _, ..] => {
            let list = found.join(",");
            let range = match found[..] {
                [a, b] => match (a.parse::<usize>(), b.parse::<usize>()) {
                    (Ok(x), Ok(y)) if y == x + 1 => format!("a range ({a}..={b}) or "),
                    _ => String::new(),
                },
                _ => String::new(),
            };
            Some(format!(
                "one board size at a time: give {range}a list ({list}); try --help"
            ))
        }
        _ => None,
    }
}
