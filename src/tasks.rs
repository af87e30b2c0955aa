//! The small tasks: `merge` (check and add up shard result files), `status` (where the
//! shards of a count stand), and the shell completions and manual page made from the argument
//! definitions.

use std::path::PathBuf;

use nqueens::constraint::Board;
use nqueens::{Config, Recount, persist};

use clap::CommandFactory;

use crate::args::{BoardArgs, Cli, MergeArgs, StatusArgs};
use crate::exit::{self, Exit, out, say, to_stdout};
use crate::output;
use crate::status;

/// The journal files `paths` name (folders read for their `*.json`), and the constrained board
/// `constraints` describe: an empty rook board has no file, so its size is that of the first
/// file that reads as a journal.
fn shard_files(
    paths: &[PathBuf],
    constraints: &BoardArgs,
) -> Result<(Vec<PathBuf>, Option<Board>), Exit> {
    let files = persist::Journal::files_in(paths).map_err(|e| exit::fail(Exit::Failed, e))?;
    let files_given = constraints.board.is_some() || constraints.allowed.is_some();
    let n = files
        .iter()
        .filter(|_| !files_given)
        .find_map(|f| persist::Journal::read_header(f).ok())
        .map(|j| j.n());
    let board = crate::boards::load(constraints, n)?;
    Ok((files, board))
}

/// `merge`: verify and add up the shards' result files.
pub fn merge(args: &MergeArgs) -> Result<Exit, Exit> {
    let (files, board) = shard_files(&args.files, &args.constraints)?;
    if args.verify && board.is_some() {
        return Err(exit::fail(
            Exit::Usage,
            "--verify compares empty queens boards with the published counts",
        ));
    }
    let how = args.trust.recount;
    let seed = args.trust.recount_seed.unwrap_or_else(Recount::fresh_seed);
    let key = args
        .trust
        .key
        .as_deref()
        .map(persist::Key::read)
        .transpose()
        .map_err(|e| exit::fail(Exit::Usage, e))?;
    let options = persist::MergeOptions {
        board: board.as_ref(),
        keep: how.sample_size(),
        seed,
        key: key.as_ref(),
        rules: Some(nqueens::file_rules()),
        audit: args.audit.unwrap_or(0),
    };
    match persist::merge(&files, options) {
        Err(problems) => {
            if let Some(note) = output::skipped_note(problems.skipped()) {
                say(note);
            }
            for p in problems.messages() {
                say(format!("error: {p}"));
            }
            Err(Exit::Failed)
        }
        Ok(sampled) => {
            let m = &sampled.merged;
            if let Some(note) = output::skipped_note(&sampled.skipped) {
                say(note);
            }
            crate::count::install_signal_handler();
            crate::count::working(true);
            let threads = Config::new(m.n).threads(args.threads).resolved_threads();
            let done = sampled
                .recount(how, threads, Some(&crate::count::CANCEL))
                .map_err(|e| exit::error(&e))?;
            let verdict = args
                .verify
                .then(|| crate::output::verify(m.n, m.sums.total, m.unique));
            out(&output::merge_line(m, (&done, how), verdict, args.json));
            if let Some(v) = verdict {
                say(output::verdict_words(m.n, v, m.unique));
            }
            Ok(Exit::of_verdict(verdict))
        }
    }
}

/// `status`: where the shards of a count stand, from a folder of their files.
pub fn status(args: &StatusArgs) -> Result<Exit, Exit> {
    let key = args
        .key
        .as_deref()
        .map(persist::Key::read)
        .transpose()
        .map_err(|e| exit::fail(Exit::Usage, e))?;
    let (files, board) = shard_files(&args.files, &args.constraints)?;
    let survey = match nqueens::Survey::of(&files, board.as_ref(), key.as_ref()) {
        Ok(survey) => survey,
        Err(problems) if problems.nothing_begun() => {
            if let Some(note) = output::skipped_note(problems.skipped()) {
                say(note);
            }
            let skipped = problems.skipped();
            out(&status::nothing_begun(
                &args.files,
                files.len(),
                skipped,
                args.json,
            ));
            return Ok(Exit::Incomplete);
        }
        Err(problems) => {
            if let Some(note) = output::skipped_note(problems.skipped()) {
                say(note);
            }
            for p in problems.messages() {
                say(format!("error: {p}"));
            }
            return Err(Exit::Failed);
        }
    };
    if let Some(note) = output::skipped_note(&survey.skipped) {
        say(note);
    }
    out(&if args.json {
        status::json(&survey)
    } else {
        status::text(&survey)
    });
    Ok(if survey.complete() {
        Exit::Ok
    } else {
        Exit::Incomplete
    })
}

/// `completions SHELL`: the shell's completion script.
pub fn completions(shell: clap_complete::Shell) -> Exit {
    // Made in memory, then written: the generator panics on a failed write of its own.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), BIN, &mut script);
    match shell {
        clap_complete::Shell::Bash => script = bash_dispatch_fixed(&script),
        clap_complete::Shell::Fish => script = fish_command_test_fixed(&script),
        clap_complete::Shell::Zsh => script = zsh_command_fixed(&script),
        _ => {}
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

/// The fish script with a test for "no command yet" that knows the board size N is not a
/// command, and that an option whose value is being typed is one value short. The
/// generator's test took any first word for a command, and failed on a missing value, so
/// `nqueens-count 14 --algorithm <Tab>` offered file names instead of the algorithms.
fn fish_command_test_fixed(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let name = format!("__fish_{}", BIN.replace('-', "_"));
    let head = format!("function {name}_needs_command\n");
    let Some(start) = text.find(&head) else {
        return script.to_vec();
    };
    let Some(len) = text[start..].find("\nend\n") else {
        return script.to_vec();
    };
    let commands = command_names();
    let test = format!(
        "{head}    # Whether the words so far name no command yet (printing the command if they do).
    set -l cmd (commandline -opc)
    set -e cmd[1]
    # An option whose value is being typed leaves the words one value short.
    argparse -s ({name}_global_optspecs) -- $cmd 2>/dev/null
    or begin
        set -e cmd[-1]
        argparse -s ({name}_global_optspecs) -- $cmd 2>/dev/null
    end
    or return
    # A first word that is not a command's name is the board size N.
    if set -q argv[1]; and contains -- $argv[1] {}
        echo $argv[1]
        return 1
    end
    return 0",
        commands.join(" ")
    );
    format!("{}{test}{}", &text[..start], &text[start + len..]).into_bytes()
}

/// The names of the commands, `help` included.
fn command_names() -> Vec<String> {
    let mut names: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    names.push("help".to_string());
    names
}

/// The zsh script with the board size N and a command told apart. The generator lists N as
/// the first positional word and the command as the second, so `nqueens-count list --f`
/// took `list` for N and offered the count's options, not the list's. Where the first word
/// (already typed) names a command, the script now leaves N out, so that the command is
/// the first positional word and its own options are completed.
fn zsh_command_fixed(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script).into_owned();
    let Some(at) = text.find("\n'::sizes -- ").map(|i| i + 1) else {
        return script.to_vec();
    };
    let end = at + text[at..].find('\n').unwrap_or(text.len() - at);
    let sizes = text[at..end].trim().trim_end_matches('\\').trim_end();
    let Some(call) = text[..at].rfind("    _arguments ") else {
        return script.to_vec();
    };
    let choose = format!(
        "    # N and a command are both the first word: a command named leaves N out.\n    \
         local -a sizes=({sizes}) commands=({})\n    local command_at=2\n    \
         if (( CURRENT > 2 && ${{commands[(Ie)$words[2]]}} )); then\n        \
         sizes=()\n        command_at=1\n    fi\n",
        command_names().join(" ")
    );
    let mut fixed = format!(
        "{}{choose}{}\"${{sizes[@]}}\" \\{}",
        &text[..call],
        &text[call..at],
        &text[end..]
    );
    // The first three `$line[2]`, in the top-level dispatch, name the command's word.
    for _ in 0..3 {
        fixed = fixed.replacen("$line[2]", "$line[$command_at]", 1);
    }
    fixed.into_bytes()
}

/// `man`: the manual page in roff.
pub fn man() -> Result<Exit, Exit> {
    let page =
        manual().map_err(|e| exit::fail(Exit::Failed, format!("cannot make the manual: {e}")))?;
    Ok(to_stdout("manual page", |out| {
        out.write_all(page.as_bytes())
    }))
}

/// The whole manual in one page: the count's options, then every command's with its own
/// options, the exit status, the examples; characters past ASCII as groff's escapes.
fn manual() -> std::io::Result<String> {
    let cli = Cli::command();
    let man = clap_mangen::Man::new(cli.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    page.extend_from_slice(b".SH COMMANDS\n");
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = sub.get_name();
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        page.extend_from_slice(format!(".SS \"{BIN} {name}\"\n{}\n", roff_text(&about)).as_bytes());
        let mut options = Vec::new();
        clap_mangen::Man::new(sub.clone()).render_options_section(&mut options)?;
        let options = String::from_utf8_lossy(&options).replacen(".SH OPTIONS\n", "", 1);
        page.extend_from_slice(options.as_bytes());
    }
    page.extend_from_slice(EXIT_STATUS.as_bytes());
    if let Some(examples) = cli.get_after_help() {
        page.extend_from_slice(b".SH EXAMPLES\n.nf\n");
        for line in examples.to_string().lines().filter(|l| !l.ends_with(':')) {
            page.extend_from_slice(format!("{}\n", roff_text(line.trim())).as_bytes());
        }
        page.extend_from_slice(b".fi\n");
    }
    man.render_version_section(&mut page)?;
    let text = String::from_utf8_lossy(&page);
    Ok(text
        .chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                format!("\\[u{:04X}]", u32::from(c))
            }
        })
        .collect())
}

/// The manual's EXIT STATUS section.
const EXIT_STATUS: &str = ".SH EXIT STATUS
.TP
0
Done (and, with \\-\\-verify, the counts agree with the published ones).
.TP
1
A runtime failure: a refused checkpoint, shard file or merge, too little memory, a failed \\-\\-verify, a file that cannot be written (the result is kept and the message says where).
.TP
2
A usage error: bad arguments or input files; always one line on standard error.
.TP
3
From status: the shards are not all done (some missing, partial or damaged).
.TP
130
Stopped by SIGINT (Ctrl\\-C) after saving the finished subproblems.
.TP
143
Stopped by SIGTERM (a scheduler's time limit, timeout(1)) after saving the finished subproblems.
";

/// Text set as roff: backslashes and hyphens escaped, a leading dot or quote guarded.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
