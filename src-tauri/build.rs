fn main() {
    // tauri.conf.json sits next to the root Cargo.toml (this package's manifest).
    tauri_build::build();
}
