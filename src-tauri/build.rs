fn main() {
    // tauri.conf.json sits next to the root Cargo.toml (this package's manifest), and its one
    // capability is inline there. Left to its default, tauri-build watches a `capabilities/`
    // folder that does not exist, which cargo reads as changed on every build: the app was
    // compiled again by every cargo command. The pattern names where capability files would go
    // (none today); one added there needs its own `cargo:rerun-if-changed` line here.
    let attributes =
        tauri_build::Attributes::new().capabilities_path_pattern("src-tauri/capabilities/*.json");
    if let Err(e) = tauri_build::try_build(attributes) {
        eprintln!("{e:#}");
        std::process::exit(1);
    }
}
