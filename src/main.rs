//! `nqueens-count`: the command line around the `nqueens` library.
//!
//! Glue only: read the arguments ([`args::read`]), hand them to the task, and turn what comes
//! back into an exit code ([`exit`]). The tasks build the library's values, run them, and
//! print.

mod args;
mod bench;
mod boards;
mod constrained;
mod count;
mod estimate;
mod exit;
mod machine;
mod output;
mod progress;
mod status;
mod tasks;

use std::process::ExitCode;

use crate::exit::Exit;

fn main() -> ExitCode {
    ExitCode::from(run().unwrap_or_else(|e| e).code())
}

/// Reads the command line and runs its task.
fn run() -> Result<Exit, Exit> {
    let cli = match args::read(std::env::args_os().collect()) {
        Ok(cli) => cli,
        Err(args::NotRun::Print(text)) => {
            exit::out_raw(&text);
            return Ok(Exit::Ok);
        }
        Err(args::NotRun::Usage(msg)) => return Err(exit::fail(Exit::Usage, msg)),
    };
    match cli.command {
        Some(args::Command::List(a)) => constrained::list(&a),
        Some(args::Command::Trace(a)) => constrained::trace(&a),
        Some(args::Command::Merge(a)) => tasks::merge(&a),
        Some(args::Command::Status(a)) => tasks::status(&a),
        Some(args::Command::Bench(a)) => bench::run(&a),
        Some(args::Command::Completions(a)) => Ok(tasks::completions(a.shell)),
        Some(args::Command::Man) => tasks::man(),
        None => count::run(&cli.count),
    }
}
