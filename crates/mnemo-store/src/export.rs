//! Export: workspaces as a zip of their markdown files as they are on disk —
//! topic files, daily logs, MEMORY.md — plus `manifest.jsonl` (one line per file: workspace,
//! path, kind, type, name, description, timestamps, pinned, archived, hash). Reading one back
//! for import: every file checked against its manifest line, never more than 1 MiB each.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

use mnemo_core::{Error, ErrorCode, MemoryType, Result};
use serde::{Deserialize, Serialize};

use crate::format::TopicFile;
use crate::fsutil::{self, ReadOutcome};
use crate::import::plan::{Existing, ImportPlan, PlannedFile};
use crate::import::{ImportFormat, ImportPreview, SkipKind};
use crate::workspace::Workspace;
use crate::{doc, memory_md};

/// The most bytes of memory files an import of an export holds at once.
pub const MAX_HELD_BYTES: u64 = 256 << 20;

/// The manifest's name inside the zip.
pub const MANIFEST: &str = "manifest.jsonl";
/// Most files an export may hold when read back.
pub const MAX_FILES: usize = 500_000;
/// The list of the export's workspaces inside the zip: where each lived, so a whole-home
/// restore can put another tool's memory and an added folder back where they were.
pub const WORKSPACES: &str = "workspaces.jsonl";
/// Most workspaces an export lists (more is not an export Mnemo wrote).
const MAX_WORKSPACES: usize = 10_000;

/// One workspace of an export: what it was and where it lived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedWorkspace {
    /// Its id (`personal`, `claude:-home-ana-app`, `folder:-home-ana-notes`).
    pub id: String,
    /// `mnemo`, `claude`, `qwen` or `folder`.
    pub kind: String,
    /// Its label.
    pub label: String,
    /// Its memory folder on the machine that exported it (absent when the path held what
    /// looks like a secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
}

/// One file of an export, as its manifest line says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestLine {
    /// The workspace it came from.
    pub workspace: String,
    /// Its path in that workspace's memory folder.
    pub path: String,
    /// Its path in the zip.
    pub zip_path: String,
    /// `topic`, `log` or `index` (MEMORY.md).
    pub kind: String,
    /// Its type (topics).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<MemoryType>,
    /// Its name (topics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its description (topics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// When the file was created, where the filesystem says (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// When it last changed (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    /// `pinned: true`.
    #[serde(default)]
    pub pinned: bool,
    /// `archived: true`.
    #[serde(default)]
    pub archived: bool,
    /// Content hash (blake3, hex) of its bytes.
    pub hash: String,
    /// Its size.
    pub bytes: u64,
}

/// What an export wrote.
///
/// Its fields are documented where clients read them: `mnemo_api::wire::ExportResult`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportResult {
    pub path: String,
    pub workspaces: Vec<String>,
    pub files: u32,
    pub bytes: u64,
    pub left_out: Vec<String>,
}

fn rfc3339(t: std::io::Result<std::time::SystemTime>) -> Option<String> {
    let t: chrono::DateTime<chrono::Utc> = t.ok()?.into();
    Some(t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// A workspace's folder name in the zip: its id made a safe, unique file name.
fn folder_of(id: &str, used: &mut BTreeSet<String>) -> String {
    let base: String = id
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_matches('.')
        .to_owned();
    let base = if base.is_empty() {
        "workspace".to_owned()
    } else {
        base
    };
    let mut name = base.clone();
    let mut n = 2;
    while !used.insert(name.clone()) {
        name = format!("{base}-{n}");
        n += 1;
    }
    name
}

/// Write `workspaces` (each with its documents and the paths `files(ws)` lists) to a new zip
/// at `dest`: written to a temporary file beside it and renamed into place, so `dest` is
/// either absent or whole. `dest` must not exist.
pub fn write_zip(workspaces: &[(Workspace, Vec<String>)], dest: &Path) -> Result<ExportResult> {
    if dest.exists() {
        return Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "{} already exists: choose another name (an export never overwrites)",
                dest.display()
            ),
        ));
    }
    let dir = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    if !dir.is_dir() {
        return Err(Error::not_found(format!(
            "the folder {} does not exist: create it or choose another",
            dir.display()
        )));
    }
    let tmp = tempfile::Builder::new()
        .prefix(".mnemo-export-")
        .tempfile_in(dir)
        .map_err(|e| Error::io(format!("creating a file in {}", dir.display()), &e))?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(tmp.as_file()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o600);
    let zerr =
        |e: zip::result::ZipError| Error::new(ErrorCode::Io, format!("writing the zip: {e}"));
    let mut manifest = String::new();
    let mut used = BTreeSet::new();
    let mut result = ExportResult {
        path: dest.display().to_string(),
        workspaces: Vec::new(),
        files: 0,
        bytes: 0,
        left_out: Vec::new(),
    };
    let mut listed = String::new();
    for (ws, paths) in workspaces {
        let folder = folder_of(&ws.id, &mut used);
        result.workspaces.push(ws.id.clone());
        let root = ws.memory_root.display().to_string();
        let about = ExportedWorkspace {
            id: ws.id.clone(),
            kind: ws.kind.as_str().to_owned(),
            label: crate::secrets::redact(&ws.label).0,
            // Every byte written passes the secret gate: a path holding one is left out.
            root: crate::secrets::held(&root).is_none().then_some(root),
        };
        listed.push_str(
            &serde_json::to_string(&about).map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?,
        );
        listed.push('\n');
        let root = match crate::rootdir::RootDir::open(&ws.memory_root) {
            Ok(r) => r,
            Err(e) if e.code == ErrorCode::NotFound => continue,
            Err(e) => return Err(e),
        };
        for rel in paths {
            let rel = fsutil::normalise(rel)?;
            let read = match root.read_capped(&rel) {
                // One file that is not the home's own (a hard link) is left out and named;
                // it does not fail the whole export.
                Err(e) if e.code == ErrorCode::PathEscape => {
                    result.left_out.push(format!(
                        "{}/{}: a hard link (its bytes may be another file's); replace it with a copy to export it",
                        ws.id,
                        fsutil::printable(&rel)
                    ));
                    continue;
                }
                r => r?,
            };
            let bytes = match read {
                ReadOutcome::Bytes(b) => b,
                ReadOutcome::Missing => continue,
                ReadOutcome::TooLarge(n) => {
                    return Err(Error::new(
                        ErrorCode::TooLarge,
                        format!(
                            "{rel} in {} is {n} bytes, over the 1 MiB a memory may be: trim it, then export again",
                            ws.id
                        ),
                    ));
                }
            };
            let meta = root.metadata(&rel).ok().flatten();
            let kind = if rel == memory_md::FILE_NAME {
                "index"
            } else {
                doc::doc_kind(&rel).map_or("topic", doc::DocKind::as_str)
            };
            let topic = (kind == "topic")
                .then(|| std::str::from_utf8(&bytes).ok().map(TopicFile::parse))
                .flatten();
            let zip_path = format!("{folder}/{rel}");
            let line = ManifestLine {
                workspace: ws.id.clone(),
                path: rel.clone(),
                zip_path: zip_path.clone(),
                kind: kind.to_owned(),
                memory_type: topic.as_ref().and_then(TopicFile::memory_type),
                name: topic.as_ref().and_then(|t| t.fields.name.clone()),
                description: topic.as_ref().and_then(|t| t.fields.description.clone()),
                created: meta.as_ref().and_then(|m| rfc3339(m.created())),
                modified: meta.as_ref().and_then(|m| rfc3339(m.modified())),
                pinned: topic.as_ref().is_some_and(|t| t.fields.pinned)
                    || doc::in_pinned_folder(&rel),
                archived: topic.as_ref().is_some_and(|t| t.fields.archived),
                hash: fsutil::hash(&bytes),
                bytes: bytes.len() as u64,
            };
            manifest.push_str(
                &serde_json::to_string(&line)
                    .map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?,
            );
            manifest.push('\n');
            zip.start_file(zip_path, options).map_err(zerr)?;
            zip.write_all(&bytes)
                .map_err(|e| Error::io("writing the zip", &e))?;
            result.files += 1;
            result.bytes += bytes.len() as u64;
        }
    }
    zip.start_file(MANIFEST, options).map_err(zerr)?;
    zip.write_all(manifest.as_bytes())
        .map_err(|e| Error::io("writing the zip", &e))?;
    zip.start_file(WORKSPACES, options).map_err(zerr)?;
    zip.write_all(listed.as_bytes())
        .map_err(|e| Error::io("writing the zip", &e))?;
    let mut w = zip.finish().map_err(zerr)?;
    w.flush().map_err(|e| Error::io("writing the zip", &e))?;
    drop(w);
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io("writing the zip", &e))?;
    tmp.persist_noclobber(dest)
        .map_err(|e| Error::io(format!("saving {}", dest.display()), &e.error))?;
    Ok(result)
}

/// A file read back from an export.
#[derive(Debug, Clone)]
pub struct ExportedFile {
    /// Its manifest line.
    pub line: ManifestLine,
    /// Its bytes (checked against the line's hash).
    pub bytes: Vec<u8>,
}

fn not_export(path: &Path, why: &str) -> Error {
    Error::new(
        ErrorCode::InvalidContent,
        format!(
            "{} is not a Mnemo export ({why}): export it again with `mnemo export`",
            path.display()
        ),
    )
}

/// Read an export: its manifest, then each file it lists, capped at 1 MiB each.
pub fn read_zip(path: &Path) -> Result<(Vec<ExportedFile>, ImportPreview)> {
    let f = File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    let mut zip = zip::ZipArchive::new(BufReader::new(f))
        .map_err(|e| not_export(path, &format!("the zip is damaged: {e}")))?;
    let mut lines = Vec::new();
    {
        if zip.by_name(MANIFEST).is_err() {
            let chats = zip
                .file_names()
                .any(|n| n.is_ok_and(|n| n.ends_with("conversations.json")));
            return Err(if chats {
                Error::new(
                    ErrorCode::InvalidContent,
                    format!(
                        "{} is a ChatGPT or Claude.ai data export: unzip it and import its conversations.json",
                        path.display()
                    ),
                )
            } else {
                not_export(path, "it has no manifest.jsonl")
            });
        }
        let m = zip
            .by_name(MANIFEST)
            .map_err(|_| not_export(path, "it has no manifest.jsonl"))?;
        let mut r = BufReader::new(m.take(256 << 20));
        let mut buf = String::new();
        let mut n = 0;
        loop {
            buf.clear();
            n += 1;
            if r.read_line(&mut buf)
                .map_err(|e| not_export(path, &format!("its manifest cannot be read: {e}")))?
                == 0
            {
                break;
            }
            if buf.trim().is_empty() {
                continue;
            }
            let line: ManifestLine = serde_json::from_str(buf.trim())
                .map_err(|e| not_export(path, &format!("line {n} of its manifest: {e}")))?;
            lines.push(line);
            if lines.len() > MAX_FILES {
                return Err(not_export(
                    path,
                    "its manifest lists more files than any export holds",
                ));
            }
        }
    }
    let mut preview = ImportPreview {
        format: Some(ImportFormat::MnemoExport),
        format_label: ImportFormat::MnemoExport.label().to_owned(),
        ..ImportPreview::default()
    };
    let mut out = Vec::new();
    // A manifest is anyone's words: lines naming one path twice, or one zip entry for several
    // files (1,000 lines on one 1 MiB entry cost 1 GB when each was read), are left out before
    // any entry is read, and what is held stays within a budget.
    let mut paths = std::collections::HashSet::new();
    let mut entries = std::collections::HashSet::new();
    let mut held = 0u64;
    for line in lines {
        preview.items += 1;
        let item = format!("{}/{}", line.workspace, line.path);
        if !paths.insert((line.workspace.clone(), line.path.clone())) {
            preview.skip(
                SkipKind::Duplicate,
                item,
                "the manifest lists this path twice",
            );
            continue;
        }
        if !entries.insert(line.zip_path.clone()) {
            preview.skip(
                SkipKind::Other,
                item,
                "the manifest names the zip entry of another file for it",
            );
            continue;
        }
        let Ok(entry) = zip.by_name(&line.zip_path) else {
            preview.skip(SkipKind::Other, item, "the zip does not hold it");
            continue;
        };
        let mut bytes = Vec::new();
        if entry
            .take(fsutil::MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .is_err()
            || bytes.len() as u64 > fsutil::MAX_FILE_BYTES
            || fsutil::hash(&bytes) != line.hash
        {
            preview.skip(
                SkipKind::Other,
                item,
                "it is damaged in the zip (its bytes do not match the manifest)",
            );
            continue;
        }
        held += bytes.len() as u64;
        if held > MAX_HELD_BYTES {
            return Err(not_export(
                path,
                &format!(
                    "it holds more than {} MiB of memory files: export fewer workspaces at a time",
                    MAX_HELD_BYTES >> 20
                ),
            ));
        }
        out.push(ExportedFile { line, bytes });
    }
    Ok((out, preview))
}

/// The workspaces an export lists with where they lived ([`WORKSPACES`]); empty for an export
/// written before it was kept. Lines that do not read are left out: this only helps a restore
/// find a place, it never decides one (the person confirms each).
pub fn read_workspaces(path: &Path) -> Result<Vec<ExportedWorkspace>> {
    let f = File::open(path).map_err(|e| Error::io(format!("reading {}", path.display()), &e))?;
    let mut zip = zip::ZipArchive::new(BufReader::new(f))
        .map_err(|e| not_export(path, &format!("the zip is damaged: {e}")))?;
    let Ok(entry) = zip.by_name(WORKSPACES) else {
        return Ok(Vec::new());
    };
    let mut out: Vec<ExportedWorkspace> = Vec::new();
    for line in BufReader::new(entry.take(4 << 20)).lines() {
        let Ok(line) = line else { break };
        let Ok(w) = serde_json::from_str::<ExportedWorkspace>(line.trim()) else {
            continue;
        };
        if out.len() >= MAX_WORKSPACES {
            break;
        }
        if !out.iter().any(|o| o.id == w.id) {
            out.push(w);
        }
    }
    Ok(out)
}

/// Plan restoring an export: every file at its own path, byte for byte. `target` is where a
/// file of workspace `w` goes (`None`: skipped, with the reason given). MEMORY.md is not
/// written with them (it is rebuilt from the files); it is kept in `indexes` for a workspace the
/// restore makes. A file already
/// there with the same bytes is a duplicate; with other bytes it is kept and the export's left
/// out, with the reason.
pub fn plan_restore(
    files: Vec<ExportedFile>,
    mut preview: ImportPreview,
    target: impl Fn(&str) -> std::result::Result<String, String>,
    existing: impl Fn(&str) -> Option<Existing>,
) -> ImportPlan {
    let mut plan_files = Vec::new();
    let mut paths = std::collections::HashSet::new();
    let mut cache: std::collections::HashMap<String, Option<Existing>> =
        std::collections::HashMap::new();
    let mut indexes = Vec::new();
    for f in files {
        let item = format!("{}/{}", f.line.workspace, f.line.path);
        if f.line.kind == "index" {
            if f.line.path == crate::memory_md::FILE_NAME {
                indexes.push((f.line.workspace, f.bytes));
            }
            continue;
        }
        // The manifest is read from a file anyone could have written: its paths are checked
        // here, so the preview never promises what the write path would refuse.
        let p = f.line.path.as_str();
        let plain = !p.is_empty()
            && !p.starts_with('/')
            && !p.contains('\\')
            && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
            // The write path refuses these too: the preview never promises what it refuses.
            && !p.chars().any(fsutil::unsafe_char);
        if !plain || doc::doc_kind(p).is_none() || crate::secrets::name_holds_secret(p) {
            preview.skip(
                SkipKind::Other,
                item,
                "its path is not one a memory can have",
            );
            continue;
        }
        // Records belong to Mnemo: a zip is anyone's words, and a record it held
        // would be recalled as what the person said.
        if crate::vault::in_records_folder(p) {
            preview.skip(
                SkipKind::Other,
                item,
                "it is under chats/, which holds the conversation records Mnemo keeps itself: \
                 an import never writes there",
            );
            continue;
        }
        if !paths.insert((f.line.workspace.clone(), p.to_owned())) {
            preview.skip(
                SkipKind::Duplicate,
                item,
                "the manifest lists this path twice",
            );
            continue;
        }
        let ws = match target(&f.line.workspace) {
            Ok(w) => w,
            Err(why) => {
                preview.skip(SkipKind::Other, item, why);
                continue;
            }
        };
        let ex = cache.entry(ws.clone()).or_insert_with(|| existing(&ws));
        if let Some(h) = ex.as_ref().and_then(|e| e.files.get(&f.line.path)) {
            if *h == f.line.hash {
                preview.skip(SkipKind::Duplicate, item, "it is already there, the same");
            } else {
                preview.skip(SkipKind::Other, item, "a different file is at that path here: yours is kept (import into an empty workspace to restore it)");
            }
            continue;
        }
        if crate::secrets::held(&String::from_utf8_lossy(&f.bytes)).is_some() {
            preview.skip(
                SkipKind::Secret,
                item,
                "it holds a secret: Mnemo never stores one",
            );
            continue;
        }
        let memories = match f.line.kind.as_str() {
            "topic" => std::str::from_utf8(&f.bytes).map_or(1, |t| {
                u32::try_from(TopicFile::parse(t).entries().len().max(1)).unwrap_or(1)
            }),
            _ => 1,
        };
        plan_files.push(PlannedFile {
            workspace: Some(ws),
            path: f.line.path.clone(),
            memory_type: f.line.memory_type,
            bytes: f.bytes,
            memories,
        });
    }
    let mut plan = ImportPlan {
        files: plan_files,
        preview,
        indexes,
    };
    plan.finish();
    plan
}
