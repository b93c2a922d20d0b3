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

/// A header value as a client sends it: plain when it is printable ASCII without leading or
/// trailing whitespace, else `=?base64?{Base64 of the UTF-8}?=`
/// (`basic/transports/streamable-http`, "Encoding of Header Values").
pub fn encode_header_value(text: &str) -> String {
    let unsafe_text = text.bytes().any(|b| !(32..=126).contains(&b)) || text.trim() != text;
    if unsafe_text {
        format!("=?base64?{}?=", crate::util::base64_encode(text.as_bytes()))
    } else {
        text.to_string()
    }
}

/// The text of an argument mirrored into a header: strings as they are, booleans as
/// `true`/`false`, numbers in JSON form; `None` for null (the header is left out) and for
/// values no header can carry.
pub fn argument_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(if *b { "true" } else { "false" }.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The headers a client sends with a 2026-07-28 request over HTTP, beside
/// `MCP-Protocol-Version`: `Mcp-Method`, `Mcp-Name` (the tool or prompt name, the resource
/// URI, the task id) and, for `tools/call`, one `Mcp-Param-{Name}` per annotated argument present
/// (`params` of the tool's schema, when the client knows it).
pub fn client_headers(method: &str, params: &Value, tool_params: Option<&[HeaderParam]>) -> Vec<(String, String)> {
    let mut out = vec![("Mcp-Method".to_string(), encode_header_value(method))];
    let name = match method {
        "tools/call" | "prompts/get" => params.get("name"),
        "resources/read" => params.get("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => params.get("taskId"),
        _ => None,
    };
    if let Some(n) = name.and_then(Value::as_str) {
        out.push(("Mcp-Name".to_string(), encode_header_value(n)));
    }
    if let (Some(ps), Some(args)) = (tool_params, params.get("arguments")) {
        for p in ps {
            let value = p.path.iter().try_fold(args, |v, key| v.get(key));
            if let Some(text) = value.and_then(argument_text) {
                out.push((format!("Mcp-Param-{}", p.header), encode_header_value(&text)));
            }
        }
    }
    out
}

#[cfg(test)]
mod client_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_encoded_when_unsafe() {
        assert_eq!(encode_header_value("us-west1"), "us-west1");
        assert_eq!(encode_header_value("us west 1"), "us west 1");
        assert_eq!(encode_header_value(""), "");
        for unsafe_text in [" padded ", "Hello, 世界", "line1\nline2", "\tindented", "x "] {
            let e = encode_header_value(unsafe_text);
            let b64 = e.strip_prefix("=?base64?").and_then(|r| r.strip_suffix("?=")).expect("sentinel");
            assert_eq!(crate::util::base64_decode_strict(b64).unwrap(), unsafe_text.as_bytes());
        }
    }

    #[test]
    fn headers_of_a_call() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "m": {"type": "string", "x-mcp-header": "Method"},
            "query": {"type": "string"}}});
        let ps = header_params(&schema).unwrap();
        let params = json!({"name": "t", "arguments": {"region": "eu", "priority": 42, "verbose": null, "m": "x", "query": "q"}});
        let h = client_headers("tools/call", &params, Some(&ps));
        let get = |n: &str| h.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        assert_eq!(get("Mcp-Method"), Some("tools/call"));
        assert_eq!(get("Mcp-Name"), Some("t"));
        assert_eq!(get("Mcp-Param-Region"), Some("eu"));
        assert_eq!(get("Mcp-Param-Priority"), Some("42"));
        assert_eq!(get("Mcp-Param-Method"), Some("x"));
        assert_eq!(get("Mcp-Param-Verbose"), None);
        assert!(h.iter().all(|(k, _)| k != "Mcp-Param-query"));
        let r = client_headers("resources/read", &json!({"uri": "file:///a%20b"}), None);
        assert_eq!(r[1], ("Mcp-Name".to_string(), "file:///a%20b".to_string()));
    }
}
