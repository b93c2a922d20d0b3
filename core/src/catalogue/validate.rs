//! JSON Schema validation of tool arguments and structured output (drafts 7 and 2020-12,
//! picked by `$schema`; 2020-12 when absent, as MCP 2025-11-25 specifies).
//!
//! Compiling a schema with `jsonschema` first checks it against its meta-schema, and building
//! the meta-schema validator (once per process) compiles its regular expressions: measured, it
//! was half of the code a stdio server touches before its first answer (~2.5 MB of resident
//! text in each of the Rust, Python and Node servers) and most of its start-up heap. Schemas
//! made only of keywords whose meta-schema constraints [`surely_valid`] checks itself (the
//! shape of almost every tool schema: `type`, `properties`, `required`, `items`, `enum`,
//! bounds, annotations) are therefore compiled on first use; any other schema is compiled at
//! once, so a definition is refused exactly as before.

use serde_json::{Map, Value};
use std::sync::OnceLock;

/// A compiled schema. It does not keep its own copy of the schema: when compilation was
/// deferred, its first use compiles the schema it is given, which is always the one it was
/// made from (the tool definition next to it), so 50 tools cost no second copy of 50 schemas.
pub struct Validator {
    inner: OnceLock<Result<jsonschema::Validator, String>>,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Validator")
    }
}

fn build(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

impl Validator {
    /// Compiles a schema (or, when [`surely_valid`] proves it compiles, defers that to its first
    /// use); the error says what is wrong with it.
    pub fn compile(schema: &Value) -> Result<Validator, String> {
        if surely_valid(schema) {
            return Ok(Validator { inner: OnceLock::new() });
        }
        let inner = OnceLock::new();
        let _ = inner.set(Ok(build(schema)?));
        Ok(Validator { inner })
    }

    fn get(&self, schema: &Value) -> Result<&jsonschema::Validator, Vec<String>> {
        let built = self.inner.get_or_init(|| build(schema));
        // Unreachable for a schema `surely_valid` accepted; reported rather than panicking.
        built.as_ref().map_err(|e| vec![format!("invalid schema: {e}")])
    }

    /// Validates an instance against `schema`, the schema this validator was compiled from;
    /// `Err` holds one line per problem (`/path: message`).
    pub fn validate(&self, schema: &Value, instance: &Value) -> Result<(), Vec<String>> {
        let inner = self.get(schema)?;
        if inner.is_valid(instance) {
            return Ok(());
        }
        Err(inner
            .iter_errors(instance)
            .take(10)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("{path}: {e}")
                }
            })
            .collect())
    }
}

const SIMPLE_TYPES: [&str; 7] = ["array", "boolean", "integer", "null", "number", "object", "string"];

/// Whether `schema` is valid under the 2020-12 meta-schema (the dialect used when `$schema` is
/// absent) and compiles, judged conservatively: only the keywords below, each with a value its
/// meta-schema accepts and `jsonschema` compiles (no references, no patterns, no `$id`), and
/// `$schema` only at the root naming 2020-12. Anything else answers `false`.
pub(crate) fn surely_valid(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.get("$schema").is_none_or(|s| s == "https://json-schema.org/draft/2020-12/schema")
                && keywords_valid(map, true, 0)
        }
        _ => false,
    }
}

fn subschema(value: &Value, depth: usize) -> bool {
    match value {
        Value::Bool(_) => true,
        Value::Object(map) => keywords_valid(map, false, depth + 1),
        _ => false,
    }
}

fn unique_strings(items: &[Value], allowed: Option<&[&str]>) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(i, v)| v.as_str().is_some_and(|s| allowed.is_none_or(|a| a.contains(&s))) && !items[..i].contains(v))
}

fn keywords_valid(map: &Map<String, Value>, root: bool, depth: usize) -> bool {
    if depth > 32 {
        return false;
    }
    map.iter().all(|(k, v)| match k.as_str() {
        "$schema" => root,
        "type" => match v {
            Value::String(s) => SIMPLE_TYPES.contains(&s.as_str()),
            Value::Array(a) => !a.is_empty() && unique_strings(a, Some(&SIMPLE_TYPES)),
            _ => false,
        },
        "properties" => v.as_object().is_some_and(|p| p.values().all(|s| subschema(s, depth))),
        "items" | "additionalProperties" | "not" => subschema(v, depth),
        "anyOf" | "oneOf" | "allOf" => {
            v.as_array().is_some_and(|a| !a.is_empty() && a.iter().all(|s| subschema(s, depth)))
        }
        "required" => v.as_array().is_some_and(|a| unique_strings(a, None)),
        "enum" => v.as_array().is_some_and(|a| !a.is_empty()),
        "title" | "description" | "format" | "$comment" => v.is_string(),
        "default" | "const" => true,
        "examples" => v.is_array(),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => v.is_number(),
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => v.is_u64(),
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => v.is_boolean(),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deferred_schemas_are_exactly_the_valid_ones_checked() {
        let deferred = [
            json!({"type": "object", "properties": {"text": {"type": "string", "description": "t"}}, "required": ["text"]}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}], "default": null},
                   "b": {"type": "array", "items": {"enum": ["x", "y"]}, "minItems": 1, "uniqueItems": true},
                   "c": {"type": ["string", "null"], "format": "date-time", "maxLength": 10}, "d": true}}),
        ];
        for s in &deferred {
            assert!(surely_valid(s), "{s}");
            assert!(build(s).is_ok(), "{s}");
            let v = Validator::compile(s).unwrap();
            assert!(v.inner.get().is_none(), "{s}: compiled at once");
        }
        let eager = [
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^a"}}}),
            json!({"type": "object", "required": ["a", "a"]}),
            json!({"type": "object", "properties": {"a": {"type": "str"}}}),
            json!({"type": "object", "properties": {"a": {"minLength": -1}}}),
            json!({"type": "object", "properties": {"a": {"enum": []}}}),
            json!({"type": "object", "properties": {"a": {"type": []}}}),
            json!({"type": "object", "properties": {"a": {"anyOf": []}}}),
            json!({"type": "object", "properties": {"a": {"$schema": "https://json-schema.org/draft/2020-12/schema"}}}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
            json!({"type": "object", "x-custom": 1}),
        ];
        for s in &eager {
            assert!(!surely_valid(s), "{s}");
        }
        // Refused at once, as before: the error comes from the meta-schema check.
        assert!(Validator::compile(&json!({"type": "object", "properties": {"a": {"type": "str"}}})).is_err());
        assert!(Validator::compile(&json!({"type": "object", "properties": 5})).is_err());
    }

    #[test]
    fn deferred_validation_reports_like_eager() {
        let s = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        let lazy = Validator::compile(&s).unwrap();
        let eager = Validator { inner: OnceLock::from(build(&s)) };
        for instance in [json!({"text": "hi"}), json!({}), json!({"text": 5}), json!([])] {
            assert_eq!(lazy.validate(&s, &instance), eager.validate(&s, &instance), "{instance}");
        }
        assert!(lazy.inner.get().is_some_and(Result::is_ok), "the first use compiled it");
    }
}
