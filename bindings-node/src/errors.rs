//! Native errors as the JavaScript errors of `errors.cjs`: `errors.cjs` registers a factory
//! when it loads (`setErrorFactory`), and every error thrown here is built by it, a real
//! `McpError` subclass (or `DefinitionError`, `OptionError`) with its `code`, `rpcCode` and
//! `data`: no caller has to convert anything.

use hypermcp::RpcError;
use napi::bindgen_prelude::{FnArgs, Function, FunctionRef, Unknown};
use napi::Env;

/// `(kind, message, rpcCode, data as JSON text)` -> the error object.
pub type Args = FnArgs<(&'static str, String, Option<i32>, Option<String>)>;

struct Factory(FunctionRef<Args, Unknown<'static>>);

/// Keeps `make` as the builder of this module's errors (for this JS environment).
pub fn register(env: &Env, make: Function<Args, Unknown<'static>>) -> napi::Result<()> {
    env.set_instance_data(Factory(make.create_ref()?), (), |_| {})
}

fn make(env: &Env, kind: &'static str, message: String, code: Option<i32>, data: Option<String>) -> napi::Error {
    let built = env.get_instance_data::<Factory>().ok().flatten().map(|f| -> napi::Result<napi::Error> {
        let value = f.0.borrow_back(env)?.call((kind, message.clone(), code, data).into())?;
        Ok(napi::Error::from(value))
    });
    match built {
        Some(Ok(e)) => e,
        _ => napi::Error::from_reason(message),
    }
}

/// An `RpcError` as the `McpError` subclass its code names.
pub fn rpc_err(env: &Env, e: &RpcError) -> napi::Error {
    let data = e.data.as_ref().map(|d| d.to_string());
    make(env, "rpc", e.message.clone(), Some(e.code), data)
}

/// A refused definition as a `DefinitionError`.
pub fn definition_err(env: &Env, e: impl std::fmt::Display) -> napi::Error {
    make(env, "definition", e.to_string(), None, None)
}

/// A refused option as an `OptionError` (a `TypeError`).
pub fn option_err(env: &Env, e: impl std::fmt::Display) -> napi::Error {
    make(env, "option", e.to_string(), None, None)
}

/// A skill file that failed verification as a `SkillVerificationError` (`data`: its reason
/// and URI).
pub fn skill_err(env: &Env, e: &hypermcp::catalogue::skills::SkillVerificationError) -> napi::Error {
    let data = serde_json::json!({ "reason": e.reason.as_str(), "uri": e.uri }).to_string();
    make(env, "skill", e.message.clone(), None, Some(data))
}

/// Something asked at the wrong time, or of the wrong kind of session.
pub fn state_err(e: impl std::fmt::Display) -> napi::Error {
    napi::Error::from_reason(e.to_string())
}
