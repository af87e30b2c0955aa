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

/// clap's message without the usage block, the help hint and its own `error:` prefix, on one
/// line.
fn one_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let body = rendered.split("\n\n").next().unwrap_or(&rendered);
    let line = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    line.strip_prefix("error: ").unwrap_or(&line).to_string()
}
