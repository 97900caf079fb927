//! The API's integration tests, one binary (one link, one copy of what they share): each module
//! is the suite of one area, `common` their homes and fake-model helpers.

#![allow(clippy::unwrap_used)]

mod chat;
mod common;
mod compaction;
mod curate;
mod decode_props;
mod dream;
mod env_overrides;
mod hybrid;
mod import;
mod import_chats;
mod import_hostile;
mod remember_forget;
mod review;
mod review_writers;
mod secret_gate;
mod sync;
mod tasks;
