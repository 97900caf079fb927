//! Resources: each memory as `mnemo://{workspace}/{path}` and each workspace's
//! `mnemo://{workspace}/MEMORY.md`. Workspace ids and path segments are percent-encoded
//! (`claude:-home-dev-app` → `claude%3A-home-dev-app`), so every URI parses. The listing is
//! paged one workspace at a time (the cursor is the next workspace's position).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use rmcp::ErrorData as McpError;
use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};

use crate::{MnemoMcp, mnemo_error};

/// The URI scheme.
pub const SCHEME: &str = "mnemo://";
/// The generated index of a workspace.
pub const MEMORY_MD: &str = "MEMORY.md";

/// Kept as they are in a URI component: unreserved characters.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The URI of a workspace's file.
#[must_use]
pub fn uri(workspace: &str, path: &str) -> String {
    let path: Vec<String> = path
        .split('/')
        .map(|seg| utf8_percent_encode(seg, COMPONENT).to_string())
        .collect();
    format!(
        "{SCHEME}{}/{}",
        utf8_percent_encode(workspace, COMPONENT),
        path.join("/")
    )
}

/// (workspace, path) of a `mnemo://` URI.
///
/// # Errors
/// `invalid_arguments` when it is not one.
pub fn parse(uri: &str) -> Result<(String, String), McpError> {
    let bad = || {
        crate::invalid_arguments(format!(
            "`{uri}` is not a Mnemo resource: expected mnemo://{{workspace}}/{{path}}"
        ))
    };
    let rest = uri.strip_prefix(SCHEME).ok_or_else(bad)?;
    let (ws, path) = rest.split_once('/').ok_or_else(bad)?;
    let decode = |s: &str| {
        percent_decode_str(s)
            .decode_utf8()
            .map(std::borrow::Cow::into_owned)
            .map_err(|_| bad())
    };
    let ws = decode(ws)?;
    let path = path
        .split('/')
        .map(decode)
        .collect::<Result<Vec<_>, _>>()?
        .join("/");
    if ws.is_empty() || path.is_empty() {
        return Err(bad());
    }
    Ok((ws, path))
}

/// The resource template clients can fill in.
#[must_use]
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{SCHEME}{{workspace}}/{{+path}}"), "memory")
            .with_description(
                "A memory file of a workspace (path relative to its memory folder), or MEMORY.md, its index.",
            )
            .with_mime_type("text/markdown"),
    ]
}

/// One page of resources: one workspace's MEMORY.md and memories.
///
/// # Errors
/// A bad cursor, or the API's error.
pub fn list(server: &MnemoMcp, cursor: Option<&str>) -> Result<ListResourcesResult, McpError> {
    let api = &server.api;
    let workspaces = api.workspaces().map_err(|e| mnemo_error(&e))?;
    let at: usize = match cursor {
        None => 0,
        Some(c) => c
            .parse()
            .map_err(|_| crate::invalid_arguments(format!("unknown cursor `{c}`")))?,
    };
    let Some(info) = workspaces.get(at) else {
        return Ok(ListResourcesResult::with_all_items(Vec::new()));
    };
    let ws = &info.workspace;
    let mut items = vec![
        Resource::new(uri(&ws.id, MEMORY_MD), format!("{} — MEMORY.md", ws.label))
            .with_description(format!("The index of the memories of {}", ws.label))
            .with_mime_type("text/markdown"),
    ];
    for d in api
        .list(Some(ws.id.clone()), None)
        .map_err(|e| mnemo_error(&e))?
    {
        let mut r = Resource::new(uri(&ws.id, &d.path), d.name.clone())
            .with_title(d.name)
            .with_mime_type("text/markdown");
        if !d.description.is_empty() {
            r = r.with_description(d.description);
        }
        items.push(r);
    }
    let mut page = ListResourcesResult::with_all_items(items);
    if at + 1 < workspaces.len() {
        page.next_cursor = Some((at + 1).to_string());
    }
    Ok(page)
}

/// Read a resource.
///
/// # Errors
/// Not a Mnemo URI, an unknown workspace or file, a path escaping the root.
pub fn read(server: &MnemoMcp, uri_text: &str) -> Result<ReadResourceResult, McpError> {
    let (ws, path) = parse(uri_text)?;
    let api = &server.api;
    let text = if path == MEMORY_MD {
        api.memory_index(ws).map_err(|e| mnemo_error(&e))?
    } else {
        let d = api.get(ws, path).map_err(|e| mnemo_error(&e))?;
        d.content.ok_or_else(|| {
            mnemo_error(&mnemo_core::Error::new(
                mnemo_core::ErrorCode::InvalidContent,
                "this file is not UTF-8 text (or too large): open it in the Mnemo app",
            ))
        })?
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri_text).with_mime_type("text/markdown"),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_with_odd_workspace_ids_and_paths() {
        for (ws, path) in [
            ("personal", "user/editor.md"),
            ("claude:-home-dev-my-app", "feedback/空白 notes.md"),
            ("folder:-tmp-x", "MEMORY.md"),
        ] {
            let u = uri(ws, path);
            assert!(u.starts_with(SCHEME), "{u}");
            assert!(!u[SCHEME.len()..].contains(':'), "{u}");
            assert_eq!(parse(&u).expect("parses"), (ws.to_owned(), path.to_owned()));
        }
    }

    #[test]
    fn other_uris_are_refused_with_a_clear_error() {
        for bad in [
            "file:///etc/passwd",
            "mnemo://personal",
            "mnemo:///x.md",
            "mnemo://p/",
        ] {
            let e = parse(bad).expect_err(bad);
            assert!(e.message.contains("invalid_arguments"), "{}", e.message);
        }
    }
}
