// Names that come from disk or from other tools, made safe to show: a bidirectional override
// makes "invoice\u202Egpj.md" read as "invoicedm.jpg", and a control character can hide or
// paint text. The backend refuses such characters in paths it writes; files other tools wrote
// can still hold them. Mirrors the Rust `fsutil::printable`.

/**
 * Whether `c` (one code point) may not be shown as it is: a control character (Unicode
 * category Cc) or a bidirectional mark, embedding, override or isolate.
 */
export function unsafeChar(c: number): boolean {
  return (
    c <= 0x1f ||
    (c >= 0x7f && c <= 0x9f) ||
    c === 0x200e ||
    c === 0x200f ||
    c === 0x061c ||
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2066 && c <= 0x2069)
  );
}

/** Whether `s` holds an unsafe character (each is one UTF-16 unit: no surrogate pair is one). */
function anyUnsafe(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (unsafeChar(s.charCodeAt(i))) return true;
  return false;
}

/**
 * `s` safe to show: each unsafe character (`unsafeChar`) written as a visible escape, exactly as
 * Rust's `char::escape_unicode` writes it (`\u{202e}`, `\u{1b}`, `\u{a}`); other text as it is.
 */
export function printable(s: string): string {
  if (!anyUnsafe(s)) return s;
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    out += unsafeChar(c) ? `\\u{${c.toString(16)}}` : ch;
  }
  return out;
}
