//! Tests of memory text against corpora and oracles: the secret gate measured on real-shaped
//! secrets and ordinary text, the entry merge against a model.

// Test support code: panicking on unexpected failure is the point.
#![allow(clippy::unwrap_used)]

mod merge;
mod secrets_corpus;
mod secrets_measured;
