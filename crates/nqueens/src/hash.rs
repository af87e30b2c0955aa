//! A small, stable 64-bit fingerprint (FNV-1a) for plans and result files.
//!
//! It guards against accidents (a truncated file, an edited number, a file from another plan),
//! not against forgery, and it must never change between versions: files written by one build
//! are read by another.

/// FNV-1a, 64-bit (Fowler, Noll and Vo).
#[derive(Clone, Debug)]
pub struct Fnv(u64);

impl Fnv {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// A fresh hasher.
    pub fn new() -> Fnv {
        Fnv(Self::OFFSET)
    }

    /// Adds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }

    /// Adds a number (little-endian bytes).
    pub fn write_u64(&mut self, v: u64) {
        self.write(&v.to_le_bytes());
    }

    /// Adds a string and its length, so that concatenations stay distinct.
    pub fn write_str(&mut self, s: &str) {
        self.write_u64(s.len() as u64);
        self.write(s.as_bytes());
    }

    /// The fingerprint so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// Fingerprint of a byte string, as 16 hex digits.
pub fn hex_of(bytes: &[u8]) -> String {
    let mut h = Fnv::new();
    h.write(bytes);
    format!("{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_test_vectors() {
        assert_eq!(hex_of(b""), "cbf29ce484222325");
        assert_eq!(hex_of(b"a"), "af63dc4c8601ec8c");
        assert_eq!(hex_of(b"foobar"), "85944171f73967e8");
    }
}
