import { describe, expect, it } from "vitest";
import { printable, unsafeChar } from "./printable";

describe("printable", () => {
  it("leaves ordinary names as they are (the same string)", () => {
    for (const s of ["", "travel.md", "旅行偏好", "Café notes — 2024", "emoji 🧠 ok", "tab-less name"]) {
      expect(printable(s)).toBe(s);
    }
  });

  it("escapes a right-to-left override, so a name cannot read as another", () => {
    expect(printable("invoice\u202Egpj.md")).toBe("invoice\\u{202e}gpj.md");
  });

  it("escapes control characters as Rust's escape_unicode does (lowercase hex, no padding)", () => {
    expect(printable("\u001b[31mred")).toBe("\\u{1b}[31mred");
    expect(printable("a\nb\tc\u0000d\u007fe\u0085f")).toBe("a\\u{a}b\\u{9}c\\u{0}d\\u{7f}e\\u{85}f");
    expect(printable("bell\u0007 and \u202E and \u001B")).toBe("bell\\u{7} and \\u{202e} and \\u{1b}");
  });

  it("escapes every bidirectional mark, embedding, override and isolate", () => {
    const bidi = [0x200e, 0x200f, 0x061c, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
    for (const c of bidi) {
      expect(unsafeChar(c)).toBe(true);
      expect(printable(`x${String.fromCodePoint(c)}y`)).toBe(`x\\u{${c.toString(16)}}y`);
    }
    // Neighbours that are not: the zero-width joiner, an ordinary space, Arabic letters.
    for (const c of [0x200d, 0x2029, 0x2065, 0x206a, 0x20, 0x0627, 0xa0]) expect(unsafeChar(c)).toBe(false);
    expect(printable("مرحبا")).toBe("مرحبا");
  });

  it("keeps characters outside the Basic Multilingual Plane whole", () => {
    expect(printable("𝒳\u202E𝒴")).toBe("𝒳\\u{202e}𝒴");
  });
});
