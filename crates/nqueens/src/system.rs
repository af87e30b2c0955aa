//! Facts about the machine and this process: memory available and used, processors, host,
//! and the clock ([`Clock`]) that the logic depending on time reads.
//!
//! The memory this process may still use is the least of what the system has free
//! (`MemAvailable`), what its control group allows beyond what the group already uses (cgroup
//! v2 `memory.max` and `memory.high`, or v1 `memory.limit_in_bytes`, at every level up to the
//! root: what a batch scheduler's memory request or a container limit sets), and what its
//! resource limits leave (`RLIMIT_AS` beyond the address space in use, `RLIMIT_DATA` beyond
//! the data segment). All of it is read from Linux's `/proc` and `/sys/fs/cgroup` files;
//! elsewhere it is unknown (`None`) and no limit is enforced. Everything here is read, never
//! changed.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Bytes this process may still allocate without being refused or killed, when known: the
/// least of the system's, the control group's and the resource limits' headroom.
pub(crate) fn available_memory() -> Option<u64> {
    let read = |p: &str| fs::read_to_string(p).ok();
    let system = read("/proc/meminfo").and_then(|t| field(&t, "MemAvailable:"));
    let status = read("/proc/self/status").unwrap_or_default();
    let limits = read("/proc/self/limits")
        .map(|t| rlimit_headroom(&t, &status))
        .unwrap_or_default();
    let groups = read("/proc/self/cgroup")
        .map(|t| cgroup_headroom(&t, Path::new("/sys/fs/cgroup")))
        .unwrap_or_default();
    [system, limits, groups].into_iter().flatten().min()
}

/// The headroom the soft resource limits leave (`Max address space` beyond `VmSize`, `Max
/// data size` beyond `VmData`), from the texts of `/proc/self/limits` and `/proc/self/status`.
fn rlimit_headroom(limits: &str, status: &str) -> Option<u64> {
    let soft = |name: &str| -> Option<u64> {
        let line = limits.lines().find(|l| l.starts_with(name))?;
        line[name.len()..].split_whitespace().next()?.parse().ok()
    };
    let used = |name: &str| field(status, name).unwrap_or(0);
    [
        soft("Max address space").map(|l| l.saturating_sub(used("VmSize:"))),
        soft("Max data size").map(|l| l.saturating_sub(used("VmData:"))),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// The headroom of this process's memory control groups under the cgroup file system at
/// `root`, given the text of `/proc/self/cgroup`: the least, over the group and its ancestors,
/// of the limit minus the usage.
fn cgroup_headroom(membership: &str, root: &Path) -> Option<u64> {
    let mut best: Option<u64> = None;
    for line in membership.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (mount, files): (PathBuf, &[(&str, &str)]) = if controllers.is_empty() {
            // cgroup v2: one hierarchy, mounted at the root (or at `unified` beside v1).
            let v2 = if root.join("cgroup.controllers").exists() {
                root.to_path_buf()
            } else {
                root.join("unified")
            };
            (
                v2,
                &[
                    ("memory.max", "memory.current"),
                    ("memory.high", "memory.current"),
                ],
            )
        } else if controllers.split(',').any(|c| c == "memory") {
            (
                root.join("memory"),
                &[("memory.limit_in_bytes", "memory.usage_in_bytes")],
            )
        } else {
            continue;
        };
        // The group's folder, then each ancestor's. Inside a container the group's own path
        // may not exist below the mount (the mount is the group itself): the mount counts then.
        let mut dir = mount.join(path.trim_start_matches('/'));
        loop {
            for (limit, usage) in files {
                let number = |f: &str| -> Option<u64> {
                    fs::read_to_string(dir.join(f)).ok()?.trim().parse().ok()
                };
                if let Some(l) = number(limit) {
                    let room = l.saturating_sub(number(usage).unwrap_or(0));
                    best = Some(best.map_or(room, |b| b.min(room)));
                }
            }
            if dir == mount || !dir.pop() || !dir.starts_with(&mount) {
                break;
            }
        }
    }
    best
}

/// The largest resident size this process has had, in bytes, when known.
pub(crate) fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    field(&status, "VmHWM:")
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
        // Three significant digits in the largest unit that keeps the number at 1 or more,
        // so that two sizes that differ by more than half a per cent read differently.
        const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
        if self.0 < 1024 {
            return write!(f, "{} bytes", self.0);
        }
        let mut v = self.0 as f64 / 1024.0;
        let mut unit = 0;
        while v >= 1024.0 && unit + 1 < UNITS.len() {
            v /= 1024.0;
            unit += 1;
        }
        write!(f, "{} {}", three_significant(v), UNITS[unit])
    }
}

/// `v` to three significant digits, whole from 100 on and without trailing zeros (3.00 is
/// 3): `0.00608`, `1.46`, `12.2`, `122`, `1283000`.
pub(crate) fn three_significant(v: f64) -> String {
    if v >= 100.0 || v <= 0.0 || !v.is_finite() {
        return format!("{v:.0}");
    }
    let decimals = (2 - v.log10().floor() as i32).clamp(0, 8) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

impl std::str::FromStr for Bytes {
    type Err = String;

    /// A size as people write it: `4G`, `512MiB`, `1.5g`, `3000000000`. The suffixes K, M, G
    /// and T (with or without `B` or `iB`) are powers of 1024, as batch schedulers read them.
    fn from_str(s: &str) -> Result<Bytes, String> {
        let bad = || format!("'{s}' is not a size: expected a number of bytes or e.g. 512M, 4G");
        let t = s.trim();
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (number, unit) = t.split_at(split);
        let value: f64 = number.parse().map_err(|_| bad())?;
        let unit = unit.trim().to_ascii_lowercase();
        let unit = unit
            .strip_suffix("ib")
            .or_else(|| unit.strip_suffix('b'))
            .unwrap_or(&unit);
        let scale: u64 = match unit {
            "" => 1,
            "k" => 1 << 10,
            "m" => 1 << 20,
            "g" => 1 << 30,
            "t" => 1 << 40,
            _ => return Err(bad()),
        };
        let bytes = value * scale as f64;
        if !bytes.is_finite() || bytes < 1.0 || bytes >= u64::MAX as f64 {
            return Err(bad());
        }
        Ok(Bytes(bytes as u64))
    }
}

/// Where the logic that depends on time (when a checkpoint is saved, when an estimate's sample
/// has taken long enough) reads it: [`SystemClock`] in a run, a clock the test moves by hand in
/// the unit tests, so that they give that logic the times they choose instead of waiting.
pub(crate) trait Clock: Sync {
    /// The time now.
    fn now(&self) -> Instant;
}

/// This machine's monotonic clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// The CPU time the calling thread has used (user and system), to the 1/100 s the system
/// counts it in, when the system tells it (`/proc/thread-self/stat`).
pub(crate) fn thread_cpu_time() -> Option<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The fields after the command name (which may hold spaces) in parentheses: utime and
    // stime are the 12th and 13th, in clock ticks of 1/100 s (USER_HZ).
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(std::time::Duration::from_millis(ticks * 10))
}

/// Hardware threads this process may run on (at least 1).
pub(crate) fn hardware_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The host's name, as result files record it ("unknown" where it cannot be read).
pub(crate) fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits_without_trailing_zeros() {
        assert_eq!(three_significant(3.0), "3");
        assert_eq!(three_significant(1.456), "1.46");
        assert_eq!(three_significant(0.0123456), "0.0123");
        assert_eq!(three_significant(99.94), "99.9");
        assert_eq!(three_significant(512.4), "512");
    }

    #[test]
    fn proc_lines_are_read_in_bytes() {
        let text = "MemTotal:  100 kB\nMemAvailable:    2048 kB\n";
        assert_eq!(field(text, "MemAvailable:"), Some(2048 * 1024));
        assert_eq!(field(text, "VmHWM:"), None);
        assert_eq!(field("VmHWM: 12 MB\n", "VmHWM:"), None);
    }

    #[test]
    fn resource_limits_leave_their_headroom() {
        let limits = "Limit  Soft Limit  Hard Limit  Units\n\
                      Max data size             unlimited            unlimited            bytes\n\
                      Max address space         4000000000           unlimited            bytes\n";
        let status = "VmSize:\t  1000 kB\nVmData:\t  10 kB\n";
        assert_eq!(
            rlimit_headroom(limits, status),
            Some(4_000_000_000 - 1_024_000)
        );
        let none = "Max data size  unlimited  unlimited  bytes\n";
        assert_eq!(rlimit_headroom(none, status), None);
    }

    #[test]
    fn control_groups_of_both_versions_are_read_up_to_the_root() {
        let root = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let p = root.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        };
        // v2: the job's group allows 4 GB and uses 1 GB; its parent has no limit ("max").
        write("cgroup.controllers", "memory\n");
        write("slurm/job1/memory.max", "4000000000\n");
        write("slurm/job1/memory.current", "1000000000\n");
        write("slurm/job1/memory.high", "max\n");
        write("slurm/memory.max", "max\n");
        assert_eq!(
            cgroup_headroom("0::/slurm/job1\n", root.path()),
            Some(3_000_000_000)
        );
        // v1: the group's path is not below the mount (a container): the mount is the group.
        let v1 = tempfile::tempdir().unwrap();
        let m = v1.path().join("memory");
        fs::create_dir_all(&m).unwrap();
        fs::write(m.join("memory.limit_in_bytes"), "2000000000\n").unwrap();
        fs::write(m.join("memory.usage_in_bytes"), "500000000\n").unwrap();
        let text = "4:memory:/docker/abc\n1:cpu:/\n";
        assert_eq!(cgroup_headroom(text, v1.path()), Some(1_500_000_000));
        assert_eq!(cgroup_headroom("1:cpu:/\n", v1.path()), None);
    }

    #[test]
    fn this_process_has_a_peak_where_proc_exists() {
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(peak_memory().unwrap() > 0);
            assert!(available_memory().unwrap() > 0);
        } else {
            crate::tests_support::skip("no /proc here");
        }
    }

    #[test]
    fn byte_counts_read_well() {
        assert_eq!(Bytes(3 * 1024 * 1024).to_string(), "3 MiB");
        assert_eq!(Bytes(1536 * 1024 * 1024).to_string(), "1.5 GiB");
        // Small and huge sizes in units of their own, with three significant digits.
        assert_eq!(Bytes(1024).to_string(), "1 KiB");
        assert_eq!(Bytes(1500 * 1024).to_string(), "1.46 MiB");
        assert_eq!(Bytes(1_250_000).to_string(), "1.19 MiB");
        assert_eq!(Bytes(700).to_string(), "700 bytes");
        assert_eq!(Bytes(2_133_000_000_000_000).to_string(), "1.89 PiB");
        assert_eq!(Bytes(u64::MAX).to_string(), "16 EiB");
    }

    #[test]
    fn sizes_parse_as_people_write_them() {
        let ok = |t: &str| t.parse::<Bytes>().unwrap().0;
        assert_eq!(ok("3000000000"), 3_000_000_000);
        assert_eq!(ok("4G"), 4 << 30);
        assert_eq!(ok("512MiB"), 512 << 20);
        assert_eq!(ok("1.5g"), 3 << 29);
        assert_eq!(ok("2 TB"), 2 << 40);
        for bad in ["", "abc", "4Q", "-1G", "0", "G", "1e400"] {
            assert!(bad.parse::<Bytes>().is_err(), "{bad}");
        }
    }
}
