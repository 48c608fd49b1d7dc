//! `--pin FILE`: the tool pins of a server, saved when FILE does not exist and compared
//! when it does. The digests are the core's ([`tool_digest`], docs/DESIGN.md, "Tool
//! pinning"); the session is preloaded with them, so a change arrives as the core's
//! `ToolChanged` event. The file also keeps each tool's pinned members, so a change can
//! be shown field by field.
//!
//! ```json
//! {"picomcp-pins": 1, "tools": {"add": {"digest": "…32 hex…", "definition": {"name": "add", …}}}}
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use picomcp::json::Json;
use picomcp::session::{PINNED_MEMBERS, ToolDigest, ToolPin, tool_digest, tool_name_key};
use serde_json::{Value, json};

/// One saved tool.
#[derive(Clone)]
pub(crate) struct Pinned {
    pub(crate) digest: ToolDigest,
    /// The pinned members, as listed.
    pub(crate) definition: Value,
}

/// The pin file: tool name → pin.
#[derive(Default, Clone)]
pub(crate) struct PinFile {
    pub(crate) tools: BTreeMap<String, Pinned>,
}

impl PinFile {
    /// Reads FILE; `Ok(None)` when it does not exist.
    pub(crate) fn load(path: &Path) -> Result<Option<PinFile>, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let bad = |why: &str| format!("{} is not a pin file: {why}", path.display());
        let v: Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
        if v.get("picomcp-pins") != Some(&json!(1)) {
            return Err(bad("no \"picomcp-pins\": 1"));
        }
        let mut file = PinFile::default();
        for (name, t) in v
            .get("tools")
            .and_then(|t| t.as_object())
            .ok_or_else(|| bad("no `tools` object"))?
        {
            let digest = t
                .get("digest")
                .and_then(|d| d.as_str())
                .and_then(ToolDigest::from_hex)
                .ok_or_else(|| bad(&format!("tool `{name}` has no valid digest")))?;
            let definition = t.get("definition").cloned().unwrap_or(Value::Null);
            file.tools
                .insert(name.clone(), Pinned { digest, definition });
        }
        Ok(Some(file))
    }

    /// Writes the file (pretty-printed, names sorted).
    pub(crate) fn save(&self, path: &Path) -> Result<(), String> {
        let tools: serde_json::Map<String, Value> = self
            .tools
            .iter()
            .map(|(name, p)| {
                (
                    name.clone(),
                    json!({"digest": p.digest.to_string(), "definition": p.definition}),
                )
            })
            .collect();
        let v = json!({"picomcp-pins": 1, "tools": tools});
        let text = serde_json::to_string_pretty(&v).unwrap_or_default() + "\n";
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// The pins the session is preloaded with.
    pub(crate) fn session_pins(&self) -> impl Iterator<Item = ToolPin> + '_ {
        self.tools.iter().map(|(name, p)| ToolPin {
            name: tool_name_key(name),
            digest: p.digest,
        })
    }

    /// The pins of a listed set of tools (raw JSON definitions).
    pub(crate) fn of_tools(raw: &[String]) -> PinFile {
        let mut file = PinFile::default();
        for text in raw {
            let (Ok(tool), Ok(value)) = (Json::new(text), serde_json::from_str::<Value>(text))
            else {
                continue;
            };
            let Some(name) = value.get("name").and_then(|n| n.as_str()) else {
                continue;
            };
            let definition: serde_json::Map<String, Value> = PINNED_MEMBERS
                .iter()
                .filter_map(|k| value.get(*k).map(|v| (k.to_string(), v.clone())))
                .collect();
            file.tools.entry(name.to_string()).or_insert(Pinned {
                digest: tool_digest(tool),
                definition: Value::Object(definition),
            });
        }
        file
    }
}

/// What differs between two pinned definitions, member by member:
/// `description: "old…" → "new…"`.
pub(crate) fn field_diff(old: &Value, new: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in PINNED_MEMBERS {
        let (a, b) = (old.get(key), new.get(key));
        if a == b {
            continue;
        }
        let show = |v: Option<&Value>| match v {
            None => "(absent)".to_string(),
            Some(v) => crate::text::clip(&v.to_string(), 120),
        };
        out.push(format!("{key}: {} → {}", show(a), show(b)));
    }
    if out.is_empty() {
        // Same values, other spelling beyond the canonical form's reach.
        out.push("the canonical form differs".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_load_and_diff() {
        let dir = std::env::temp_dir().join(format!("picomcp-pins-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("pins.json");
        let _ = std::fs::remove_file(&path);
        assert!(PinFile::load(&path).unwrap().is_none());
        let tools = vec![
            r#"{"name":"a","description":"d","inputSchema":{"type":"object"},"_meta":{}}"#
                .to_string(),
        ];
        let file = PinFile::of_tools(&tools);
        file.save(&path).unwrap();
        let back = PinFile::load(&path).unwrap().unwrap();
        let (a, b) = (&file.tools["a"], &back.tools["a"]);
        assert_eq!(a.digest, b.digest);
        assert_eq!(a.definition, b.definition);
        assert!(a.definition.get("_meta").is_none());
        let changed = json!({"name":"a","description":"e","inputSchema":{"type":"object"}});
        assert_eq!(
            field_diff(&a.definition, &changed),
            [r#"description: "d" → "e""#]
        );
        std::fs::write(&path, "{}").unwrap();
        assert!(PinFile::load(&path).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
