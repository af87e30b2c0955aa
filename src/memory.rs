//! Memory facts the join engine needs: how much the machine has free, and how much this process
//! has used at its peak.
//!
//! Both come from the Linux `/proc` files (`MemAvailable` in `/proc/meminfo`, `VmHWM` in
//! `/proc/self/status`); elsewhere they are unknown (`None`) and no limit is enforced.

/// Bytes the system can give this process without swapping, when known.
pub fn available() -> Option<u64> {
    field(
        &std::fs::read_to_string("/proc/meminfo").ok()?,
        "MemAvailable:",
    )
}

/// The largest resident size this process has had, in bytes, when known.
pub fn peak() -> Option<u64> {
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

/// A byte count for people: `512 MiB`, `3.4 GiB`.
pub fn human(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    let b = bytes as f64;
    if b >= 1024.0 * MIB {
        format!("{:.1} GiB", b / (1024.0 * MIB))
    } else {
        format!("{:.0} MiB", (b / MIB).ceil())
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
            assert!(peak().unwrap() > 0);
            assert!(available().unwrap() > 0);
        }
    }

    #[test]
    fn byte_counts_read_well() {
        assert_eq!(human(3 * 1024 * 1024), "3 MiB");
        assert_eq!(human(1536 * 1024 * 1024), "1.5 GiB");
    }
}
