//! Keyed tags: a journal's checksum shows damage, but anyone who edits a file can compute it
//! again. A key that the cluster's job carries (and the file's editor does not) closes that
//! door: a journal written with a [`Key`] holds an HMAC-SHA256 tag (RFC 2104) of its contents,
//! and a reader with the key refuses a file whose tag is missing or does not match. The tag
//! proves who wrote the file, not that the counts in it are right: a node with the key and
//! faulty memory still tags a wrong count, which the recount is there to catch.

use std::fmt;
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The fewest bytes a key file may hold (128 bits).
pub const MIN_KEY_BYTES: usize = 16;

/// The most bytes read from a key file: a key is short, and a device would never end.
const MAX_KEY_BYTES: u64 = 1 << 16;

/// The secret that tags journals: the bytes of a key file, as they are (a trailing newline
/// included).
#[derive(Clone, PartialEq, Eq)]
pub struct Key(Vec<u8>);

/// Why a key file cannot serve.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The file could not be read.
    #[error("the key file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Too short to be a secret, or too long to be a key.
    #[error(
        "the key file {path} holds {bytes} bytes: a key is {MIN_KEY_BYTES} to {MAX_KEY_BYTES} \
         bytes (make one with `head -c 32 /dev/urandom > FILE`)"
    )]
    Length {
        /// The file.
        path: PathBuf,
        /// The bytes it holds (at least, for a file past the limit).
        bytes: u64,
    },
}

impl Key {
    /// A key of `bytes`, which must number at least `MIN_KEY_BYTES`.
    pub fn new(bytes: Vec<u8>) -> Option<Key> {
        (bytes.len() >= MIN_KEY_BYTES).then_some(Key(bytes))
    }

    /// Reads the key from `path`.
    pub fn read(path: &Path) -> Result<Key, KeyError> {
        use std::io::Read;
        let read = |source| KeyError::Read {
            path: path.to_path_buf(),
            source,
        };
        // A pipe or a terminal (`/dev/stdout` on a pipe, a FIFO) would wait for a writer,
        // forever; a device such as /dev/zero would never end.
        if !std::fs::metadata(path).map_err(read)?.is_file() {
            return Err(read(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file (a folder, device or pipe)",
            )));
        }
        let file = std::fs::File::open(path).map_err(read)?;
        let mut bytes = Vec::new();
        file.take(MAX_KEY_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(read)?;
        let len = bytes.len() as u64;
        let key = Key::new(bytes).filter(|_| len <= MAX_KEY_BYTES);
        key.ok_or(KeyError::Length {
            path: path.to_path_buf(),
            bytes: len,
        })
    }

    /// The tag of `message`: HMAC-SHA256 as 64 lowercase hex digits.
    pub(crate) fn tag(&self, message: &[u8]) -> String {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(message);
        let bytes = mac.finalize().into_bytes();
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Whether `tag` is the tag of `message`, compared in constant time.
    pub(crate) fn verifies(&self, message: &[u8], tag: &str) -> bool {
        let Some(bytes) = hex_bytes(tag) else {
            return false;
        };
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(message);
        mac.verify_slice(&bytes).is_ok()
    }
}

/// Never prints the secret.
impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({} bytes)", self.0.len())
    }
}

/// The bytes of an even number of hex digits.
fn hex_bytes(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_is_hmac_sha256_of_rfc_4231() {
        // RFC 4231, test case 2. Its key, "Jefe", is shorter than a key file may be, so it
        // is built directly.
        let key = Key(b"Jefe".to_vec());
        assert_eq!(
            key.tag(b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert!(key.verifies(
            b"what do ya want for nothing?",
            &key.tag(b"what do ya want for nothing?")
        ));
        assert!(!key.verifies(
            b"what do ya want for nothing!",
            &key.tag(b"what do ya want for nothing?")
        ));
        assert!(!key.verifies(b"x", "not hex"));
        assert!(!key.verifies(b"x", "abc"));
    }

    #[test]
    fn empty_and_huge_key_files_are_refused_and_the_secret_never_printed() {
        // A short one: `tests/forgery.rs`.
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(
            Key::read(&empty)
                .unwrap_err()
                .to_string()
                .contains("holds 0 bytes")
        );
        let huge = dir.path().join("huge");
        std::fs::write(&huge, vec![7u8; (MAX_KEY_BYTES + 5) as usize]).unwrap();
        assert!(Key::read(&huge).is_err());
        let missing = Key::read(&dir.path().join("none")).unwrap_err().to_string();
        assert!(missing.contains("the key file"), "{missing}");
        let good = dir.path().join("good");
        std::fs::write(&good, b"a secret of thirty-two bytes!!!\n").unwrap();
        let key = Key::read(&good).unwrap();
        assert_eq!(format!("{key:?}"), "Key(32 bytes)");
    }
}
