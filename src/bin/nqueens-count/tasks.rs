//! The small tasks: `merge` (check and add up shard result files), `list` (stream the
//! solutions), `trace` (the textbook search tree), and the shell completions and manual page
//! made from the argument definitions.

use nqueens::known;
use nqueens::{Config, Recount, persist};

use clap::CommandFactory;

use crate::args::{Cli, ListArgs, ListFormat, MergeArgs, TraceArgs};
use crate::exit::{self, Exit, out, say, to_stdout};
use crate::output;

/// `merge`: verify and add up the shards' result files.
pub fn merge(args: &MergeArgs) -> Exit {
    // An empty rook board has no file: its size is the shards' own.
    let files_given = args.constraints.board.is_some() || args.constraints.allowed.is_some();
    let n = args
        .files
        .first()
        .filter(|_| !files_given)
        .and_then(|f| persist::Journal::read(f).ok())
        .map(|j| j.n());
    let board = match crate::boards::load(&args.constraints, n) {
        Ok(b) => b,
        Err(e) => return e,
    };
    if args.verify && board.is_some() {
        return crate::exit::fail(
            Exit::Usage,
            "--verify compares empty queens boards with the published counts",
        );
    }
    let how = args.trust.recount;
    let seed = args.trust.recount_seed.unwrap_or_else(Recount::fresh_seed);
    let key = match args
        .trust
        .key
        .as_deref()
        .map(persist::Key::read)
        .transpose()
    {
        Ok(k) => k,
        Err(e) => return crate::exit::fail(Exit::Usage, e),
    };
    let options = persist::MergeOptions {
        board: board.as_ref(),
        keep: how.sample_size(),
        seed,
        key: key.as_ref(),
    };
    match persist::merge_sampled(&args.files, options) {
        Err(problems) => {
            for p in &problems.0 {
                say(format!("error: {p}"));
            }
            Exit::Failed
        }
        Ok(sampled) => {
            let persist::Sampled {
                merged: m,
                plan,
                sample,
                pieces,
            } = sampled;
            crate::count::install_signal_handler();
            crate::count::working(true);
            let threads = Config::new(m.n).threads(args.threads).resolved_threads();
            let done = nqueens::recount(
                &plan,
                &sample,
                (how, pieces, seed),
                threads,
                Some(crate::count::cancel_flag()),
            );
            let done = match done {
                Ok(done) => done,
                Err(e) => return exit::error(&e),
            };
            let verdict = args
                .verify
                .then(|| known::verify(m.n, m.sums.total, m.unique));
            out(&output::merge_line(&m, (&done, how), verdict, args.json));
            if let Some(v) = verdict {
                say(output::verdict_words(m.n, v, m.unique));
            }
            Exit::of_verdict(verdict)
        }
    }
}

/// `list`: stream the solutions (of any board: see `constrained`).
pub fn list(args: &ListArgs) -> Exit {
    if args.json {
        let json = ListArgs {
            format: ListFormat::Json,
            json: false,
            ..args.clone()
        };
        return list(&json);
    }
    crate::constrained::list(args)
}

/// `trace`: print the backtracking tree (of any board; see `constrained`).
pub fn trace(args: &TraceArgs) -> Exit {
    crate::constrained::trace(args)
}

/// `completions SHELL`: the shell's completion script.
pub fn completions(shell: clap_complete::Shell) -> Exit {
    // Made in memory, then written: the generator panics on a failed write of its own.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BIN, &mut script);
    if shell == clap_complete::Shell::Bash {
        script = bash_dispatch_fixed(&script);
    }
    to_stdout("completions", |out| out.write_all(&script))
}

/// The program's name, as the shells see it.
const BIN: &str = "nqueens-count";

/// The bash script with its subcommands' case arms named as its dispatch names them: for a
/// name with a hyphen the generator spells the arms `nqueens__subcmd__count__subcmd__list`
/// and the dispatch `nqueens__count__subcmd__list`, so nothing after a subcommand completed.
fn bash_dispatch_fixed(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let wrong = format!("{}__subcmd__", BIN.replace('-', "__subcmd__"));
    let right = format!("{}__subcmd__", BIN.replace('-', "__"));
    text.replace(&wrong, &right).into_bytes()
}

/// `man`: the manual page in roff.
pub fn man() -> Exit {
    to_stdout("manual page", |out| {
        clap_mangen::Man::new(Cli::command()).render(out)
    })
}
