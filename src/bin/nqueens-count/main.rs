//! `nqueens-count`: the command line around the `nqueens` library.
//!
//! Glue only: parse the arguments, hand them to the task, and turn what comes back into an
//! exit code ([`exit`]). The tasks build the library's values, run them, and print.

mod args;
mod bench;
mod boards;
mod constrained;
mod count;
mod estimate;
mod exit;
mod output;
mod progress;
mod tasks;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::exit::Exit;

fn main() -> ExitCode {
    if let Some(msg) = mistyped_command(std::env::args().nth(1).as_deref()) {
        return ExitCode::from(exit::fail(Exit::Usage, msg).code());
    }
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            exit::out_raw(&e.render().to_string());
            return ExitCode::SUCCESS;
        }
        Err(e) => return ExitCode::from(exit::fail(Exit::Usage, one_line(&e)).code()),
    };
    let done = match cli.command {
        Some(args::Command::List(a)) => tasks::list(&a),
        Some(args::Command::Trace(a)) => tasks::trace(&a),
        Some(args::Command::Merge(a)) => tasks::merge(&a),
        Some(args::Command::Bench(a)) => bench::run(&a),
        Some(args::Command::Completions(a)) => tasks::completions(a.shell),
        Some(args::Command::Man) => tasks::man(),
        None => count::run(&cli.count),
    };
    ExitCode::from(done.code())
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
    parts.extend(
        rendered
            .lines()
            .filter_map(|l| l.trim().strip_prefix("tip: "))
            .map(String::from),
    );
    format!("{}; try --help", parts.join("; "))
}

/// The message for a first word that is neither a board size nor a command but close to a
/// command's name (`lsit 4`), which clap would take for the size.
fn mistyped_command(first: Option<&str>) -> Option<String> {
    use clap::CommandFactory;
    let word = first.filter(|w| !w.starts_with('-') && w.chars().any(|c| c.is_alphabetic()))?;
    let cli = args::Cli::command();
    let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
    if names.contains(&word) {
        return None;
    }
    let closest = names
        .iter()
        .map(|name| (strsim::damerau_levenshtein(word, name), *name))
        .min()?;
    (closest.0 <= 2).then(|| {
        format!(
            "unknown command '{word}': did you mean '{}'? try --help",
            closest.1
        )
    })
}
