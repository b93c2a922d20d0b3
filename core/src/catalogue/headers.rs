//! Tool parameters mirrored into HTTP headers (`x-mcp-header`, 2026-07-28): which properties
//! of an input schema carry the annotation, and whether each annotation is valid. Servers
//! refuse to register a tool whose annotations are invalid; clients drop such tools from
//! `tools/list` (`basic/transports/streamable-http`, "Custom Headers from Tool Parameters").

use serde_json::Value;

/// The schema keyword.
pub const KEYWORD: &str = "x-mcp-header";

/// One annotated parameter: the header's name part (`Mcp-Param-{header}`) and the chain of
/// `properties` keys that leads to the value in the arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderParam {
    /// The name part of the header.
    pub header: String,
    /// Where the value is in the arguments.
    pub path: Vec<String>,
}

/// An RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// The annotated parameters of `schema`, or why the annotations make the tool invalid.
pub fn header_params(schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    collect(schema, &mut Vec::new(), &mut found)?;
    let reachable = found.len();
    let everywhere = count(schema);
    if everywhere != reachable {
        return Err(format!(
            "{KEYWORD} may only annotate properties reached through `properties` alone (not items, \
             composition keywords, conditionals or $ref)"
        ));
    }
    for (i, p) in found.iter().enumerate() {
        if found[..i].iter().any(|q| q.header.eq_ignore_ascii_case(&p.header)) {
            return Err(format!("{KEYWORD} {:?} is used twice (names are case-insensitive)", p.header));
        }
    }
    Ok(found)
}

fn collect(schema: &Value, path: &mut Vec<String>, found: &mut Vec<HeaderParam>) -> Result<(), String> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return Ok(()) };
    for (name, prop) in props {
        path.push(name.clone());
        if let Some(h) = prop.get(KEYWORD) {
            let Some(header) = h.as_str() else {
                return Err(format!("{KEYWORD} of {} must be a string", path.join(".")));
            };
            if header.is_empty() || !header.chars().all(is_tchar) {
                return Err(format!("{KEYWORD} {header:?} of {} is not an HTTP field-name token", path.join(".")));
            }
            match prop.get("type").and_then(Value::as_str) {
                Some("string" | "integer" | "boolean") => {}
                other => {
                    return Err(format!(
                        "{KEYWORD} {header:?} annotates {} of type {}: only string, integer and boolean \
                         parameters may be mirrored",
                        path.join("."),
                        other.unwrap_or("(none)")
                    ))
                }
            }
            found.push(HeaderParam { header: header.to_string(), path: path.clone() });
        }
        collect(prop, path, found)?;
        path.pop();
    }
    Ok(())
}

/// Every occurrence of the keyword, wherever it is.
fn count(v: &Value) -> usize {
    match v {
        Value::Object(m) => usize::from(m.contains_key(KEYWORD)) + m.values().map(count).sum::<usize>(),
        Value::Array(a) => a.iter().map(count).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_and_invalid_annotations() {
        let ok = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "plain": {"type": "string"}
        }});
        let params = header_params(&ok).expect("valid");
        assert_eq!(params.len(), 2);
        let nested = params.iter().find(|p| p.header == "N").expect("nested");
        assert_eq!(nested.path, vec!["opts".to_string(), "n".to_string()]);
        for bad in [
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}),
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "X"}}}}),
            json!({"properties": {"a": {"anyOf": [{"type": "string", "x-mcp-header": "X"}]}}}),
        ] {
            assert!(header_params(&bad).is_err(), "{bad}");
        }
    }
}
