//! What every reader of memory files shares: the size cap, the content hash, names made safe to
//! print, a file's link count.

use std::fs;

/// Files larger than this are listed and flagged, never read whole (a 50 MB "memory" is not one).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Characters no path or name may hold: control characters (newlines inject lines into
/// MEMORY.md; escapes paint terminals) and bidirectional overrides / isolates (they make a name
/// read as another).
#[must_use]
pub fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `s` safe to print: each [`unsafe_char`] shown escaped (`\u{202e}`, `\n`).
#[must_use]
pub fn printable(s: &str) -> String {
    if !s.chars().any(unsafe_char) {
        return s.to_owned();
    }
    s.chars()
        .map(|c| {
            if unsafe_char(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// How many names a file has (1 for a file of its own; more for a hard link).
#[must_use]
pub fn link_count(meta: &fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

/// Content hash used by the index and the journal (BLAKE3, hex).
#[must_use]
pub fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}
