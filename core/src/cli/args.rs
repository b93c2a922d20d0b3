//! The command line: options and positionals of one command, and tool or prompt arguments
//! given as `key=value` words (typed by the tool's input schema) or as one JSON object.

use super::{Failure, Outcome};
use serde_json::{Map, Value};

/// What an option takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Takes {
    /// A switch: `--json`.
    Nothing,
    /// One value: `--timeout 10` or `--timeout=10`.
    Value,
    /// A value, and the option may repeat: `--header A:1 --header B:2`.
    Values,
}

/// One option of a command.
#[derive(Clone, Copy)]
pub(crate) struct Opt {
    pub(crate) name: &'static str,
    pub(crate) takes: Takes,
}

/// A command's words, parsed.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    /// `(name, value)` in order; switches have an empty value.
    pub(crate) opts: Vec<(&'static str, String)>,
    pub(crate) positionals: Vec<String>,
    /// The words after `--` (a server's command line), when there is a `--`.
    pub(crate) rest: Option<Vec<String>>,
    pub(crate) help: bool,
}

impl Parsed {
    pub(crate) fn flag(&self, name: &str) -> bool {
        self.opts.iter().any(|(n, _)| *n == name)
    }
    pub(crate) fn value(&self, name: &str) -> Option<&str> {
        self.opts.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }
    pub(crate) fn values(&self, name: &str) -> Vec<&str> {
        self.opts.iter().filter(|(n, _)| *n == name).map(|(_, v)| v.as_str()).collect()
    }
    /// A number option (seconds, counts...), at least `min`.
    pub(crate) fn number(&self, name: &str, default: f64, min: f64) -> Outcome<f64> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => match v.parse::<f64>() {
                Ok(n) if n.is_finite() && n >= min => Ok(n),
                _ => Err(Failure::usage(format!("--{name} takes a number of at least {min}, not {v:?}"))),
            },
        }
    }
}

/// Parses `words` against `opts` (`-h`/`--help` are always known). Options may come before,
/// between or after the positionals; `--` ends them.
pub(crate) fn parse(command: &str, words: &[String], opts: &[Opt]) -> Outcome<Parsed> {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        if w == "--" {
            out.rest = Some(words[i..].to_vec());
            break;
        }
        if w == "-h" || w == "--help" {
            out.help = true;
            continue;
        }
        let Some(body) = w.strip_prefix("--") else {
            if w.len() > 1 && w.starts_with('-') && w.parse::<f64>().is_err() {
                return Err(Failure::usage(format!("unknown option {w} of `{command}` (see `{command} --help`)")));
            }
            out.positionals.push(w.clone());
            continue;
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(opt) = opts.iter().find(|o| o.name == name) else {
            let known: Vec<String> = opts.iter().map(|o| format!("--{}", o.name)).collect();
            let hint = if known.is_empty() { String::new() } else { format!("; it takes {}", known.join(", ")) };
            return Err(Failure::usage(format!("unknown option --{name} of `{command}`{hint}")));
        };
        match (opt.takes, inline) {
            (Takes::Nothing, None) => out.opts.push((opt.name, String::new())),
            (Takes::Nothing, Some(_)) => return Err(Failure::usage(format!("--{name} takes no value"))),
            (_, Some(v)) => out.opts.push((opt.name, v)),
            (_, None) => match words.get(i) {
                Some(v) => {
                    out.opts.push((opt.name, v.clone()));
                    i += 1;
                }
                None => return Err(Failure::usage(format!("--{name} needs a value"))),
            },
        }
        if opt.takes != Takes::Values && out.opts.iter().filter(|(n, _)| *n == opt.name).count() > 1 {
            return Err(Failure::usage(format!("--{name} is given twice")));
        }
    }
    Ok(out)
}

/// The arguments of a tool call or a prompt: one JSON object (`'{"a": 1}'`), or `key=value`
/// words. A value is typed by `schema` (the tool's `inputSchema`): a `string` property keeps
/// the text as it is; others (`number`, `integer`, `boolean`, `array`, `object`) parse it as
/// JSON; a property the schema does not type is JSON when it parses, else text.
pub(crate) fn arguments(words: &[String], schema: Option<&Value>) -> Outcome<Map<String, Value>> {
    if let [one] = words {
        if one.trim_start().starts_with('{') {
            return match serde_json::from_str::<Value>(one) {
                Ok(Value::Object(m)) => Ok(m),
                Ok(_) => Err(Failure::usage("the arguments must be a JSON object")),
                Err(e) => Err(Failure::usage(format!("the arguments are not valid JSON: {e}"))),
            };
        }
    }
    let props = schema.and_then(|s| s.get("properties")).and_then(Value::as_object);
    let mut out = Map::new();
    for w in words {
        let Some((key, raw)) = w.split_once('=') else {
            return Err(Failure::usage(format!(
                "{w:?} is not an argument: give key=value words (a=1 b=text), or one JSON object"
            )));
        };
        if key.is_empty() {
            return Err(Failure::usage(format!("{w:?} has no name before the `=`")));
        }
        let ty = props.and_then(|p| p.get(key)).map(schema_types).unwrap_or_default();
        let value = typed(key, raw, &ty)?;
        if out.insert(key.to_string(), value).is_some() {
            return Err(Failure::usage(format!("the argument {key} is given twice")));
        }
    }
    Ok(out)
}

/// The JSON types a property's schema allows (`type`, or those of `anyOf`/`oneOf`).
fn schema_types(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    match schema.get("type") {
        Some(Value::String(t)) => out.push(t.clone()),
        Some(Value::Array(ts)) => out.extend(ts.iter().filter_map(Value::as_str).map(String::from)),
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alts)) = schema.get(key) {
            for alt in alts {
                out.extend(schema_types(alt));
            }
        }
    }
    if out.is_empty()
        && schema.get("enum").is_some_and(|e| e.as_array().is_some_and(|a| a.iter().all(Value::is_string)))
    {
        out.push("string".into());
    }
    out
}

fn typed(key: &str, raw: &str, types: &[String]) -> Outcome<Value> {
    let only_string = !types.is_empty() && types.iter().all(|t| t == "string");
    if only_string {
        return Ok(Value::String(raw.to_string()));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v) => Ok(v),
        // A text where text is allowed (or nothing says what is).
        Err(_) if types.is_empty() || types.iter().any(|t| t == "string") => Ok(Value::String(raw.to_string())),
        Err(_) => Err(Failure::usage(format!("{key}={raw}: {key} takes {}, which {raw:?} is not", types.join(" or ")))),
    }
}

/// Splits a command line as a POSIX shell does its words: blanks separate; '...' keeps
/// everything; "..." keeps everything but `\"`, `\\`, `\$` and `` \` ``; a backslash outside
/// quotes keeps the next character.
pub(crate) fn split_command(line: &str) -> Outcome<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err(Failure::usage(format!("unterminated ' in the command {line:?}"))),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => return Err(Failure::usage(format!("unterminated \" in the command {line:?}"))),
                        },
                        Some(c) => cur.push(c),
                        None => return Err(Failure::usage(format!("unterminated \" in the command {line:?}"))),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    cur.push(c);
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn options_anywhere_and_after_the_double_dash() {
        let opts = [Opt { name: "json", takes: Takes::Nothing }, Opt { name: "header", takes: Takes::Values }];
        let p =
            parse("list", &words(&["--json", "x", "--header=A: 1", "--header", "B:2", "--", "uvx", "--json"]), &opts)
                .unwrap();
        assert!(p.flag("json"));
        assert_eq!(p.values("header"), ["A: 1", "B:2"]);
        assert_eq!(p.positionals, ["x"]);
        assert_eq!(p.rest.unwrap(), ["uvx", "--json"]);
        let e = parse("list", &words(&["--jsn"]), &opts).unwrap_err();
        assert_eq!(e.code, super::super::EXIT_USAGE);
        assert!(e.message.contains("unknown option --jsn") && e.message.contains("--json"), "{}", e.message);
        assert!(parse("list", &words(&["--header"]), &opts).unwrap_err().message.contains("needs a value"));
        assert!(parse("list", &words(&["-x"]), &opts).is_err());
        // A negative number is a positional (a value), not an option.
        assert_eq!(parse("call", &words(&["-3"]), &opts).unwrap().positionals, ["-3"]);
    }

    #[test]
    fn key_value_arguments_follow_the_schema() {
        let schema = json!({"properties": {
            "text": {"type": "string"}, "n": {"type": "integer"}, "flag": {"type": "boolean"},
            "tags": {"type": "array"}, "either": {"anyOf": [{"type": "number"}, {"type": "string"}]},
            "colour": {"enum": ["red", "blue"]}
        }});
        let a = arguments(
            &words(&["text=42", "n=7", "flag=true", "tags=[1,2]", "either=x", "colour=red", "free=3", "other=a b"]),
            Some(&schema),
        )
        .unwrap();
        assert_eq!(
            Value::Object(a),
            json!({"text": "42", "n": 7, "flag": true, "tags": [1, 2], "either": "x", "colour": "red", "free": 3, "other": "a b"})
        );
        let e = arguments(&words(&["n=seven"]), Some(&schema)).unwrap_err();
        assert!(e.message.contains("n takes integer"), "{}", e.message);
        assert!(arguments(&words(&["n"]), None).unwrap_err().message.contains("key=value"));
        assert!(arguments(&words(&["a=1", "a=2"]), None).unwrap_err().message.contains("twice"));
        assert_eq!(Value::Object(arguments(&words(&[r#"{"a": [1]}"#]), None).unwrap()), json!({"a": [1]}));
        assert!(arguments(&words(&["{nope"]), None).unwrap_err().message.contains("not valid JSON"));
        // Text with `=` in it keeps everything after the first.
        assert_eq!(Value::Object(arguments(&words(&["q=a=b"]), None).unwrap()), json!({"q": "a=b"}));
    }

    #[test]
    fn command_lines_split_as_a_shell_does() {
        assert_eq!(split_command("uvx some-server --flag").unwrap(), ["uvx", "some-server", "--flag"]);
        assert_eq!(
            split_command(r#"node "my server.mjs" 'a b' c\ d "x\"y" ''"#).unwrap(),
            ["node", "my server.mjs", "a b", "c d", "x\"y", ""]
        );
        assert!(split_command("node 'oops").is_err());
        assert!(split_command("").unwrap().is_empty());
    }
}
