//! No padded sentences: a string literal broken across lines without a trailing `\`
//! keeps the newline and the next line's indentation ("Undoing     them"), and a later reflow
//! of such a literal onto one line leaves a run of spaces in the middle of a sentence. This test
//! reads the workspace's Rust sources (`crates/*/src`, `src-tauri`) and fails on every ordinary
//! string literal (`"…"`, `b"…"`; not raw strings, chars or comments) whose text holds a newline
//! followed by 4 or more spaces, or a run of 4 or more spaces between two other characters.
//!
//! Exempt from the newline rule: SQL (its whitespace is never shown to anyone). Any other
//! exemption is a `// padded: <why>` comment on the line before the literal; keep them rare.

use std::path::{Path, PathBuf};

/// The workspace's root, read when the test runs (cargo sets it): a test binary built from
/// another checkout sharing the target dir must not read that checkout's files.
fn workspace_root() -> PathBuf {
    let dir = std::env::var("CARGO_MANIFEST_DIR")
        .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_owned());
    Path::new(&dir).join("../..")
}

/// One ordinary string literal: the line its opening quote is on and its text (escapes and
/// `\`-newline continuations applied as rustc does for the parts that matter here).
#[derive(Debug, PartialEq)]
struct Literal {
    line: usize,
    text: String,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The ordinary string literals of a Rust source, skipping comments (nested block comments
/// too), raw strings (`r"…"`, `r#"…"#`, `br"…"`, `cr"…"`), char literals and lifetimes.
fn literals(src: &str) -> Vec<Literal> {
    let s: Vec<char> = src.chars().collect();
    let n = s.len();
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < n {
        let c = s[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < n && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0usize;
            while i < n {
                if s[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(s[i] == '\n');
                    i += 1;
                }
            }
        } else if (c == 'r' || ((c == 'b' || c == 'c') && at(i + 1) == 'r'))
            && (i == 0 || !is_ident(s[i - 1]))
            && raw_start(&s, i + usize::from(c != 'r') + 1).is_some()
        {
            let (hashes, body) = raw_start(&s, i + usize::from(c != 'r') + 1).unwrap_or_default();
            i = body;
            while i < n && !(s[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#')) {
                line += usize::from(s[i] == '\n');
                i += 1;
            }
            i += 1 + hashes;
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                // An escaped char: '\'' , '\n', '\u{…}'.
                i += 3;
                while i < n && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1; // a lifetime or label
            }
        } else if c == '"' {
            let start = line;
            let mut text = String::new();
            i += 1;
            while i < n && s[i] != '"' {
                if s[i] == '\\' {
                    match at(i + 1) {
                        '\n' | '\r' => {
                            i += 1;
                            while i < n && s[i].is_whitespace() {
                                line += usize::from(s[i] == '\n');
                                i += 1;
                            }
                            continue;
                        }
                        'n' => text.push('\n'),
                        't' => text.push('\t'),
                        'r' => text.push('\r'),
                        other => text.push(other),
                    }
                    i += 2;
                } else {
                    line += usize::from(s[i] == '\n');
                    text.push(s[i]);
                    i += 1;
                }
            }
            i += 1;
            out.push(Literal { line: start, text });
        } else {
            i += 1;
        }
    }
    out
}

/// After the `r` of a raw string: how many `#` and where its text begins, if it is one.
fn raw_start(s: &[char], mut i: usize) -> Option<(usize, usize)> {
    let mut hashes = 0;
    while s.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    (s.get(i) == Some(&'"')).then_some((hashes, i + 1))
}

/// SQL: its layout is for the person reading the code, never shown to anyone.
fn is_sql(text: &str) -> bool {
    const WORDS: [&str; 7] = [
        "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "ALTER", "PRAGMA",
    ];
    text.split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| WORDS.contains(&w))
}

/// What is wrong with a literal's text, if anything.
fn padding(text: &str) -> Option<&'static str> {
    if !is_sql(text) && text.contains("\n    ") {
        return Some("a newline followed by indentation (a missing `\\` at a line's end?)");
    }
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == ' ' {
            let run = chars[i..].iter().take_while(|&&c| c == ' ').count();
            let before = i.checked_sub(1).map(|b| chars[b]);
            let after = chars.get(i + run).copied();
            let inside = |c: Option<char>| c.is_some_and(|c| !c.is_whitespace());
            if run >= 4 && inside(before) && inside(after) {
                return Some("a run of spaces inside a sentence");
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != "node_modules" && name != "gen" {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every padded literal of one source, as `line: why: text`, leaving out those exempted.
fn findings(src: &str) -> Vec<String> {
    let lines: Vec<&str> = src.lines().collect();
    literals(src)
        .into_iter()
        .filter_map(|lit| {
            let why = padding(&lit.text)?;
            let before = lit.line.checked_sub(2).and_then(|k| lines.get(k));
            let exempt = before.is_some_and(|l| {
                l.trim_start()
                    .strip_prefix("// padded:")
                    .is_some_and(|reason| !reason.trim().is_empty())
            });
            let shown: String = lit.text.chars().take(90).collect();
            (!exempt).then(|| format!("{}: {why}: {shown:?}", lit.line))
        })
        .collect()
}

#[test]
fn no_string_literal_in_the_sources_is_padded() {
    let root = workspace_root();
    let mut files = Vec::new();
    let crates = std::fs::read_dir(root.join("crates")).expect("the workspace's crates folder");
    for krate in crates.flatten() {
        rust_files(&krate.path().join("src"), &mut files);
    }
    rust_files(&root.join("src-tauri"), &mut files);
    files.sort();
    assert!(
        files.len() > 50,
        "found only {} Rust sources under {}",
        files.len(),
        root.display()
    );
    let mut found = Vec::new();
    for file in &files {
        let src = std::fs::read_to_string(file).expect("a Rust source is UTF-8");
        let shown = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        found.extend(findings(&src).into_iter().map(|f| format!("{shown}:{f}")));
    }
    assert!(
        found.is_empty(),
        "string literals with padding inside (end the line with `\\` to continue a literal, \
         or put `// padded: <why>` on the line before if it is meant):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scanner_reads_literals_as_rustc_does() {
    let src = "let a = \"one \\\n    two\"; // \"not   a    literal\"\n\
               /* \"nor /* nested */ this    one\" */ let c = '\"'; let d = '\\'';\n\
               fn f<'a>(x: &'a str) {} let e = r#\"raw    \"quoted\"    text\"#;\n\
               let g = \"esc \\\"q\\\"    x\"; let h = b\"bytes\";";
    let got = literals(src);
    let texts: Vec<(usize, &str)> = got.iter().map(|l| (l.line, l.text.as_str())).collect();
    assert_eq!(
        texts,
        vec![(1, "one two"), (5, "esc \"q\"    x"), (5, "bytes")]
    );
}

#[test]
fn padding_is_found_and_only_where_meant() {
    // The shapes once found in the sources.
    assert!(padding("Undoing     them here").is_some());
    assert!(padding("this home synced\n                          with").is_some());
    assert!(padding("first line\n    indented second").is_some());
    // Not padding: leading or trailing spaces, short runs, SQL layout.
    assert!(padding("    stale").is_none());
    assert!(padding("ends with    ").is_none());
    assert!(padding("a   b").is_none());
    assert!(padding("SELECT a FROM t\n                 WHERE b = ?1").is_none());
    // SQL is exempt from the newline rule only.
    assert!(padding("SELECT a     FROM t").is_some());

    let src = "fn f() {\n    // padded: lines up with the row above\n    println!(\"x    {p}\");\n    \
               println!(\"y    {p}\");\n    // padded:\n    println!(\"z    {p}\");\n}\n";
    let found = findings(src);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("4: "), "{found:?}");
    assert!(
        found[1].starts_with("6: "),
        "a reason is required: {found:?}"
    );
}
