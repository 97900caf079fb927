//! Planning a folder of markdown notes (basic-memory, Obsidian): each note one topic file.

use std::collections::{HashMap, HashSet};

use mnemo_core::MemoryType;

use super::memories::{MAX_NOTE, Note};
use super::plan::{Existing, ImportPlan, PlannedFile, slug};
use super::{ImportFormat, ImportOptions, ImportPreview, SkipKind};
use mnemo_text::format::TopicFile;
use mnemo_text::prose;
use mnemo_text::{files, kind, secrets};

/// Frontmatter fields of a note as plain strings (`title`, `type`, `description`…), from its
/// YAML block as [`note_mapping`] read it (once).
fn note_fields(mapping: Option<&serde_yaml_ng::Mapping>) -> HashMap<String, String> {
    let Some(m) = mapping else {
        return HashMap::new();
    };
    m.iter()
        .filter_map(|(k, v)| {
            let k = k.as_str()?.to_lowercase();
            let v = match v {
                serde_yaml_ng::Value::String(s) => s.clone(),
                serde_yaml_ng::Value::Number(n) => n.to_string(),
                serde_yaml_ng::Value::Bool(b) => b.to_string(),
                _ => return None,
            };
            Some((k, v))
        })
        .collect()
}

fn note_mapping(text: &str) -> Option<serde_yaml_ng::Mapping> {
    let rest = text.trim_start_matches('\u{feff}');
    let after = rest
        .strip_prefix("---\n")
        .or_else(|| rest.strip_prefix("---\r\n"))?;
    let end = after.find("\n---")?;
    match serde_yaml_ng::from_str(&after[..end]) {
        Ok(serde_yaml_ng::Value::Mapping(m)) => Some(m),
        _ => None,
    }
}

/// A frontmatter value as words: a list joined with ", ", Obsidian's `[[links]]` as their text;
/// `None` for nested maps and empty values.
fn value_words(v: &serde_yaml_ng::Value) -> Option<String> {
    use serde_yaml_ng::Value;
    let unlink = |s: &str| s.replace("[[", "").replace("]]", "").trim().to_owned();
    let out = match v {
        Value::String(s) => unlink(s),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Sequence(items) => items
            .iter()
            .filter_map(value_words)
            .collect::<Vec<_>>()
            .join(", "),
        Value::Tagged(t) => return value_words(&t.value),
        _ => return None,
    };
    (!out.is_empty()).then_some(out)
}

/// The note's own `type` when it is not one of Mnemo's (basic-memory's `Person`, Obsidian's
/// `[[Authors]]`): kept as `source_type` when Mnemo's type replaces it.
fn foreign_type(m: &serde_yaml_ng::Mapping) -> Option<String> {
    let v = m.get("type")?;
    let words = value_words(v)?;
    words.parse::<MemoryType>().is_err().then_some(words)
}

/// A note holding only frontmatter (an Obsidian film card: director, cast, year, rating): its
/// fields, one `Key: value` line each, become the body, so what it says is kept and found.
fn fields_as_body(m: &serde_yaml_ng::Mapping) -> Option<String> {
    let lines: Vec<String> = m
        .iter()
        .filter_map(|(k, v)| {
            let k = k.as_str()?;
            if matches!(
                k.to_lowercase().as_str(),
                "title" | "name" | "description" | "summary"
            ) {
                return None;
            }
            Some(format!("{k}: {}", value_words(v)?))
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n") + "\n")
}

/// Every folder given a type (`--folder-type DIR=TYPE`, the app's folder choices) must hold
/// some of the notes, spelt as on disk: a misspelt or differently-cased folder would otherwise
/// be ignored without a word and its notes typed by the default.
///
/// # Errors
/// `invalid_arguments` naming the folders that hold no note and listing the folders that do.
pub fn check_folder_types(notes: &[Note], options: &ImportOptions) -> mnemo_core::Result<()> {
    let dirs: std::collections::BTreeSet<&str> = notes
        .iter()
        .flat_map(|n| {
            n.rel
                .match_indices('/')
                .map(|(i, _)| &n.rel[..i])
                .collect::<Vec<_>>()
        })
        .collect();
    let unknown: Vec<&str> = options
        .folder_types
        .iter()
        .map(|f| f.folder.trim_matches('/'))
        .filter(|f| !dirs.contains(f))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let top: Vec<&str> = dirs.iter().copied().filter(|d| !d.contains('/')).collect();
    let listed = if top.is_empty() {
        "it has no folders, only notes at its top".to_owned()
    } else {
        format!("its folders: {}", top.join(", "))
    };
    Err(mnemo_core::Error::new(
        mnemo_core::ErrorCode::InvalidArguments,
        format!(
            "no note is in the folder {} (names are matched exactly, case included); {listed}",
            unknown
                .iter()
                .map(|u| format!("`{u}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// Plan a folder of notes: each note one topic file under `<folder>/`, its frontmatter mapped
/// (`title`, else the first `# heading` → name; `description` / `summary`, else the first
/// sentence of prose → description; a valid `type`, else the folder's chosen type, else the
/// default) and every other key kept.
#[must_use]
pub fn plan_notes(
    notes: Vec<Note>,
    folder: &str,
    options: &ImportOptions,
    existing: &Existing,
) -> ImportPlan {
    let mut plan = ImportPlan {
        preview: ImportPreview {
            format: Some(ImportFormat::Markdown),
            format_label: ImportFormat::Markdown.label().to_owned(),
            ..ImportPreview::default()
        },
        ..ImportPlan::default()
    };
    let prefix = match slug(folder) {
        s if s.is_empty() => "notes".to_owned(),
        // `chats/` holds Mnemo's conversation records, which no import writes.
        s if mnemo_text::kind::in_records_folder(&s) => format!("{s}-notes"),
        s => s,
    };
    let mut taken: HashSet<String> = existing.files.keys().cloned().collect();
    let mut seen: HashSet<String> = HashSet::new();
    // Each note read, checked and mapped on its own (on every core for a big folder), then
    // placed in order: duplicates and names depend on the notes before it.
    let prepared = mnemo_text::par::map(notes, 256, |note| {
        let p = prepare(&note, options);
        (note.rel, p)
    });
    for (rel, prepared) in prepared {
        plan.preview.items += 1;
        let (bytes, hash, memory_type) = match prepared {
            Prepared::Skip(kind, reason) => {
                plan.preview.skip(kind, rel, reason);
                continue;
            }
            Prepared::Ready {
                bytes,
                hash,
                memory_type,
            } => (bytes, hash, memory_type),
        };
        if existing.hashes.contains(&hash) || !seen.insert(hash) {
            plan.preview
                .skip(SkipKind::Duplicate, rel, "the same note is already there");
            continue;
        }
        let base = format!("{prefix}/{}", rel.trim_end_matches(".md"));
        let mut n = 1;
        let path = loop {
            let p = if n == 1 {
                format!("{base}.md")
            } else {
                format!("{base}-{n}.md")
            };
            if !taken.contains(&p) {
                break p;
            }
            n += 1;
        };
        if kind::doc_kind(&path) != Some(kind::DocKind::Topic) {
            plan.preview.skip(
                SkipKind::Other,
                rel,
                "its name is not one Mnemo can store as a memory",
            );
            continue;
        }
        taken.insert(path.clone());
        plan.files.push(PlannedFile {
            workspace: None,
            path,
            bytes,
            memories: 1,
            memory_type,
        });
    }
    plan.finish();
    plan
}

/// One note as it would be written, or why it is left out.
enum Prepared {
    Skip(SkipKind, String),
    Ready {
        bytes: Vec<u8>,
        hash: String,
        memory_type: Option<MemoryType>,
    },
}

/// Check one note and map its frontmatter (see [`plan_notes`]); no other note is looked at.
fn prepare(note: &Note, options: &ImportOptions) -> Prepared {
    let skip = |kind, reason: &str| Prepared::Skip(kind, reason.to_owned());
    if note.hard_link {
        return skip(
            SkipKind::Other,
            "it is a hard link (another name for a file that may be anywhere on the disk): \
             Mnemo imports only files of their own — copy it to import it",
        );
    }
    if note.bytes.len() as u64 > MAX_NOTE {
        return skip(SkipKind::Other, "it is larger than 1 MiB: split it first");
    }
    let Ok(text) = std::str::from_utf8(&note.bytes) else {
        return skip(SkipKind::Other, "it is not UTF-8 text");
    };
    let held = secrets::held(text);
    if held.is_some() || secrets::name_holds_secret(&note.rel) {
        let what = held.unwrap_or_else(|| "its name".to_owned());
        return skip(
            SkipKind::Secret,
            &format!("it holds a secret ({what}): remove it from the note and import again"),
        );
    }
    let mut file = TopicFile::parse(text);
    // A note its tool wrote reads as a memory where it is (`Fields::foreign`); a copy gets
    // Mnemo's own fields.
    if file.check().is_err() || file.fields.foreign {
        let mapping = note_mapping(text);
        let fields = note_fields(mapping.as_ref());
        let stem = note
            .rel
            .rsplit('/')
            .next()
            .unwrap_or(&note.rel)
            .trim_end_matches(".md")
            .to_owned();
        // Its title, else its first `# heading` (what its author called it), else its file's
        // name.
        let name = fields
            .get("title")
            .or_else(|| fields.get("name"))
            .filter(|n| !n.trim().is_empty())
            .cloned()
            .or_else(|| prose::first_heading(file.body()))
            .unwrap_or(stem);
        if file.body().trim().is_empty()
            && let Some(body) = mapping.as_ref().and_then(fields_as_body)
        {
            file.set_body(&body);
        }
        let body_prose = prose::first_sentence(file.body());
        let description = fields
            .get("description")
            .or_else(|| fields.get("summary"))
            .and_then(|d| prose::meaningful(d))
            .map(str::to_owned)
            .or(body_prose)
            .unwrap_or_else(|| name.clone());
        let t = fields
            .get("type")
            .and_then(|t| t.parse::<MemoryType>().ok())
            .unwrap_or_else(|| options.type_for(&note.rel));
        let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let (name, description) = (flat(&name), flat(&description));
        let foreign = mapping.as_ref().and_then(foreign_type).map(|f| flat(&f));
        let mut pairs = vec![
            ("name", name.as_str()),
            ("description", description.as_str()),
            ("type", t.as_str()),
        ];
        if let Some(f) = &foreign {
            pairs.push(("source_type", f.as_str()));
        }
        let mapped = file.set_fields(&pairs);
        if file.body().trim().is_empty() {
            return skip(SkipKind::Other, "the note is empty");
        }
        if let Err(e) = mapped.and_then(|()| file.check()) {
            return skip(
                SkipKind::Other,
                &format!("its frontmatter could not be mapped: {}", e.message),
            );
        }
    }
    let bytes = file.render().into_bytes();
    if bytes.len() as u64 > files::MAX_FILE_BYTES {
        return skip(
            SkipKind::Other,
            "with its frontmatter it is larger than 1 MiB: split it first",
        );
    }
    Prepared::Ready {
        hash: files::hash(&bytes),
        bytes,
        memory_type: file.memory_type(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_named_by_its_heading_and_described_by_its_first_real_sentence() {
        // Descriptions were `![[Books.base#Author]]`, `-` or a sentence cut at a line's end;
        // a note without a title was named after its file.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/import-facts/notes");
        let notes = super::super::memories::notes(&root).unwrap();
        let plan = plan_notes(
            notes,
            "Vault",
            &ImportOptions::default(),
            &Existing::default(),
        );
        let got: Vec<(String, String, String)> = plan
            .files
            .iter()
            .map(|f| {
                let file = TopicFile::parse(std::str::from_utf8(&f.bytes).unwrap());
                (
                    f.path.clone(),
                    file.fields.name.unwrap_or_default(),
                    file.fields.description.unwrap_or_default(),
                )
            })
            .collect();
        let want = [
            (
                "vault/Books/Left Hand.md",
                "The Left Hand of Darkness",
                "An envoy from a league of worlds spends two winters on a planet whose people \
                 have no fixed sex.",
            ),
            (
                "vault/Garden/compost.md",
                "Compost heap",
                "Turn the heap every two weeks and keep it as damp as a wrung-out sponge; add dry \
                 leaves when it starts to smell.",
            ),
            (
                "vault/Reading list.md",
                "Reading list",
                "The Lathe of Heaven",
            ),
            (
                "vault/inbox.md",
                "inbox",
                "Call the plumber about the dripping kitchen tap before Friday.",
            ),
        ];
        let want: Vec<(String, String, String)> = want
            .iter()
            .map(|(p, n, d)| ((*p).to_owned(), (*n).to_owned(), (*d).to_owned()))
            .collect();
        assert_eq!(got, want);
        // The note's own keys are kept.
        let book = String::from_utf8(plan.files[0].bytes.clone()).unwrap();
        assert!(
            book.contains("author: \"[[Ursula K. Le Guin]]\"") && book.contains("year: 1969"),
            "{book}"
        );
    }

    #[test]
    fn frontmatter_only_notes_keep_their_fields_and_a_foreign_type_is_kept_as_source_type() {
        // An Obsidian film card (frontmatter only) was once dropped as "empty"; a
        // basic-memory `type: Person` and Obsidian's `type: ["[[Authors]]"]` were overwritten.
        let note = |rel: &str, text: &str| Note {
            rel: rel.into(),
            bytes: text.as_bytes().to_vec(),
            hard_link: false,
        };
        let notes = vec![
            note(
                "References/Blade Runner.md",
                "---\ncategories:\n  - \"[[Movies]]\"\ndirector: \"[[Ridley Scott]]\"\ncast:\n  - Harrison Ford\n  - Sean Young\nyear: 1982\nrating: 9\n---\n",
            ),
            note(
                "people/ana.md",
                "---\ntitle: Ana Lima\ntype: Person\npermalink: ana-lima\n---\nData engineer in Lisbon.\n",
            ),
            note(
                "Authors/Ursula.md",
                "---\ntype:\n  - \"[[Authors]]\"\n---\nWrote The Dispossessed.\n",
            ),
        ];
        let plan = plan_notes(
            notes,
            "Vault",
            &ImportOptions::default(),
            &Existing::default(),
        );
        assert_eq!(plan.files.len(), 3, "{:?}", plan.preview);
        let text = |p: &str| {
            String::from_utf8(
                plan.files
                    .iter()
                    .find(|f| f.path == p)
                    .unwrap_or_else(|| panic!("{p}"))
                    .bytes
                    .clone(),
            )
            .unwrap()
        };
        let film = text("vault/References/Blade Runner.md");
        assert!(
            film.contains(
                "director: Ridley Scott\ncast: Harrison Ford, Sean Young\nyear: 1982\nrating: 9\n"
            ) && (film.contains("description: \"categories: Movies\"")
                || film.contains("description: 'categories: Movies'")),
            "{film}"
        );
        let ana = text("vault/people/ana.md");
        assert!(
            ana.contains("type: user")
                && ana.contains("source_type: Person")
                && ana.contains("permalink: ana-lima"),
            "{ana}"
        );
        let ursula = text("vault/Authors/Ursula.md");
        assert!(ursula.contains("source_type: Authors"), "{ursula}");
        assert!(TopicFile::parse(&ursula).check().is_ok(), "{ursula}");
    }

    #[test]
    fn a_folder_type_for_a_folder_holding_no_note_is_refused_with_the_folders_there() {
        let note = |rel: &str| Note {
            rel: rel.into(),
            bytes: b"x\n".to_vec(),
            hard_link: false,
        };
        let notes = vec![
            note("Journal/a.md"),
            note("work/clients/b.md"),
            note("c.md"),
        ];
        let with = |dirs: &[&str]| ImportOptions {
            folder_types: dirs
                .iter()
                .map(|d| super::super::FolderType {
                    folder: (*d).into(),
                    memory_type: MemoryType::User,
                })
                .collect(),
            ..ImportOptions::default()
        };
        assert!(check_folder_types(&notes, &with(&["Journal", "work/clients/", "work"])).is_ok());
        let e = check_folder_types(&notes, &with(&["journal", "Journal", "nope"])).unwrap_err();
        assert_eq!(e.code, mnemo_core::ErrorCode::InvalidArguments);
        assert_eq!(
            e.message,
            "no note is in the folder `journal`, `nope` (names are matched exactly, case \
             included); its folders: Journal, work"
        );
        let flat = [note("a.md")];
        let e = check_folder_types(&flat, &with(&["x"])).unwrap_err();
        assert!(
            e.message
                .ends_with("it has no folders, only notes at its top"),
            "{e}"
        );
    }

    #[test]
    fn notes_keep_their_keys_and_take_a_type() {
        let notes = vec![
            Note {
                rel: "work/a.md".into(),
                bytes: b"---\ntitle: Deploys\ntags: [ops]\n---\nWe deploy on Fridays.\n".to_vec(),
                hard_link: false,
            },
            Note {
                rel: "b.md".into(),
                bytes: b"# Heading\n\nPlain note text.\n".to_vec(),
                hard_link: false,
            },
            Note {
                rel: "c.md".into(),
                bytes: b"token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n".to_vec(),
                hard_link: false,
            },
            Note {
                rel: "d.md".into(),
                bytes: vec![0xff, 0xfe],
                hard_link: false,
            },
        ];
        let opts = ImportOptions {
            folder_types: vec![super::super::FolderType {
                folder: "work".into(),
                memory_type: MemoryType::Project,
            }],
            ..ImportOptions::default()
        };
        let plan = plan_notes(notes, "My Vault", &opts, &Existing::default());
        assert_eq!(plan.files.len(), 2);
        let a = String::from_utf8(plan.files[1].bytes.clone()).unwrap();
        assert_eq!(plan.files[1].path, "my-vault/b.md");
        assert!(
            a.contains("name: Heading")
                && a.contains("description: Plain note text.")
                && a.contains("type: user"),
            "{a}"
        );
        let w = String::from_utf8(plan.files[0].bytes.clone()).unwrap();
        assert!(
            w.contains("tags: [ops]") && w.contains("name: Deploys") && w.contains("type: project"),
            "{w}"
        );
        assert_eq!((plan.preview.secrets, plan.preview.skipped), (1, 1));
    }
}
