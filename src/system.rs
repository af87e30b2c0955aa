//! Facts about the machine and this process: memory available and used, processors, host.
//!
//! The memory figures come from the Linux `/proc` files (`MemAvailable` in `/proc/meminfo`,
//! `VmHWM` in `/proc/self/status`); elsewhere they are unknown (`None`) and no limit is
//! enforced. Everything here is read, never changed.

use std::fmt;

/// Bytes the system can give this process without swapping, when known.
pub fn available_memory() -> Option<u64> {
    field(
        &std::fs::read_to_string("/proc/meminfo").ok()?,
        "MemAvailable:",
    )
}

/// The largest resident size this process has had, in bytes, when known.
pub fn peak_memory() -> Option<u64> {
    field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmHWM:",
    )
}

/// A `Name:   123 kB` line of a `/proc` file, in bytes.
fn field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let mut words = line[name.len()..].split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => Some(value * 1024),
        None => Some(value),
        Some(_) => None,
    }
}

/// A byte count that prints for people: `512 MiB`, `3.4 GiB`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MIB: f64 = 1024.0 * 1024.0;
        let b = self.0 as f64;
        if b >= 1024.0 * MIB {
            write!(f, "{:.1} GiB", b / (1024.0 * MIB))
        } else {
            write!(f, "{:.0} MiB", (b / MIB).ceil())
        }
    }
}

/// Hardware threads this process may run on (at least 1).
pub fn hardware_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What this machine is, for benchmark and result reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    /// The processor's model name (or the architecture where it is unknown).
    pub model: String,
    /// Physical cores.
    pub physical_cores: usize,
    /// Hardware threads this process may use.
    pub hardware_threads: usize,
    /// The host's name.
    pub host: String,
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
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|s| s.trim().to_string())
            .ok()
            .filter(|s| !s.is_empty())
            .or_else(|| std::env::var("HOSTNAME").ok())
            .unwrap_or_else(|| "unknown".to_string());
        Machine {
            model,
            physical_cores: num_cpus::get_physical(),
            hardware_threads: hardware_threads(),
            host,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_lines_are_read_in_bytes() {
        let text = "MemTotal:  100 kB\nMemAvailable:    2048 kB\n";
        assert_eq!(field(text, "MemAvailable:"), Some(2048 * 1024));
        assert_eq!(field(text, "VmHWM:"), None);
        assert_eq!(field("VmHWM: 12 MB\n", "VmHWM:"), None);
    }

    #[test]
    fn this_process_has_a_peak_where_proc_exists() {
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(peak_memory().unwrap() > 0);
            assert!(available_memory().unwrap() > 0);
        } else {
            eprintln!("skipped: no /proc here");
        }
    }

    #[test]
    fn byte_counts_read_well() {
        assert_eq!(Bytes(3 * 1024 * 1024).to_string(), "3 MiB");
        assert_eq!(Bytes(1536 * 1024 * 1024).to_string(), "1.5 GiB");
    }

    #[test]
    fn the_machine_is_described() {
        let m = Machine::detect();
        assert!(m.hardware_threads >= 1 && m.physical_cores >= 1);
        assert!(m.to_string().contains("hardware threads"));
    }
}
