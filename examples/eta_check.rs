//! How honest the time left is: runs one count, keeps every status the run reports, and
//! compares the time left it announced at each quarter of the run with the time the run really
//! took from there. `eta_check N [ALGORITHM] [THREADS]`; the figures go to
//! `results/eta-checks.md`.

use std::sync::Mutex;
use std::time::Duration;

use nqueens::{Algorithm, Config, Control, Counted, Job, Status};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .expect("usage: eta_check N [ALGORITHM] [THREADS]");
    let algorithm: Algorithm = args
        .next()
        .map_or(Ok(Algorithm::default_for(n)), |s| s.parse())
        .expect("an algorithm");
    let threads: usize = args
        .next()
        .map_or(2, |s| s.parse().expect("a thread count"));
    let job = Job::new(&Config::new(n).algorithm(algorithm).threads(threads)).expect("a job");
    let seen: Mutex<Vec<Status>> = Mutex::new(Vec::new());
    let observe = |_: &Counted, s: &Status| seen.lock().unwrap().push(*s);
    let outcome = job
        .run(Control {
            cancel: None,
            observer: Some(&observe),
            ..Control::default()
        })
        .expect("a count");
    let statuses = seen.into_inner().unwrap();
    let end = statuses.last().map_or(Duration::ZERO, |s| s.elapsed);
    let calibrated = statuses.iter().find(|s| s.remaining.is_some());
    println!(
        "n = {n}, {algorithm}, {threads} threads: {} solutions, {} subproblems, {:.1} s of work (after preparing), time left first given at {:.1} s ({:.1}% of the work)",
        outcome.sums.total,
        statuses.len(),
        end.as_secs_f64(),
        calibrated.map_or(f64::NAN, |s| s.elapsed.as_secs_f64()),
        calibrated.map_or(f64::NAN, |s| 100.0 * s.fraction),
    );
    println!(
        "{:>8} {:>9} {:>10} {:>10} {:>7}",
        "run", "work", "announced", "actual", "error"
    );
    let mut worst: f64 = 0.0;
    for tenth in 1..10 {
        let at = end.mul_f64(f64::from(tenth) / 10.0);
        let Some(s) = statuses.iter().find(|s| s.elapsed >= at) else {
            continue;
        };
        let actual = (end - s.elapsed).as_secs_f64();
        let Some(announced) = s.remaining.map(|r| r.as_secs_f64()) else {
            println!(
                "{:>7}% {:>8.1}% {:>10} {actual:>9.1}s",
                tenth * 10,
                100.0 * s.fraction,
                "-"
            );
            continue;
        };
        let error = (announced - actual) / actual.max(1e-9);
        if tenth >= 3 {
            worst = worst.max(error.abs());
        }
        println!(
            "{:>7}% {:>8.1}% {announced:>9.1}s {actual:>9.1}s {:>+6.0}%",
            tenth * 10,
            100.0 * s.fraction,
            100.0 * error
        );
    }
    println!("worst error from 30% of the run on: {:.0}%", 100.0 * worst);
}
