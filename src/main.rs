//! `nqueens-count`: the command line around the `nqueens` library.
//!
//! Glue only: parse the arguments, hand them to the task, print what comes back, and map every
//! outcome to an exit code: 0 done, 1 a runtime failure (a bad checkpoint, a failed `--verify`,
//! a refused merge), 2 a usage error, 130 interrupted after saving progress.

mod app;
mod cli;
mod progress;
mod report;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("{}", one_line(&e.render().to_string()));
            return ExitCode::from(app::USAGE);
        }
    };
    let code = match cli.command {
        Some(cli::Command::List(args)) => app::list(&args),
        Some(cli::Command::Trace(args)) => app::trace(&args),
        Some(cli::Command::Merge(args)) => app::merge(&args),
        Some(cli::Command::Bench(args)) => app::bench(&args),
        None => app::count(&cli.count),
    };
    ExitCode::from(code)
}

/// clap's message without the usage block and the help hint, on one line.
fn one_line(rendered: &str) -> String {
    let body = rendered.split("\n\n").next().unwrap_or(rendered);
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
