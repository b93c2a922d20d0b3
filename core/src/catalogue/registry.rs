//! The registry of what a server offers: tools (with compiled argument and output
//! validators), resources, resource templates and prompts; paginated list answers cached as
//! ready-to-send bytes per revision; change listeners (for `list_changed` and
//! `resources/updated` notifications across every live session).

use crate::catalogue::skills::SkillCatalog;
use crate::catalogue::uri_template::UriTemplate;
use crate::catalogue::validate::Validator;
use crate::catalogue::visibility::{Component, Filter, Rules};
use crate::protocol::{Prompt, ProtocolVersion, Resource, ResourceTemplate, Tool};
use indexmap::IndexMap;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

mod pages;
pub use pages::cursor_offset;

/// Which list a change or a page belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `prompts/list`.
    Prompts,
}

impl ListKind {
    /// Every list.
    pub const ALL: [ListKind; 4] =
        [ListKind::Tools, ListKind::Resources, ListKind::ResourceTemplates, ListKind::Prompts];

    /// The list's name as the language bindings spell it: `tools`, `resources`,
    /// `resource_templates`, `prompts`.
    pub const fn name(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resource_templates",
            ListKind::Prompts => "prompts",
        }
    }

    fn field(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        }
    }
}

impl std::str::FromStr for ListKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ListKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown list {s:?} (one of tools, resources, resource_templates, prompts)"))
    }
}

/// A change that sessions may have to tell their clients about (serializable: replicas of
/// one server pass changes to each other).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RegistryChange {
    /// A list gained or lost entries.
    ListChanged(ListKind),
    /// A resource's contents changed.
    ResourceUpdated(String),
    /// A task changed (tasks extension): its id, owner, and the task as `tasks/get` gives it
    /// (JSON), for the listen streams that follow it.
    TaskChanged {
        /// The task.
        id: String,
        /// Who it belongs to.
        owner: Option<String>,
        /// Its `DetailedTask`, as JSON text.
        detailed: Arc<str>,
    },
}

/// A registered tool and its compiled validators.
#[derive(Debug)]
pub struct ToolEntry {
    /// The definition.
    pub tool: Tool,
    pub(crate) input: Validator,
    pub(crate) output: Option<Validator>,
    headers: Vec<super::headers::HeaderParam>,
}

impl ToolEntry {
    /// Checks arguments against the input schema; `Err` lists what is wrong.
    pub fn validate_arguments(&self, args: &Value) -> Result<(), Vec<String>> {
        self.input.validate(&self.tool.input_schema, args)
    }
    /// Checks structured output against the output schema, if there is one.
    pub fn validate_output(&self, structured: &Value) -> Result<(), Vec<String>> {
        match (&self.output, &self.tool.output_schema) {
            (Some(v), Some(schema)) => v.validate(schema, structured),
            _ => Ok(()),
        }
    }
    /// Whether the tool declares an output schema.
    pub fn has_output_schema(&self) -> bool {
        self.output.is_some()
    }
    /// The parameters its input schema mirrors into `Mcp-Param-*` headers.
    pub fn header_params(&self) -> &[super::headers::HeaderParam] {
        &self.headers
    }
}

/// A registered resource template and its parsed form.
#[derive(Debug)]
pub struct TemplateEntry {
    /// The definition.
    pub template: ResourceTemplate,
    /// The parsed template.
    pub parsed: UriTemplate,
}

/// Who asks, for what it may see: its own visibility rules, and (when the server hides
/// what a token may not use) the scopes its token grants.
#[derive(Clone, Copy, Debug, Default)]
pub struct Caller<'a> {
    /// The caller's own rules (`ctx.enable_components`, ...).
    pub rules: Option<&'a Rules>,
    /// The scopes of its token, when entries needing others are to be hidden from it.
    pub scopes: Option<&'a [String]>,
}

/// Why a definition was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefinitionError(pub String);

impl std::fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DefinitionError {}

/// What required scopes are declared for ([`Registry::set_required_scopes`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScopeTarget {
    /// A tool, by name.
    Tool(String),
    /// A static resource by URI, or a resource template by its template string.
    Resource(String),
    /// A prompt, by name.
    Prompt(String),
}

impl ScopeTarget {
    /// The target of `kind` (`"tool"`, `"resource"` — a URI or a template — or `"prompt"`)
    /// named `key` (how the bindings name one).
    pub fn new(kind: &str, key: impl Into<String>) -> Result<ScopeTarget, String> {
        let key = key.into();
        match kind {
            "tool" => Ok(ScopeTarget::Tool(key)),
            "resource" => Ok(ScopeTarget::Resource(key)),
            "prompt" => Ok(ScopeTarget::Prompt(key)),
            _ => Err(format!("unknown kind {kind:?} of scoped entry (one of tool, resource, prompt)")),
        }
    }
}

type Listener = Arc<dyn Fn(&RegistryChange) + Send + Sync>;
type PageCache = HashMap<(ListKind, ProtocolVersion, usize), Arc<[u8]>>;

#[derive(Default)]
struct Inner {
    tools: IndexMap<String, Arc<ToolEntry>>,
    resources: IndexMap<String, Arc<Resource>>,
    templates: IndexMap<String, Arc<TemplateEntry>>,
    prompts: IndexMap<String, Arc<Prompt>>,
    /// The scopes a token needs to use an entry (the HTTP server's `auth` option enforces
    /// them with 403 `insufficient_scope`).
    scopes: HashMap<ScopeTarget, Arc<[String]>>,
    /// The HTML of app resources (MCP Apps), by `ui://` URI; their listing is in `resources`.
    apps: HashMap<String, Arc<AppEntry>>,
    /// How tools run as tasks (tasks extension), by tool name.
    task_modes: HashMap<String, TaskMode>,
    /// The skills served (`io.modelcontextprotocol/skills`); their `SKILL.md` files follow the
    /// static resources in `resources/list`.
    skills: Option<Arc<SkillCatalog>>,
    /// The tags of components, by kind (in [`Component::ALL`]'s order) and name (URI, URI
    /// template).
    tags: [HashMap<String, Arc<[String]>>; 4],
    /// The server's visibility rules (`enable`, `disable`).
    rules: Rules,
    /// The request methods of the server's own (`server.method("vendor/name", ...)`), with
    /// the JSON Schema their params must meet, if they declared one.
    methods: HashMap<String, Option<Arc<(Value, Validator)>>>,
}

impl Inner {
    fn tags_of(&self, kind: Component, key: &str) -> &[String] {
        self.tags[kind as usize].get(key).map_or(&[], |t| t)
    }

    /// Whether a component is visible: the caller's own rules decide where one matches,
    /// then the server's; visible where none does. With the caller's scopes given
    /// (`hide_unauthorized`), an entry needing scopes it lacks is not.
    fn visible(&self, kind: Component, key: &str, caller: Caller<'_>) -> bool {
        let tags = self.tags_of(kind, key);
        let shown = caller
            .rules
            .and_then(|c| c.verdict(kind, key, tags))
            .or_else(|| self.rules.verdict(kind, key, tags))
            .unwrap_or(true);
        shown && caller.scopes.is_none_or(|granted| self.scopes_allow(kind, key, granted))
    }

    /// Whether `granted` holds every scope an entry requires of its own.
    fn scopes_allow(&self, kind: Component, key: &str, granted: &[String]) -> bool {
        if self.scopes.is_empty() {
            return true;
        }
        let target = match kind {
            Component::Tool => ScopeTarget::Tool(key.to_string()),
            Component::Resource | Component::Template => ScopeTarget::Resource(key.to_string()),
            Component::Prompt => ScopeTarget::Prompt(key.to_string()),
        };
        self.scopes.get(&target).is_none_or(|need| need.iter().all(|s| granted.contains(s)))
    }

    /// Whether each entry of each list is visible, in list order (to tell which lists a
    /// change of rules changed).
    fn view(&self, rules: Option<&Rules>) -> [Vec<bool>; 4] {
        let caller = Caller { rules, scopes: None };
        let skills = self.skills.iter().flat_map(|c| c.skills().map(|s| c.resource(s).uri));
        [
            self.tools.keys().map(|k| self.visible(Component::Tool, k, caller)).collect(),
            self.resources
                .keys()
                .cloned()
                .chain(skills)
                .map(|k| self.visible(Component::Resource, &k, caller))
                .collect(),
            self.templates.keys().map(|k| self.visible(Component::Template, k, caller)).collect(),
            self.prompts.keys().map(|k| self.visible(Component::Prompt, k, caller)).collect(),
        ]
    }
}

/// The shared catalogue of one server. Cheap to share (`Arc<Registry>`) between sessions.
pub struct Registry {
    inner: RwLock<Inner>,
    page_size: std::sync::atomic::AtomicUsize,
    cache: Mutex<PageCache>,
    listeners: Mutex<Vec<(u64, Listener)>>,
    next_listener: std::sync::atomic::AtomicU64,
    /// Whether any entry declares required scopes (spares every request the lookup).
    scoped: std::sync::atomic::AtomicBool,
    /// Whether the server has visibility rules (spares every request the lookup).
    filtered: std::sync::atomic::AtomicBool,
    /// The lists that pass middleware, one bit per [`ListKind`].
    list_hooks: std::sync::atomic::AtomicU8,
}

/// An app's view (MCP Apps): its HTML and what it declares, served from memory.
#[derive(Debug)]
pub struct AppEntry {
    /// The HTML document.
    pub html: String,
    /// `_meta.ui` of the resource and its contents.
    pub meta: crate::protocol::UiResourceMeta,
}

/// How a tool runs as a task when the client declared the tasks extension
/// (`io.modelcontextprotocol/tasks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskMode {
    /// As a task when the client can follow one; synchronously otherwise.
    Optional,
    /// Only as a task: a client that did not declare the extension gets -32021.
    Required,
    /// The handler decides while it runs (`ctx.start_task()`), after any input it needs
    /// first (multi round-trip requests).
    Manual,
}

/// Handle to remove a change listener.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenerId(u64);

/// Default page size of list answers.
pub const DEFAULT_PAGE_SIZE: usize = 100;

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.read().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("Registry")
            .field("tools", &inner.tools.len())
            .field("resources", &inner.resources.len())
            .field("templates", &inner.templates.len())
            .field("prompts", &inner.prompts.len())
            .finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry {
            inner: RwLock::new(Inner::default()),
            page_size: DEFAULT_PAGE_SIZE.into(),
            cache: Mutex::new(HashMap::new()),
            listeners: Mutex::new(Vec::new()),
            next_listener: 1.into(),
            scoped: false.into(),
            filtered: false.into(),
            list_hooks: 0.into(),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets how many entries one list page holds (at least 1).
    pub fn set_page_size(&self, n: usize) {
        self.page_size.store(n.max(1), std::sync::atomic::Ordering::Relaxed);
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Adds or replaces a tool. Fails when its name is empty or a schema does not compile.
    pub fn add_tool(&self, tool: Tool) -> Result<(), DefinitionError> {
        if tool.name.is_empty()
            || tool.name.len() > 128
            || tool.name.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(DefinitionError(format!(
                "invalid tool name {:?}: use 1-128 characters without spaces (letters, digits, '_', '-', '.')",
                tool.name
            )));
        }
        if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(DefinitionError(format!(
                "tool {:?}: inputSchema must be a JSON Schema with \"type\": \"object\"",
                tool.name
            )));
        }
        let input = Validator::compile(&tool.input_schema)
            .map_err(|e| DefinitionError(format!("tool {:?}: invalid inputSchema: {e}", tool.name)))?;
        let output = match &tool.output_schema {
            Some(s) => Some(
                Validator::compile(s)
                    .map_err(|e| DefinitionError(format!("tool {:?}: invalid outputSchema: {e}", tool.name)))?,
            ),
            None => None,
        };
        let headers = super::headers::header_params(&tool.input_schema)
            .map_err(|e| DefinitionError(format!("tool {:?}: {e}", tool.name)))?;
        let name = tool.name.clone();
        self.write().tools.insert(name, Arc::new(ToolEntry { tool, input, output, headers }));
        self.changed(ListKind::Tools);
        Ok(())
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        let removed = {
            let mut w = self.write();
            w.scopes.remove(&ScopeTarget::Tool(name.to_string()));
            w.tags[Component::Tool as usize].remove(name);
            w.tools.shift_remove(name).is_some()
        };
        if removed {
            self.changed(ListKind::Tools);
        }
        removed
    }

    /// Looks a tool up.
    pub fn tool(&self, name: &str) -> Option<Arc<ToolEntry>> {
        self.read().tools.get(name).cloned()
    }

    /// Adds or replaces a static resource.
    pub fn add_resource(&self, resource: Resource) -> Result<(), DefinitionError> {
        if resource.uri.is_empty() {
            return Err(DefinitionError("resource uri must not be empty".into()));
        }
        let uri = resource.uri.clone();
        self.write().resources.insert(uri, Arc::new(resource));
        self.changed(ListKind::Resources);
        Ok(())
    }

    /// Serves the view of an app (MCP Apps) at `uri` (`ui://...`): listed in
    /// `resources/list` as `text/html;profile=mcp-app` with its `_meta.ui`, read from memory.
    /// Fails for another scheme, or declarations that are not origins or known permissions.
    pub fn add_app(
        &self,
        uri: &str,
        html: String,
        meta: crate::protocol::UiResourceMeta,
        name: Option<String>,
        description: Option<String>,
    ) -> Result<(), DefinitionError> {
        use crate::protocol::{check_meta, APP_MIME, APP_SCHEME};
        if !uri.starts_with(APP_SCHEME) || uri.len() == APP_SCHEME.len() {
            return Err(DefinitionError(format!("app {uri:?}: app resources are ui:// URIs")));
        }
        check_meta(&meta).map_err(|e| DefinitionError(format!("app {uri}: {e}")))?;
        let mut r = Resource::new(uri, name.unwrap_or_else(|| uri[APP_SCHEME.len()..].replace('/', "_")));
        r.description = description;
        r.mime_type = Some(APP_MIME.into());
        r.size = Some(html.len() as u64);
        let ui = serde_json::to_value(&meta).unwrap_or_default();
        if ui.as_object().is_some_and(|m| !m.is_empty()) {
            r.meta = Some(serde_json::Map::from_iter([("ui".to_string(), ui)]));
        }
        {
            let mut w = self.write();
            w.resources.insert(uri.to_string(), Arc::new(r));
            w.apps.insert(uri.to_string(), Arc::new(AppEntry { html, meta }));
        }
        self.changed(ListKind::Resources);
        self.notify_resource_updated(uri);
        Ok(())
    }

    /// The app at `uri`, if one is served.
    pub fn app(&self, uri: &str) -> Option<Arc<AppEntry>> {
        let inner = self.read();
        if inner.apps.is_empty() {
            return None;
        }
        inner.apps.get(uri).cloned()
    }

    /// Whether any app is served.
    pub fn has_apps(&self) -> bool {
        !self.read().apps.is_empty()
    }

    /// Removes a static resource (or app).
    pub fn remove_resource(&self, uri: &str) -> bool {
        let removed = {
            let mut w = self.write();
            w.scopes.remove(&ScopeTarget::Resource(uri.to_string()));
            w.tags[Component::Resource as usize].remove(uri);
            w.apps.remove(uri);
            w.resources.shift_remove(uri).is_some()
        };
        if removed {
            self.changed(ListKind::Resources);
        }
        removed
    }

    /// Looks a static resource up.
    pub fn resource(&self, uri: &str) -> Option<Arc<Resource>> {
        self.read().resources.get(uri).cloned()
    }

    /// Adds or replaces a resource template.
    pub fn add_template(&self, template: ResourceTemplate) -> Result<(), DefinitionError> {
        let parsed = UriTemplate::parse(&template.uri_template).map_err(|e| DefinitionError(e.to_string()))?;
        let key = template.uri_template.clone();
        self.write().templates.insert(key, Arc::new(TemplateEntry { template, parsed }));
        self.changed(ListKind::ResourceTemplates);
        Ok(())
    }

    /// Removes a resource template.
    pub fn remove_template(&self, uri_template: &str) -> bool {
        let removed = {
            let mut w = self.write();
            w.scopes.remove(&ScopeTarget::Resource(uri_template.to_string()));
            w.tags[Component::Template as usize].remove(uri_template);
            w.templates.shift_remove(uri_template).is_some()
        };
        if removed {
            self.changed(ListKind::ResourceTemplates);
        }
        removed
    }

    /// Looks a template up by its template string.
    pub fn template(&self, uri_template: &str) -> Option<Arc<TemplateEntry>> {
        self.read().templates.get(uri_template).cloned()
    }

    /// Finds what serves `uri`: a static resource, else the first template that matches
    /// (with its variables).
    pub fn resolve(&self, uri: &str) -> Option<Resolved> {
        let inner = self.read();
        if let Some(r) = inner.resources.get(uri) {
            return Some(Resolved::Static(r.clone()));
        }
        for t in inner.templates.values() {
            if let Some(vars) = t.parsed.match_uri(uri) {
                return Some(Resolved::Template(t.clone(), vars));
            }
        }
        None
    }

    /// Sets how tool `name` runs as a task (`None`: never). At 2025-11-25 the tool lists it
    /// as its `execution.taskSupport`.
    pub fn set_task_mode(&self, name: &str, mode: Option<TaskMode>) {
        let changed = {
            let mut w = self.write();
            match mode {
                Some(m) => w.task_modes.insert(name.to_string(), m) != Some(m),
                None => w.task_modes.remove(name).is_some(),
            }
        };
        if changed {
            self.cache.lock().unwrap_or_else(|e| e.into_inner()).retain(|(k, _, _), _| *k != ListKind::Tools);
        }
    }

    /// How tool `name` runs as a task.
    pub fn task_mode(&self, name: &str) -> Option<TaskMode> {
        let inner = self.read();
        if inner.task_modes.is_empty() {
            return None;
        }
        inner.task_modes.get(name).copied()
    }

    /// Serves `catalog` as the server's skills, replacing those it served (`None`: none).
    /// Sessions are told that the resource list changed, and subscribers of a file whose
    /// contents changed (or that is gone) that it was updated. Returns the URIs of those files.
    pub fn set_skills(&self, catalog: Option<SkillCatalog>) -> Vec<String> {
        let new = catalog.filter(|c| !c.is_empty()).map(Arc::new);
        let old = std::mem::replace(&mut self.write().skills, new.clone());
        let empty = SkillCatalog::default();
        let changed = new.as_deref().unwrap_or(&empty).changed_files(old.as_deref().unwrap_or(&empty));
        if old.is_some() || new.is_some() {
            self.changed(ListKind::Resources);
        }
        for uri in &changed {
            self.notify_resource_updated(uri);
        }
        changed
    }

    /// The skills served, if any.
    pub fn skills(&self) -> Option<Arc<SkillCatalog>> {
        self.read().skills.clone()
    }

    /// The page size of every list.
    pub fn page_size(&self) -> usize {
        self.page_size.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Adds or replaces a prompt.
    pub fn add_prompt(&self, prompt: Prompt) -> Result<(), DefinitionError> {
        if prompt.name.is_empty() {
            return Err(DefinitionError("prompt name must not be empty".into()));
        }
        let name = prompt.name.clone();
        self.write().prompts.insert(name, Arc::new(prompt));
        self.changed(ListKind::Prompts);
        Ok(())
    }

    /// Removes a prompt.
    pub fn remove_prompt(&self, name: &str) -> bool {
        let removed = {
            let mut w = self.write();
            w.scopes.remove(&ScopeTarget::Prompt(name.to_string()));
            w.tags[Component::Prompt as usize].remove(name);
            w.prompts.shift_remove(name).is_some()
        };
        if removed {
            self.changed(ListKind::Prompts);
        }
        removed
    }

    /// Declares the scopes a token needs to call a tool, read a resource (or any resource of
    /// a template) or get a prompt, besides the server's own `required_scopes`; an empty list
    /// removes the requirement. Enforced by the HTTP server's `auth` option (403
    /// `insufficient_scope` naming them); removing the entry removes them too.
    pub fn set_required_scopes(&self, target: ScopeTarget, scopes: Vec<String>) {
        let mut w = self.write();
        if scopes.is_empty() {
            w.scopes.remove(&target);
        } else {
            w.scopes.insert(target, scopes.into());
        }
        self.scoped.store(!w.scopes.is_empty(), std::sync::atomic::Ordering::Release);
    }

    /// Whether any entry declares required scopes.
    pub fn has_required_scopes(&self) -> bool {
        self.scoped.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The scopes the request `method` on `target` (a tool or prompt name, a resource URI)
    /// needs, if its entry declares any. A resource URI is resolved as `resources/read`
    /// does: a static resource, else the first template that matches.
    pub fn required_scopes(&self, method: &str, target: &str) -> Option<Arc<[String]>> {
        if !self.has_required_scopes() {
            return None;
        }
        let inner = self.read();
        let key = match method {
            "tools/call" => ScopeTarget::Tool(target.to_string()),
            "prompts/get" => ScopeTarget::Prompt(target.to_string()),
            "resources/read" | "resources/subscribe" => {
                if inner.resources.contains_key(target) {
                    ScopeTarget::Resource(target.to_string())
                } else {
                    let t = inner.templates.values().find(|t| t.parsed.match_uri(target).is_some())?;
                    ScopeTarget::Resource(t.template.uri_template.clone())
                }
            }
            _ => return None,
        };
        inner.scopes.get(&key).cloned()
    }

    /// Looks a prompt up.
    pub fn prompt(&self, name: &str) -> Option<Arc<Prompt>> {
        self.read().prompts.get(name).cloned()
    }

    /// Serves a request method of the server's own, which the spec does not define (its
    /// handler is the runtime's or the host's). Fails for a name the spec or an extension
    /// owns ([`crate::protocol::methods::check_custom`]).
    ///
    /// `params_schema`: a JSON Schema (`"type": "object"`) the params must meet; a request
    /// whose params do not is answered -32602 naming what is wrong, before any handler runs.
    pub fn add_method(&self, method: &str, params_schema: Option<Value>) -> Result<(), DefinitionError> {
        crate::protocol::methods::check_custom(method).map_err(DefinitionError)?;
        let schema = match params_schema {
            None => None,
            Some(s) => {
                if s.get("type").and_then(Value::as_str) != Some("object") {
                    return Err(DefinitionError(format!(
                        "method {method:?}: its params schema must have \"type\": \"object\""
                    )));
                }
                let v = Validator::compile(&s)
                    .map_err(|e| DefinitionError(format!("method {method:?}: invalid params schema: {e}")))?;
                Some(Arc::new((s, v)))
            }
        };
        self.write().methods.insert(method.to_string(), schema);
        Ok(())
    }

    /// Stops serving a method of the server's own; returns whether it was served.
    pub fn remove_method(&self, method: &str) -> bool {
        self.write().methods.remove(method).is_some()
    }

    /// Whether `method` is one of the server's own.
    pub fn has_method(&self, method: &str) -> bool {
        let inner = self.read();
        !inner.methods.is_empty() && inner.methods.contains_key(method)
    }

    /// Checks the params of a method of the server's own against its schema; `Err` lists
    /// what is wrong.
    pub fn check_method_params(&self, method: &str, params: &Value) -> Result<(), Vec<String>> {
        let schema = self.read().methods.get(method).cloned().flatten();
        match schema {
            Some(s) => s.1.validate(&s.0, params),
            None => Ok(()),
        }
    }

    /// Whether any entry of `kind` is registered.
    pub fn has(&self, kind: ListKind) -> bool {
        let inner = self.read();
        match kind {
            ListKind::Tools => !inner.tools.is_empty(),
            ListKind::Resources => !inner.resources.is_empty() || inner.skills.is_some(),
            ListKind::ResourceTemplates => !inner.templates.is_empty(),
            ListKind::Prompts => !inner.prompts.is_empty(),
        }
    }

    /// Tells every session that a resource's contents changed (subscribed clients get
    /// `notifications/resources/updated`).
    pub fn notify_resource_updated(&self, uri: &str) {
        self.emit(&RegistryChange::ResourceUpdated(uri.to_string()));
    }

    /// Tells every session's listen streams that follow task `id` how it is now.
    pub fn notify_task_changed(&self, id: &str, owner: Option<&str>, detailed: &serde_json::Map<String, Value>) {
        let detailed: Arc<str> = serde_json::to_string(detailed).unwrap_or_default().into();
        self.emit(&RegistryChange::TaskChanged { id: id.to_string(), owner: owner.map(str::to_string), detailed });
    }

    /// Registers a change listener (a driver uses it to wake its session).
    pub fn add_listener(&self, f: impl Fn(&RegistryChange) + Send + Sync + 'static) -> ListenerId {
        let id = self.next_listener.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).push((id, Arc::new(f)));
        ListenerId(id)
    }

    /// Removes a change listener.
    pub fn remove_listener(&self, id: ListenerId) {
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).retain(|(i, _)| *i != id.0);
    }

    fn changed(&self, kind: ListKind) {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).retain(|(k, _, _), _| *k != kind);
        self.emit(&RegistryChange::ListChanged(kind));
    }

    fn emit(&self, change: &RegistryChange) {
        let listeners: Vec<Listener> =
            self.listeners.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(_, l)| l.clone()).collect();
        for l in listeners {
            l(change);
        }
    }

    /// Sets the tags of a component (an empty list: none); they count for the visibility
    /// rules ([`Registry::enable`], [`Registry::disable`]) and go no further (clients do
    /// not see them). Returns the lists whose visible entries changed (their sessions were
    /// told).
    pub fn set_tags(&self, kind: Component, key: &str, tags: Vec<String>) -> Vec<ListKind> {
        self.change_view(|inner| {
            let map = &mut inner.tags[kind as usize];
            if tags.is_empty() {
                map.remove(key);
            } else {
                map.insert(key.to_string(), tags.into());
            }
            Ok(())
        })
        .unwrap_or_default()
    }

    /// Enables, for every caller, the components `filter` matches; `only`: those alone (the
    /// allow-list form, see [`Rules::enable`]). Returns the lists whose visible entries
    /// changed: their sessions are told (`list_changed`), and no one else.
    pub fn enable(&self, filter: Filter, only: bool) -> Result<Vec<ListKind>, DefinitionError> {
        self.change_view(|inner| inner.rules.enable(filter, only))
    }

    /// Disables, for every caller, the components `filter` matches (see [`Registry::enable`]).
    pub fn disable(&self, filter: Filter) -> Result<Vec<ListKind>, DefinitionError> {
        self.change_view(|inner| inner.rules.disable(filter))
    }

    /// Drops the server's visibility rules: every component visible again.
    pub fn reset_visibility(&self) -> Vec<ListKind> {
        self.change_view(|inner| {
            inner.rules.clear();
            Ok(())
        })
        .unwrap_or_default()
    }

    /// Whether `caller` sees what every caller sees (its pages are the cached ones).
    fn plain(&self, caller: Caller<'_>) -> bool {
        caller.rules.is_none_or(Rules::is_empty) && (caller.scopes.is_none() || !self.has_required_scopes())
    }

    fn change_view(&self, f: impl FnOnce(&mut Inner) -> Result<(), String>) -> Result<Vec<ListKind>, DefinitionError> {
        let changed = {
            let mut w = self.write();
            let before = w.view(None);
            f(&mut w).map_err(DefinitionError)?;
            self.filtered.store(!w.rules.is_empty(), std::sync::atomic::Ordering::Release);
            let after = w.view(None);
            ListKind::ALL.into_iter().enumerate().filter(|(i, _)| before[*i] != after[*i]).map(|(_, k)| k).collect()
        };
        for &kind in &changed {
            self.changed(kind);
        }
        Ok(changed)
    }

    /// The lists in which a caller whose own rules go from `old` to `new` sees other entries.
    pub fn view_changes(&self, old: Option<&Rules>, new: Option<&Rules>) -> Vec<ListKind> {
        let inner = self.read();
        let (before, after) = (inner.view(old), inner.view(new));
        ListKind::ALL.into_iter().enumerate().filter(|(i, _)| before[*i] != after[*i]).map(|(_, k)| k).collect()
    }

    /// Whether a caller with its own rules `caller` sees component `kind` named `key` (a
    /// name, URI or URI template): one it does not see is "not found" to it.
    pub fn visible(&self, kind: Component, key: &str, caller: Caller<'_>) -> bool {
        if self.plain(caller) && !self.filtered.load(std::sync::atomic::Ordering::Acquire) {
            return true;
        }
        self.read().visible(kind, key, caller)
    }

    /// What serves `uri` for a caller with its own rules `caller`: a static resource it sees,
    /// else the first template it sees that matches.
    pub fn resolve_for(&self, uri: &str, caller: Caller<'_>) -> Option<Resolved> {
        if self.plain(caller) && !self.filtered.load(std::sync::atomic::Ordering::Acquire) {
            return self.resolve(uri);
        }
        let inner = self.read();
        if let Some(r) = inner.resources.get(uri).filter(|_| inner.visible(Component::Resource, uri, caller)) {
            return Some(Resolved::Static(r.clone()));
        }
        inner
            .templates
            .iter()
            .filter(|(k, _)| inner.visible(Component::Template, k, caller))
            .find_map(|(_, t)| t.parsed.match_uri(uri).map(|vars| Resolved::Template(t.clone(), vars)))
    }
}

/// What serves a URI.
#[derive(Debug, Clone)]
pub enum Resolved {
    /// A static resource.
    Static(Arc<Resource>),
    /// A template, with the variables extracted from the URI.
    Template(Arc<TemplateEntry>, HashMap<String, String>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::encode_cursor;
    use serde_json::json;

    #[test]
    fn pages_and_cursors() {
        let r = Registry::new();
        r.set_page_size(2);
        for i in 0..5 {
            r.add_tool(Tool::new(format!("t{i}"))).unwrap();
        }
        let v = ProtocolVersion::V2025_06_18;
        let mut cursor: Option<String> = None;
        let mut names = Vec::new();
        loop {
            let page: Value =
                serde_json::from_slice(&r.list_page(ListKind::Tools, v, cursor.as_deref()).unwrap()).unwrap();
            for t in page["tools"].as_array().unwrap() {
                names.push(t["name"].as_str().unwrap().to_string());
            }
            match page.get("nextCursor") {
                Some(c) => cursor = Some(c.as_str().unwrap().to_string()),
                None => break,
            }
        }
        assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
        assert_eq!(r.list_page(ListKind::Tools, v, Some("garbage")).unwrap_err().code, -32602);
        assert_eq!(r.list_page(ListKind::Tools, v, Some(&encode_cursor(99))).unwrap_err().code, -32602);
    }

    #[test]
    fn changes_reach_listeners_and_invalidate_cache() {
        let r = Registry::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s2 = seen.clone();
        r.add_listener(move |c| s2.lock().unwrap().push(c.clone()));
        let v = ProtocolVersion::V2025_11_25;
        r.add_tool(Tool::new("a")).unwrap();
        let first = r.list_page(ListKind::Tools, v, None).unwrap();
        r.add_tool(Tool::new("b")).unwrap();
        let second = r.list_page(ListKind::Tools, v, None).unwrap();
        assert_ne!(first, second);
        assert!(r.remove_tool("a"));
        assert!(!r.remove_tool("a"));
        r.notify_resource_updated("x://1");
        assert_eq!(seen.lock().unwrap().len(), 4);
        assert!(r.add_tool(Tool::new("bad name")).is_err());
        assert!(r.add_tool(Tool::new("x").input_schema(json!({"type": "string"}))).is_err());
    }

    #[test]
    fn names_round_trip() {
        for k in ListKind::ALL {
            assert_eq!(k.name().parse::<ListKind>(), Ok(k));
        }
        assert!("widgets".parse::<ListKind>().unwrap_err().contains("resource_templates"));
        for l in crate::protocol::LoggingLevel::ALL {
            assert_eq!(l.as_str().parse::<crate::protocol::LoggingLevel>(), Ok(l));
            assert_eq!(serde_json::to_value(l).unwrap(), l.as_str());
        }
        assert!("loud".parse::<crate::protocol::LoggingLevel>().is_err());
    }

    #[test]
    fn resolves_static_then_templates() {
        let r = Registry::new();
        r.add_resource(Resource::new("x://fixed", "fixed")).unwrap();
        r.add_template(ResourceTemplate::new("x://{id}", "by id")).unwrap();
        assert!(matches!(r.resolve("x://fixed"), Some(Resolved::Static(_))));
        match r.resolve("x://42") {
            Some(Resolved::Template(_, vars)) => assert_eq!(vars["id"], "42"),
            other => panic!("{other:?}"),
        }
        assert!(r.resolve("y://1").is_none());
    }
}
