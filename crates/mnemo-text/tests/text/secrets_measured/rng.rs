//! The measured corpus's generator: a small seeded PRNG (splitmix64) and the alphabets and
//! encodings the shapes are written in. Deterministic: the same seed gives the same corpus on
//! every machine, so a figure that moves is a rule that moved.

pub const AN: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub const HEX: &str = "0123456789abcdef";
pub const UPHEX: &str = "0123456789ABCDEF";
pub const UP: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
pub const LOW: &str = "abcdefghijklmnopqrstuvwxyz";
pub const LOWAN: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
pub const DIG: &str = "0123456789";
pub const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub const URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/// What a person types as a password (no space, quote, `:`, `@` or `/`: URL- and line-safe).
pub const PW: &str = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%^&*-_+=.";

pub struct Gen(u64);

impl Gen {
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T: ?Sized>(&mut self, xs: &[&'a T]) -> &'a T {
        xs[self.below(xs.len())]
    }

    /// `n` characters from `alphabet`.
    pub fn s(&mut self, n: usize, alphabet: &str) -> String {
        let a: Vec<char> = alphabet.chars().collect();
        (0..n).map(|_| a[self.below(a.len())]).collect()
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 24) as u8).collect()
    }

    /// A password a person would set: random, or a word with digits and a symbol, or a
    /// passphrase of four words.
    pub fn password(&mut self) -> String {
        const WORDS: &[&str] = &[
            "Summer", "Winter", "Dragon", "Monkey", "Sunshine", "Football", "Shadow", "Falcon",
            "Orange", "Tiger", "Coffee", "Harbor",
        ];
        const LOWER: &[&str] = &[
            "correct", "horse", "battery", "staple", "orbit", "lantern", "meadow", "copper",
            "violet", "river", "granite", "pickle", "tundra", "walnut",
        ];
        match self.below(4) {
            0 | 1 => {
                let n = 10 + self.below(10);
                // At least one digit: what a password policy asks for.
                format!("{}{}", self.s(n, PW), self.s(1, DIG))
            }
            2 => format!(
                "{}{}{}",
                self.pick(WORDS),
                1970 + self.below(60),
                self.pick(&["!", "#", "$", "?", "*", "!!"])
            ),
            _ => (0..4)
                .map(|_| self.pick(LOWER))
                .collect::<Vec<_>>()
                .join("-"),
        }
    }

    pub fn uuid(&mut self) -> String {
        let h = self.s(32, HEX);
        format!(
            "{}-{}-4{}-{}{}-{}",
            &h[..8],
            &h[8..12],
            &h[13..16],
            self.pick(&["8", "9", "a", "b"]),
            &h[17..20],
            &h[20..]
        )
    }
}

/// Standard base64 (with padding).
pub fn b64(data: &[u8]) -> String {
    b64_with(data, B64, true)
}

/// URL-safe base64 without padding (JWTs).
pub fn b64url(data: &[u8]) -> String {
    b64_with(data, URL, false)
}

fn b64_with(data: &[u8], alphabet: &str, pad: bool) -> String {
    let a = alphabet.as_bytes();
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..=c.len() {
            out.push(a[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
        if pad {
            out.extend(std::iter::repeat_n('=', 3 - c.len()));
        }
    }
    out
}

/// `body` cut into lines of `width`, joined by `sep`.
pub fn wrap(body: &str, width: usize, sep: &str) -> String {
    body.as_bytes()
        .chunks(width)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(sep)
}

#[test]
fn base64_is_the_standard_one() {
    assert_eq!(b64(b"hello world"), "aGVsbG8gd29ybGQ=");
    assert_eq!(b64(b"user:pass"), "dXNlcjpwYXNz");
    assert_eq!(b64url(b"{\"alg\":\"HS256\"}"), "eyJhbGciOiJIUzI1NiJ9");
}
