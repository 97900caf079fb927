//! Reading a JSON export one element at a time: a 500 MB `conversations.json` is never held
//! whole — only the element being read is. The top level may be an array of elements, or an
//! object whose array under one of a few known keys (`results`, `memories`, `observations`,
//! `conversations`, `items`) holds them; other keys are skipped unread.

use std::fmt;
use std::io::Read;

use mnemo_core::{Error, ErrorCode, Result};
use serde::Deserializer as _;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Object keys whose array holds an export's elements.
pub const ARRAY_KEYS: &[&str] = &[
    "results",
    "memories",
    "observations",
    "conversations",
    "items",
];

/// The largest element read (a conversation with all its messages; a fact is far smaller): a
/// bigger one stops the import with its number, before it is held.
pub const MAX_ELEMENT_BYTES: u64 = 64 * 1024 * 1024;

/// The walk's state beside the parser: bytes read since the current element began (while one is
/// being read), whether that passed [`MAX_ELEMENT_BYTES`], and whether the walk stopped on
/// purpose. The parser's errors are told apart by these, never by their text.
#[derive(Default)]
struct Budget {
    reading: std::cell::Cell<bool>,
    used: std::cell::Cell<u64>,
    exceeded: std::cell::Cell<bool>,
    stopped: std::cell::Cell<bool>,
}

impl Budget {
    /// The error that ends the walk early on purpose (not a failure).
    fn stop<E: de::Error>(&self) -> E {
        self.stopped.set(true);
        E::custom("the walk stopped")
    }
}

/// The file, counted against the current element's budget.
struct Counted<'a, R> {
    inner: R,
    budget: &'a Budget,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.budget.reading.get() && self.budget.used.get() > MAX_ELEMENT_BYTES {
            self.budget.exceeded.set(true);
            return Err(std::io::Error::other("an element passed the size limit"));
        }
        let n = self.inner.read(buf)?;
        self.budget.used.set(self.budget.used.get() + n as u64);
        Ok(n)
    }
}

/// What the callback wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Read the next element.
    More,
    /// Stop reading (the rest of the file is not read).
    Stop,
}

/// Where an element came from: the array's key in a top-level object (`None` for a top-level
/// array) and its position (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// The key of the array (`observations`…), `None` at the top level.
    pub key: Option<String>,
    /// 0-based index in that array.
    pub index: usize,
}

/// Call `f` with each element of the export read from `reader`, in order. A UTF-8 byte order
/// mark is skipped. Errors: invalid JSON, invalid UTF-8, a truncated file — `invalid_content`
/// naming the line and column and what to do; an error `f` returns is passed through.
pub fn for_each(
    reader: impl Read,
    mut f: impl FnMut(&Position, Value) -> Result<Next>,
) -> Result<()> {
    let budget = Budget::default();
    let counted = Counted {
        inner: reader,
        budget: &budget,
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 16, counted);
    skip_bom(&mut reader)?;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut failure: Option<Error> = None;
    let outcome = de.deserialize_any(Top {
        f: &mut f,
        failure: &mut failure,
        budget: &budget,
    });
    if let Some(e) = failure {
        return Err(e);
    }
    match outcome {
        Ok(()) => de.end().map_err(|e| json_error(&e)),
        Err(_) if budget.stopped.get() => Ok(()),
        Err(e) => Err(json_error(&e)),
    }
}

/// The first element of an export (for telling formats apart), or `None` when it has none.
pub fn first(reader: impl Read) -> Result<Option<(Position, Value)>> {
    let mut found = None;
    for_each(reader, |p, v| {
        found = Some((p.clone(), v));
        Ok(Next::Stop)
    })?;
    Ok(found)
}

fn skip_bom<R: std::io::BufRead>(r: &mut R) -> Result<()> {
    let buf = r
        .fill_buf()
        .map_err(|e| Error::io("reading the export", &e))?;
    if buf.starts_with(b"\xEF\xBB\xBF") {
        r.consume(3);
    }
    Ok(())
}

/// A JSON parse error in words: where, and what to do.
fn json_error(e: &serde_json::Error) -> Error {
    let what = match e.classify() {
        serde_json::error::Category::Eof => {
            "the file ends in the middle of the data: it looks truncated; export it again"
                .to_owned()
        }
        serde_json::error::Category::Io => format!("it could not be read ({e})"),
        _ => {
            let text = e.to_string();
            if text.contains("unicode") || text.contains("UTF-8") || text.contains("utf-8") {
                "it is not valid UTF-8 text: export it again as UTF-8".to_owned()
            } else {
                "it is not valid JSON: export it again".to_owned()
            }
        }
    };
    Error::new(
        ErrorCode::InvalidContent,
        format!(
            "the export is damaged at line {}, column {}: {what}",
            e.line(),
            e.column()
        ),
    )
}

struct Top<'a, F> {
    f: &'a mut F,
    failure: &'a mut Option<Error>,
    budget: &'a Budget,
}

impl<'de, F: FnMut(&Position, Value) -> Result<Next>> Visitor<'de> for Top<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of elements, or an object holding one")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<(), A::Error> {
        elements(seq, None, self.f, self.failure, self.budget)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if ARRAY_KEYS.contains(&key.as_str()) {
                map.next_value_seed(Array {
                    key,
                    f: &mut *self.f,
                    failure: &mut *self.failure,
                    budget: self.budget,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct Array<'a, F> {
    key: String,
    f: &'a mut F,
    failure: &'a mut Option<Error>,
    budget: &'a Budget,
}

impl<'de, F: FnMut(&Position, Value) -> Result<Next>> DeserializeSeed<'de> for Array<'_, F> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, F: FnMut(&Position, Value) -> Result<Next>> Visitor<'de> for Array<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<(), A::Error> {
        elements(seq, Some(self.key), self.f, self.failure, self.budget)
    }

    // Anything else under a known key (a count, a string) is not the elements: skip it.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<(), E> {
        Ok(())
    }
}

fn elements<'de, A: SeqAccess<'de>, F: FnMut(&Position, Value) -> Result<Next>>(
    mut seq: A,
    key: Option<String>,
    f: &mut F,
    failure: &mut Option<Error>,
    budget: &Budget,
) -> std::result::Result<(), A::Error> {
    let mut pos = Position { key, index: 0 };
    loop {
        budget.used.set(0);
        budget.reading.set(true);
        let next = seq.next_element::<Value>();
        budget.reading.set(false);
        let v = match next {
            Ok(Some(v)) => v,
            Ok(None) => break,
            Err(_) if budget.exceeded.get() => {
                *failure = Some(Error::new(
                    ErrorCode::TooLarge,
                    format!(
                        "item {} of the export is larger than {} MiB, more than any memory or \
                         conversation Mnemo imports, so the import stops there — remove or split \
                         that item, then import again",
                        pos.index + 1,
                        MAX_ELEMENT_BYTES / (1024 * 1024)
                    ),
                ));
                return Err(budget.stop());
            }
            Err(e) => return Err(e),
        };
        match f(&pos, v) {
            Ok(Next::More) => {}
            Ok(Next::Stop) => return Err(budget.stop()),
            Err(e) => {
                *failure = Some(e);
                return Err(budget.stop());
            }
        }
        pos.index += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &[u8]) -> Result<Vec<(Option<String>, Value)>> {
        let mut out = Vec::new();
        for_each(text, |p, v| {
            out.push((p.key.clone(), v));
            Ok(Next::More)
        })?;
        Ok(out)
    }

    #[test]
    fn arrays_and_objects_holding_them() {
        let got = all(br#"[{"a":1},{"a":2}]"#).unwrap();
        assert_eq!(got.len(), 2);
        let got =
            all(b"\xEF\xBB\xBF{\"count\": 2, \"results\": [1, 2, 3], \"next\": null}").unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].0.as_deref(), Some("results"));
        assert!(all(br#"{"results": 5}"#).unwrap().is_empty());
    }

    #[test]
    fn damaged_files_say_where_and_what_to_do() {
        let e = all(br#"[{"a":1},{"a":"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidContent);
        assert!(e.message.contains("truncated"), "{}", e.message);
        let e = all(b"[{\"a\":\"caf\xE9\"}]").unwrap_err();
        assert!(e.message.contains("UTF-8"), "{}", e.message);
        let e = all(b"[1] trailing").unwrap_err();
        assert!(e.message.contains("not valid JSON"), "{}", e.message);
    }

    /// `[{"a":1},{"text":"xxx…` with `n` bytes of `x`, made as it is read (never held).
    struct Huge {
        head: &'static [u8],
        left: u64,
        tail: &'static [u8],
    }

    impl Read for Huge {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if !self.head.is_empty() {
                let n = self.head.len().min(buf.len());
                buf[..n].copy_from_slice(&self.head[..n]);
                self.head = &self.head[n..];
                return Ok(n);
            }
            if self.left > 0 {
                let n = usize::try_from(self.left)
                    .unwrap_or(usize::MAX)
                    .min(buf.len());
                buf[..n].fill(b'x');
                self.left -= n as u64;
                return Ok(n);
            }
            let n = self.tail.len().min(buf.len());
            buf[..n].copy_from_slice(&self.tail[..n]);
            self.tail = &self.tail[n..];
            Ok(n)
        }
    }

    #[test]
    fn an_element_over_the_cap_stops_the_import_with_its_number() {
        let huge = Huge {
            head: br#"{"memories": [{"a":1},{"text":""#,
            left: MAX_ELEMENT_BYTES * 3,
            tail: br#""}]}"#,
        };
        let mut seen = 0;
        let e = for_each(huge, |_, _| {
            seen += 1;
            Ok(Next::More)
        })
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge);
        assert!(e.message.contains("item 2 "), "{}", e.message);
        assert_eq!(seen, 1, "the first item was read, the second never held");
        // Just under the cap is read.
        let fits = Huge {
            head: br#"[{"text":""#,
            left: MAX_ELEMENT_BYTES - 1024,
            tail: br#""}]"#,
        };
        let mut n = 0;
        for_each(fits, |_, _| {
            n += 1;
            Ok(Next::More)
        })
        .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn stops_early_and_passes_errors_through() {
        let (p, v) = first(&b"[7, 8, this is never read"[..]).unwrap().unwrap();
        assert_eq!((p.index, v), (0, Value::from(7)));
        let e = for_each(&b"[1,2]"[..], |_, _| Err(Error::usage("no"))).unwrap_err();
        assert_eq!(e.message, "no");
    }
}
