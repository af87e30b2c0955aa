//! What this machine is, for the reports of `bench` and of a count's statistics: the
//! processor's model, its cores and the hardware threads this process may use.

use std::fmt;

/// What this machine is, for benchmark and result reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    /// The processor's model name (or the architecture where it is unknown).
    pub model: String,
    pub physical_cores: usize,
    /// Hardware threads this process may use.
    pub hardware_threads: usize,
}

impl Machine {
    /// Reads the facts once.
    pub fn detect() -> Machine {
        let model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, m)| m.trim().to_string())
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        Machine {
            model,
            physical_cores: num_cpus::get_physical(),
            hardware_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

impl fmt::Display for Machine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, {} physical cores, {} hardware threads",
            self.model, self.physical_cores, self.hardware_threads
        )
    }
}

/// The one-minute load average (`/proc/loadavg`): the threads running or waiting to run,
/// averaged; `None` where the system does not tell it.
pub fn load_average() -> Option<f64> {
    parse_load_average(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

/// The first field of `/proc/loadavg`'s text.
fn parse_load_average(text: &str) -> Option<f64> {
    text.split_whitespace()
        .next()?
        .parse()
        .ok()
        .filter(|l: &f64| l.is_finite() && *l >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::parse_load_average;

    #[test]
    fn the_load_average_is_the_first_field() {
        assert_eq!(
            parse_load_average("1.52 0.98 0.40 3/412 12345\n"),
            Some(1.52)
        );
        assert_eq!(parse_load_average(""), None);
        assert_eq!(parse_load_average("busy 1 2"), None);
        assert_eq!(parse_load_average("-1 0 0"), None);
    }
}
