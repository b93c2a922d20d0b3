//! JSON Schema validation of tool arguments and structured output (drafts 7 and 2020-12,
//! picked by `$schema`; 2020-12 when absent, as MCP 2025-11-25 specifies).

use serde_json::Value;

/// A compiled schema.
pub struct Validator {
    inner: jsonschema::Validator,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Validator")
    }
}

impl Validator {
    /// Compiles a schema; the error says what is wrong with it.
    pub fn compile(schema: &Value) -> Result<Validator, String> {
        jsonschema::validator_for(schema).map(|inner| Validator { inner }).map_err(|e| e.to_string())
    }

    /// Validates an instance; `Err` holds one line per problem (`/path: message`).
    pub fn validate(&self, instance: &Value) -> Result<(), Vec<String>> {
        if self.inner.is_valid(instance) {
            return Ok(());
        }
        Err(self
            .inner
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
