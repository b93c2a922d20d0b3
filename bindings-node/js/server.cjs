// @ts-check
'use strict';
// The Server: register tools, resources, prompts and completions, then `await server.run()`.
//
//   const server = new Server({ name: 'weather', version: '1.0.0' });
//   server.tool('echo', 'Echo text back', { text: z.string() }, async ({ text }) => text);
//   await server.run();   // stdio

const nativeModule = require('./native.cjs');
const { compile, promptArguments, isRawShape, isZod, isStandard } = require('./schema.cjs');
const { DefinitionError, InvalidParams } = require('./errors.cjs');
const { isContent } = require('./content.cjs');

/**
 * @typedef {import('./types/server').ToolConfig} ToolConfig
 * @typedef {import('./types/server').ResourceConfig} ResourceConfig
 * @typedef {import('./types/server').PromptConfig} PromptConfig
 * @typedef {import('./types/server').CompletionFilter} CompletionFilter
 * @typedef {import('./types/schema').ObjectSchema} ObjectSchema
 * @typedef {import('./types/server').ToolHandler<any, unknown, any>} ToolHandler
 * @typedef {import('./types/server').ResourceHandler<any, any>} ResourceHandler
 * @typedef {import('./types/server').PromptHandler<any, any>} PromptHandler
 * @typedef {import('./types/server').CompletionHandler<any>} CompletionHandler
 * @typedef {(params: {[key: string]: unknown} | undefined) => unknown} NotificationHandler
 * @typedef {import('./schema.cjs').Parser} Parser
 * @typedef {import('./connection.cjs').ServerConnection} ServerConnection
 */
/**
 * What a connection finds of a tool, a resource, a prompt or a completion handler:
 * @typedef {{name: string, handler: ToolHandler, parse: Parser | null, outputSchema: object | null}} ToolEntry
 * @typedef {{handler: ResourceHandler, mimeType: string | undefined, toResult(readUri: string, result: any): object}} ResourceEntry
 * @typedef {{handler: PromptHandler, toResult(result: any): object}} PromptEntry
 * @typedef {CompletionFilter & {handler: CompletionHandler | undefined}} CompletionEntry
 */

/**
 * @param {{[key: string]: unknown}} o
 * @returns {{[key: string]: unknown}} `o` without its undefined and null values
 */
const clean = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

/**
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
function defineOrThrow(fn) {
  try {
    return fn();
  } catch (err) {
    throw err instanceof DefinitionError ? err : new DefinitionError(err instanceof Error ? err.message : String(err));
  }
}

/**
 * A set of names (`tags`, `names`, `components`) as a sorted list: an array or Set, never one
 * string (which would read as its characters).
 * @param {Iterable<string>} value
 * @param {string} what
 * @returns {string[]}
 */
function nameSet(value, what) {
  if (typeof value === 'string') throw new DefinitionError(`${what}: give an array or Set, not the string ${JSON.stringify(value)}`);
  return [...new Set(value)].sort();
}

/**
 * `tags` of a definition as a sorted list (an array or Set of non-empty strings).
 * @param {Iterable<string> | undefined} tags
 * @param {string} what
 * @returns {string[]}
 */
function tagList(tags, what) {
  if (tags === undefined || tags === null) return [];
  const items = nameSet(tags, `${what}: tags`);
  for (const t of items) {
    if (typeof t !== 'string' || t === '') throw new DefinitionError(`${what}: tags: ${JSON.stringify(t)} is not a tag (a non-empty string)`);
  }
  return items;
}

/**
 * The filter of a visibility rule as JSON, as the engine reads it.
 * @param {import('./types/server').VisibilityFilter | undefined} filter
 * @param {string} what
 * @returns {string}
 */
function visibilityFilter(filter, what) {
  if (!filter || typeof filter !== 'object') throw new DefinitionError(`${what}: give a filter ({ names, tags, components, matchAll })`);
  /** @type {{[key: string]: unknown}} */
  const out = {};
  for (const key of /** @type {const} */ (['names', 'tags', 'components'])) {
    const value = filter[key];
    if (value !== undefined && value !== null) out[key] = nameSet(value, `${what}: ${key}`);
  }
  if (filter.matchAll) out.match_all = true;
  return JSON.stringify(out);
}

/**
 * `scopes` of a definition as a list: a space-separated string or an array of scope names.
 * @param {string | readonly string[] | undefined} scopes
 * @param {string} what
 * @returns {string[]}
 */
function scopeList(scopes, what) {
  if (scopes === undefined || scopes === null) return [];
  const items = typeof scopes === 'string' ? scopes.split(/\s+/).filter(Boolean) : [...scopes];
  for (const s of items) {
    if (typeof s !== 'string' || s === '' || /\s/.test(s)) throw new DefinitionError(`${what}: scopes: ${JSON.stringify(s)} is not a scope name (a non-empty string without spaces)`);
  }
  return items;
}

/**
 * A tool's `task` option as the engine's task mode.
 * @param {string} name
 * @param {boolean | 'optional' | 'required' | 'manual' | undefined} task
 * @returns {string | null}
 */
function taskMode(name, task) {
  if (task === undefined || task === null || task === false) return null;
  if (task === true) return 'optional';
  if (task === 'optional' || task === 'required' || task === 'manual') return task;
  throw new DefinitionError(`tool ${name}: task must be true, "optional", "required" or "manual", not ${JSON.stringify(task)}`);
}

/** @template [L=unknown] the type of the lifespan's context */
class Server {
  /**
   * @param {import('./types/server').ServerOptions<L>} options
   */
  constructor(options) {
    if (!options || typeof options.name !== 'string') throw new TypeError('new Server({ name, version }) needs a name');
    this.name = options.name;
    this.version = options.version ?? '0.1.0';
    this.instructions = options.instructions;
    this._info = clean({ title: options.title, description: options.description, websiteUrl: options.websiteUrl, icons: options.icons });
    this._requestTimeout = options.requestTimeout ?? 60_000;
    this._maxMessageSize = options.maxMessageSize;
    // The options only 2026-07-28 uses (parsed, and checked, by the engine).
    this._modern = clean({
      cache: options.cache,
      requestStateKeys: options.requestStateKeys,
      extensions: options.extensions,
      requestStateTtl: options.requestStateTtl,
      requestStateAudience: options.requestStateAudience,
      maxListeners: options.maxListeners,
      identifyInResults: options.identifyInResults,
    });
    this._lifespan = options.lifespan;
    /** @type {import('./types/server').LifespanResult<L> | null} */
    this._lifespanState = null;
    this._lifespanUsers = 0;
    /**
     * What the lifespan's `context` was, while the server runs.
     * @type {L | undefined}
     */
    this.lifespanContext = undefined;
    this._native = nativeModule;
    this._registry = new nativeModule.Registry();
    if (options.pageSize) this._registry.setPageSize(options.pageSize);
    /** @type {Map<string, ToolEntry>} */
    this._tools = new Map();
    /** @type {Map<string, ResourceEntry>} */
    this._resources = new Map();
    /** @type {Map<string, PromptEntry>} */
    this._prompts = new Map();
    /** @type {Map<string, import('./types/server').MethodHandler<any>>} the methods of the server's own */
    this._methods = new Map();
    /** @type {CompletionEntry[]} */
    this._completions = [];
    /** @type {Map<string, NotificationHandler[]>} */
    this._notificationHandlers = new Map();
    /** @type {Set<ServerConnection>} */
    this._connections = new Set();
    /** @type {string | undefined} the directory of `skills()` */
    this._skillsDir = undefined;
    /** @type {import('../native/index.js').TaskRuntime | null} */
    this._taskRuntime = null;
    /** @type {ServerConnection | null} the connection the handlers of tasks run on */
    this._taskConn = null;
    /** @type {import('./types/server').Middleware[]} */
    this._middleware = [];
    /** @type {import('./middleware.cjs').Chain | null} the middleware's hooks by method (null: the direct path) */
    this._chain = null;
    /** @type {boolean} hide what unexpected handler errors say (FastMCP's mask_error_details) */
    this._maskErrorDetails = options.maskErrorDetails === true;
    /** @type {import('../native/index.js').BuiltinMiddleware | null} the built-ins the engine runs */
    this._builtins = null;
    /** @type {Set<WeakRef<{ native: import('../native/index.js').HttpServer }>>} the HTTP hosts serving this server */
    this._httpHosts = new Set();
    if (options.tasks) this.enableTasks(options.tasks === true ? {} : options.tasks);
    for (const m of options.middleware ?? []) this.use(m);
  }

  /**
   * Adds a middleware at the end of the chain: it runs inside the ones added before, around
   * every tool call, resource read, prompt and completion, on every transport and in both
   * eras. Connections already open see it. A built-in (`RateLimitingMiddleware`,
   * `ResponseCachingMiddleware`, `TimingMiddleware`, `LoggingMiddleware`) runs in the engine,
   * at the edge of the server's code: before the JavaScript links, whatever the order.
   * @param {import('./types/server').Middleware | import('./types/server').BuiltinMiddleware} middleware
   * @returns {this}
   */
  use(middleware) {
    const { Chain, checkLink, BuiltinMiddleware, LoggingMiddleware } = require('./middleware.cjs');
    if (middleware instanceof BuiltinMiddleware) {
      this._addBuiltin(middleware);
      if (middleware instanceof LoggingMiddleware) require('./ops.cjs').ensureLogger(middleware._level, middleware._logger);
    }
    this._middleware.push(checkLink(/** @type {import('./types/server').Middleware} */ (middleware)));
    const chain = new Chain(this._middleware);
    this._chain = chain.byMethod.size ? chain : null;
    // Lists are served from the engine's cached pages unless a hook wants to see them.
    this._registry.setListHooks(chain.lists());
    return this;
  }

  /**
   * The engine runs the built-ins around every session's calls: set once on each session
   * and HTTP server, open or to come.
   * @param {import('./middleware.cjs').BuiltinMiddleware} middleware
   */
  _addBuiltin(middleware) {
    const first = this._builtins === null;
    if (this._builtins === null) this._builtins = new this._native.BuiltinMiddleware(this._registry);
    this._builtins.add(middleware._kind, JSON.stringify(middleware._options));
    if (!first) return;
    for (const conn of this._connections) conn.session.setMiddleware(this._builtins);
    for (const ref of this._httpHosts) {
      const host = ref.deref();
      if (host) host.native.setMiddleware(this._builtins);
      else this._httpHosts.delete(ref);
    }
  }

  /** The middleware, in the order it runs (a copy). */
  get middleware() {
    return [...this._middleware];
  }

  /**
   * Runs tool calls as tasks (the `io.modelcontextprotocol/tasks` extension, 2026-07-28):
   * declares the extension and keeps tasks in memory for `ttl` ms (default 1 hour), at most
   * `maxTasks` (10,000); clients poll every `pollInterval` ms (1 s); a cancelled handler may
   * run on for `cancelGrace` ms. `new Server({ tasks: true })` (or `{ tasks: {...} }`) does
   * the same, and so does the first `{ task: ... }` tool. Call it before serving.
   * @param {import('./types/server').TaskOptions} [options]
   * @returns {this}
   */
  enableTasks(options = {}) {
    if (this._taskRuntime) {
      if (Object.values(options).some((v) => v !== undefined)) {
        throw new DefinitionError('tasks are already enabled: pass their options once, before any task tool');
      }
      return this;
    }
    this._taskRuntime = new nativeModule.TaskRuntime(JSON.stringify(clean({ ...options, maskErrorDetails: this._maskErrorDetails })), this._registry, () => this._taskConn?.pump());
    return this;
  }

  /**
   * The connection the handlers of tasks run on (null without tasks). Tasks belong to the
   * server: they outlive the connection that started them.
   * @returns {ServerConnection | null}
   */
  _taskConnection() {
    if (!this._taskRuntime) return null;
    if (!this._taskConn) {
      const { ServerConnection } = require('./connection.cjs');
      // The task session has no byte stream: the engine answers on the clients' sessions.
      this._taskConn = new ServerConnection(this, this._taskRuntime.session(), null);
    }
    return this._taskConn;
  }

  _nativeConfig() {
    return JSON.stringify(
      clean({
        name: this.name,
        version: this.version,
        instructions: this.instructions,
        tools: this._tools.size > 0,
        resources: this._resources.size > 0,
        prompts: this._prompts.size > 0,
        completions: this._completions.length > 0,
        requestTimeout: this._requestTimeout,
        maxMessageSize: this._maxMessageSize,
        tasks: this._taskRuntime !== null,
        maskErrorDetails: this._maskErrorDetails,
        ...this._info,
        ...this._modern,
      }),
    );
  }

  /** @param {string} kind */
  _changed(kind) {
    for (const conn of this._connections) conn.notifyListChanged(kind);
  }

  /**
   * Registers a tool:
   *   tool(name, config, handler)  with config {description, title, inputSchema, outputSchema, annotations, icons, _meta}
   *   tool(name, description, schema, handler)
   *   tool(name, handler)
   * Schemas are JSON Schema, a zod object or a zod shape. The handler gets `(args, ctx)`.
   * @param {string} name
   * @param {ToolConfig | string | ObjectSchema | ToolHandler} a config, description, schema or handler
   * @param {ObjectSchema | ToolHandler} [b] schema or handler
   * @param {ToolHandler} [c] handler
   * @returns {this}
   */
  tool(name, a, b, c) {
    /** @type {ToolConfig} */
    let config;
    let handler;
    if (typeof a === 'function') {
      config = {};
      handler = a;
    } else if ((isRawShape(a) && !('inputSchema' in a) && !('outputSchema' in a)) || isZod(a) || isStandard(a)) {
      // tool(name, schema, handler): the official SDK's short form without a description.
      // A config whose only entries are zod schemas ({inputSchema: z.object(...)}) is a config.
      config = { inputSchema: /** @type {ObjectSchema} (checked above) */ (a) };
      handler = b;
    } else if (typeof a === 'string') {
      config = { description: a, inputSchema: typeof b === 'function' ? undefined : b };
      handler = typeof b === 'function' ? b : c;
    } else {
      config = /** @type {ToolConfig} anything else is a config */ (a ?? {});
      handler = b;
    }
    if (typeof handler !== 'function') throw new TypeError(`tool ${JSON.stringify(name)}: the handler must be a function`);
    const input = compile(config.inputSchema, `tool ${name}: inputSchema`);
    const output = config.outputSchema === undefined ? null : compile(config.outputSchema, `tool ${name}: outputSchema`);
    let meta = config._meta;
    if (config.ui !== undefined) {
      const link = typeof config.ui === 'string' ? { resourceUri: config.ui } : { ...config.ui };
      if (typeof link.resourceUri !== 'string' || !link.resourceUri.startsWith('ui://')) {
        throw new DefinitionError(`tool ${name}: ui names no ui:// resource (${JSON.stringify(config.ui)})`);
      }
      meta = { ...(meta ?? {}), ui: link };
    }
    const definition = clean({
      name,
      title: config.title,
      description: config.description,
      inputSchema: input.json,
      outputSchema: output?.json,
      annotations: config.annotations,
      icons: config.icons,
      _meta: meta,
    });
    const scopes = scopeList(config.scopes, `tool ${name}`);
    const tags = tagList(config.tags, `tool ${name}`);
    const mode = taskMode(name, config.task);
    if (mode !== null) this.enableTasks();
    this._registry.setTags('tool', name, tags);
    defineOrThrow(() => this._registry.addTool(JSON.stringify(definition)));
    this._registry.setRequiredScopes('tool', name, scopes);
    this._registry.setTaskMode(name, mode);
    this._tools.set(name, { name, handler, parse: input.parse, outputSchema: output?.json ?? null });
    this._changed('tools');
    return this;
  }

  /**
   * Removes a tool; returns whether it existed.
   * @param {string} name
   */
  removeTool(name) {
    this._tools.delete(name);
    this._registry.setTaskMode(name, null);
    const removed = this._registry.removeTool(name);
    if (removed) this._changed('tools');
    return removed;
  }

  /**
   * Registers a resource (a URI) or a resource template (a URI with `{variables}`).
   * The handler gets `(url: URL, variables, ctx)` and returns a string (text), a Buffer
   * (blob), a JSON-able value (JSON text) or `{contents: [...]}`.
   * @param {string} uri
   * @param {ResourceConfig | ResourceHandler} config
   * @param {ResourceHandler} [handler]
   * @returns {this}
   */
  resource(uri, config, handler) {
    if (typeof config === 'function') {
      handler = config;
      config = {};
    }
    if (typeof handler !== 'function') throw new TypeError(`resource ${uri}: the handler must be a function`);
    const isTemplate = uri.includes('{');
    const definition = clean({
      [isTemplate ? 'uriTemplate' : 'uri']: uri,
      name: config.name ?? uri,
      title: config.title,
      description: config.description,
      mimeType: config.mimeType,
      annotations: config.annotations,
      icons: config.icons,
      size: isTemplate ? undefined : config.size,
      _meta: config._meta,
    });
    const scopes = scopeList(config.scopes, `resource ${uri}`);
    this._registry.setTags(isTemplate ? 'template' : 'resource', uri, tagList(config.tags, `resource ${uri}`));
    defineOrThrow(() => (isTemplate ? this._registry.addTemplate(JSON.stringify(definition)) : this._registry.addResource(JSON.stringify(definition))));
    this._registry.setRequiredScopes('resource', uri, scopes);
    const mimeType = config.mimeType;
    this._resources.set(uri, {
      handler,
      mimeType,
      toResult(readUri, result) {
        if (result && typeof result === 'object' && Array.isArray(result.contents)) return result;
        if (typeof result === 'string') return { contents: [{ uri: readUri, mimeType: mimeType ?? 'text/plain', text: result }] };
        if (result instanceof Uint8Array) {
          return { contents: [{ uri: readUri, mimeType: mimeType ?? 'application/octet-stream', blob: Buffer.from(result).toString('base64') }] };
        }
        return { contents: [{ uri: readUri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(result) }] };
      },
    });
    this._changed(isTemplate ? 'resource_templates' : 'resources');
    return this;
  }

  /**
   * Removes a resource or template.
   * @param {string} uri
   */
  removeResource(uri) {
    this._resources.delete(uri);
    const isTemplate = uri.includes('{');
    const removed = isTemplate ? this._registry.removeTemplate(uri) : this._registry.removeResource(uri);
    if (removed) this._changed(isTemplate ? 'resource_templates' : 'resources');
    return removed;
  }

  /**
   * Shows every client the components that match all the criteria given: `names` (names
   * of tools and prompts, URIs of resources, URI templates), `tags` (any of them),
   * `components` ('tool', 'resource', 'template', 'prompt'), or `matchAll`. Later rules
   * override earlier ones where they overlap. `only: true` is the allow-list form: nothing
   * else is visible (earlier enables are dropped). Connected clients whose lists changed
   * get `list_changed`.
   * @param {import('./types/server').VisibilityFilter & { only?: boolean }} filter
   * @returns {this}
   */
  enable(filter) {
    const only = Boolean(filter?.only);
    for (const kind of defineOrThrow(() => this._registry.enable(visibilityFilter(filter, 'enable'), only))) this._changed(kind);
    return this;
  }

  /**
   * Hides from every client the components that match (the criteria of `enable`): they
   * are left out of the lists, and called by name they are "not found", exactly as if they
   * did not exist.
   * @param {import('./types/server').VisibilityFilter} filter
   * @returns {this}
   */
  disable(filter) {
    for (const kind of defineOrThrow(() => this._registry.disable(visibilityFilter(filter, 'disable')))) this._changed(kind);
    return this;
  }

  /**
   * Drops the rules of `enable` and `disable`: every component visible again.
   * @returns {this}
   */
  resetVisibility() {
    for (const kind of this._registry.resetVisibility()) this._changed(kind);
    return this;
  }

  /**
   * Tells subscribed clients that a resource changed.
   * @param {string} uri
   */
  notifyResourceUpdated(uri) {
    // HTTP sessions hear it from the registry (connection or not, whichever host serves
    // them); the connections JS drives itself are told one by one.
    this._registry.notifyResourceUpdated(uri);
    for (const conn of this._connections) conn.notifyResourceUpdated(uri);
  }

  /**
   * Serves the view of an MCP App (`io.modelcontextprotocol/ui`) at `uri` (`ui://...`):
   * `html`, a whole HTML document, as `text/html;profile=mcp-app`, listed and read from memory.
   * `csp`: the origins it needs (`{connectDomains, resourceDomains, frameDomains,
   * baseUriDomains}`; none: the hosts' restrictive default, no network); `permissions`:
   * browser features (`['camera', 'microphone', 'geolocation', 'clipboardWrite']`);
   * `domain`, `prefersBorder` as the spec says. Link it to tools with `{ ui: uri }`. Throws a
   * DefinitionError for another scheme, or origins that are not origins.
   * @param {string} uri
   * @param {import('./types/server').AppConfig} config
   * @returns {this}
   */
  app(uri, config) {
    if (!config || typeof config.html !== 'string') throw new TypeError(`app ${JSON.stringify(uri)}: config.html (the HTML document) is required`);
    const permissions = Array.isArray(config.permissions)
      ? Object.fromEntries(config.permissions.map((p) => [p, {}]))
      : config.permissions;
    const meta = clean({ csp: config.csp, permissions, domain: config.domain, prefersBorder: config.prefersBorder });
    defineOrThrow(() => this._registry.addApp(String(uri), config.html, JSON.stringify(meta), config.name, config.description));
    // A replaced view: its subscribers hear of it (HTTP sessions from the registry).
    this._resourcesChanged([String(uri)]);
    return this;
  }

  /**
   * Serves skills (the `io.modelcontextprotocol/skills` extension): every directory under
   * `source` holding a `SKILL.md`, or `{ files: { 'pdf/SKILL.md': '---\nname: pdf\n...',
   * 'pdf/references/FORMS.md': Buffer } }` made in code, as `skill://` resources. The engine
   * answers `skills/list`, `skills/get`, `resources/directory/read` and the reads of their
   * files from memory, with each file's digest and size, and declares the extension
   * (`{directoryRead: true}`). A skill breaking a rule (its frontmatter `name` must be its
   * directory's name, lowercase letters, digits and hyphens; a `description`; at most 512
   * files and 16 MiB) throws a DefinitionError naming the file. Calling it again (or
   * `reloadSkills()`) replaces what is served; clients are told the resource list changed,
   * and subscribers of a changed file that it was updated.
   * @param {string | URL | {files: {[path: string]: string | Uint8Array}}} source
   * @returns {this}
   */
  skills(source) {
    /** @type {string[]} */
    let changed;
    if (typeof source === 'string' || source instanceof URL) {
      const dir = source instanceof URL ? require('node:url').fileURLToPath(source) : source;
      changed = this._registry.setSkillsDir(dir);
      this._skillsDir = dir;
    } else if (source && typeof source === 'object' && source.files && typeof source.files === 'object') {
      const paths = Object.keys(source.files);
      const contents = paths.map((p) => {
        const v = source.files[p];
        if (typeof v === 'string') return Buffer.from(v, 'utf8');
        if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
        throw new DefinitionError(`skills: the contents of ${JSON.stringify(p)} must be a string or bytes`);
      });
      changed = this._registry.setSkillFiles(paths, contents);
      this._skillsDir = undefined;
    } else {
      throw new TypeError('server.skills(directory) or server.skills({ files: { path: contents } })');
    }
    this._resourcesChanged(changed);
    return this;
  }

  /** Reads the directory given to `skills()` again (after files changed on disk). */
  reloadSkills() {
    if (this._skillsDir === undefined) throw new Error('reloadSkills() needs a directory given to skills() first');
    this._resourcesChanged(this._registry.setSkillsDir(this._skillsDir));
  }

  /** Stops serving skills. */
  clearSkills() {
    this._skillsDir = undefined;
    this._resourcesChanged(this._registry.clearSkills());
  }

  /** @param {string[]} changed */
  _resourcesChanged(changed) {
    // Skills or apps changed. HTTP sessions hear of it from the registry; the connections JS
    // drives itself are told one by one.
    this._changed('resources');
    for (const conn of this._connections) for (const uri of changed) conn.notifyResourceUpdated(uri);
  }

  /**
   * Registers a prompt. `config.arguments` lists `{name, description, required}` (or
   * `config.argsSchema` is a zod shape). The handler gets `(args, ctx)` and returns a
   * string, a message `{role, content}`, an array of those, or `{messages}`.
   * @param {string} name
   * @param {PromptConfig | PromptHandler} config
   * @param {PromptHandler} [handler]
   * @returns {this}
   */
  prompt(name, config, handler) {
    if (typeof config === 'function') {
      handler = config;
      config = {};
    }
    if (typeof handler !== 'function') throw new TypeError(`prompt ${JSON.stringify(name)}: the handler must be a function`);
    const args = promptArguments(config);
    const definition = clean({
      name,
      title: config.title,
      description: config.description,
      arguments: args.length ? args : undefined,
      icons: config.icons,
      _meta: config._meta,
    });
    const scopes = scopeList(config.scopes, `prompt ${name}`);
    this._registry.setTags('prompt', name, tagList(config.tags, `prompt ${name}`));
    defineOrThrow(() => this._registry.addPrompt(JSON.stringify(definition)));
    this._registry.setRequiredScopes('prompt', name, scopes);
    const description = config.description;
    // With a zod argsSchema the arguments are validated and parsed (defaults, transforms)
    // before the handler runs, as for tools; a bad argument is a JSON-RPC InvalidParams.
    const parse = config.argsSchema ? compile(config.argsSchema, `prompt ${name}: argsSchema`).parse : null;
    /** @type {PromptHandler} */
    const call = parse
      ? (argsIn, ctx) => {
          const r = parse(argsIn ?? {});
          if (!r.ok) throw new InvalidParams(`Invalid arguments for prompt ${name}: ${r.message}`);
          return handler(r.value, ctx);
        }
      : handler;
    this._prompts.set(name, {
      handler: call,
      toResult(result) {
        if (result && typeof result === 'object' && Array.isArray(result.messages)) return result;
        const items = Array.isArray(result) ? result : [result];
        const messages = items.map((m) => {
          if (typeof m === 'string') return { role: 'user', content: { type: 'text', text: m } };
          if (isContent(m)) return { role: 'user', content: m };
          if (m && typeof m === 'object' && m.role) return { role: m.role, content: typeof m.content === 'string' ? { type: 'text', text: m.content } : m.content };
          throw new TypeError('a prompt returns a string, a message {role, content} or an array of them');
        });
        return clean({ description, messages });
      },
    });
    this._changed('prompts');
    return this;
  }

  /**
   * Removes a prompt.
   * @param {string} name
   */
  removePrompt(name) {
    this._prompts.delete(name);
    const removed = this._registry.removePrompt(name);
    if (removed) this._changed('prompts');
    return removed;
  }

  /**
   * Registers a completion handler `(value, contextArguments, params, ctx) => string[]`:
   * `completion({prompt, argument}, fn)`, `completion({resource, argument}, fn)` or
   * `completion(fn)` for every request.
   * @param {CompletionFilter | CompletionHandler} filter
   * @param {CompletionHandler} [handler]
   * @returns {this}
   */
  completion(filter, handler) {
    if (typeof filter === 'function') {
      handler = filter;
      filter = {};
    }
    this._completions.push({ ...filter, handler });
    return this;
  }

  /** @param {import('./types/protocol').CompleteParams} params */
  _completionFor(params) {
    const ref = /** @type {{type?: string, name?: string, uri?: string}} */ (params.ref || {});
    const arg = params.argument?.name;
    return this._completions.find((c) =>
      (c.prompt === undefined || (ref.type === 'ref/prompt' && ref.name === c.prompt)) &&
      (c.resource === undefined || (ref.type === 'ref/resource' && ref.uri === c.resource)) &&
      (c.argument === undefined || c.argument === arg),
    );
  }

  /**
   * Serves a request method the spec does not define ('acme/search'), in both eras: the
   * handler gets the request's params (without `_meta`, which is `ctx.meta`) and the
   * context, and returns the result, an object (undefined: `{}`). Clients call it with
   * `client.request(method, params)`. Names the spec or an extension owns ('tools/...',
   * 'notifications/progress', 'rpc.'...) throw a DefinitionError. `config.paramsSchema` (JSON
   * Schema, a zod object or shape): what the params must meet, checked by the engine
   * (-32602 naming what is wrong).
   * @param {string} method
   * @param {{ paramsSchema?: import('./types/schema').ObjectSchema } | import('./types/server').MethodHandler<any>} a
   * @param {import('./types/server').MethodHandler<any>} [b]
   * @returns {this}
   */
  method(method, a, b) {
    const [config, handler] = typeof a === 'function' ? [{}, a] : [a ?? {}, b];
    if (typeof handler !== 'function') throw new TypeError(`method ${JSON.stringify(method)}: the handler must be a function`);
    const schema = config.paramsSchema === undefined ? null : compile(config.paramsSchema, `method ${method}: paramsSchema`);
    defineOrThrow(() => this._registry.addMethod(String(method), schema ? JSON.stringify(schema.json) : null));
    this._methods.set(String(method), handler);
    return this;
  }

  /**
   * Stops serving a method of the server's own; returns whether it was served.
   * @param {string} method
   */
  removeMethod(method) {
    this._methods.delete(method);
    return this._registry.removeMethod(method);
  }

  /**
   * Registers a callback for a client notification, the spec's
   * ('notifications/roots/list_changed') or one of the server's own ('notifications/acme/indexed').
   * @param {string} method
   * @param {NotificationHandler} fn
   * @returns {this}
   */
  onNotification(method, fn) {
    if (!this._notificationHandlers.has(method)) this._notificationHandlers.set(method, []);
    /** @type {NotificationHandler[]} (set above) */ (this._notificationHandlers.get(method)).push(fn);
    return this;
  }

  /**
   * @param {string} method
   * @param {{[key: string]: unknown} | undefined} params
   */
  _onNotification(method, params) {
    const entry = this._chain?.hooks('!');
    if (entry === undefined) {
      for (const fn of this._notificationHandlers.get(method) ?? []) {
        Promise.resolve()
          .then(() => fn(params))
          .catch((err) => process.emitWarning(`notification handler for ${method} failed: ${err}`));
      }
      return;
    }
    // Through the middleware's onMessage and onNotification, then the handlers.
    const { MiddlewareContext } = require('./middleware.cjs');
    const handlers = async (/** @type {any} */ c) => {
      for (const fn of this._notificationHandlers.get(c.method) ?? []) await fn(c.message.params);
    };
    const message = { params: params && typeof params === 'object' ? { ...params } : {} };
    Promise.resolve()
      .then(() => entry(new MiddlewareContext(method, message, null, handlers, 'notification')))
      .catch((err) => process.emitWarning(`notification ${method} failed in middleware or a handler: ${err}`));
  }

  async _enter() {
    this._lifespanUsers += 1;
    if (this._lifespan && this._lifespanUsers === 1) {
      this._lifespanState = (await this._lifespan(this)) ?? {};
      this.lifespanContext = this._lifespanState.context;
    }
  }

  async _exit() {
    this._lifespanUsers -= 1;
    if (this._lifespanState && this._lifespanUsers === 0) {
      const state = this._lifespanState;
      this._lifespanState = null;
      this.lifespanContext = undefined;
      if (typeof state.close === 'function') await state.close();
    }
  }

  /**
   * Serves: `await server.run()` serves stdio until stdin closes (in-flight calls answer
   * first); `await server.run({ transport: 'http', port: 8000 })` serves Streamable HTTP at
   * `path` (default `/mcp`, and the legacy HTTP+SSE transport at `/sse`) until SIGINT or
   * SIGTERM, then stops gracefully; `transport: 'sse'` is the same server, announced by its
   * legacy SSE URL. Without a `transport`, the environment chooses (what `hypermcp run`
   * sets): `HYPERMCP_TRANSPORT` (stdio, http), with `HYPERMCP_HOST` and `HYPERMCP_PORT`
   * for what the options leave out.
   * @param {import('./types/server').RunOptions} [options]
   * @returns {Promise<void>}
   */
  async run(options = {}) {
    const g = /** @type {Record<symbol, number>} */ (/** @type {unknown} */ (globalThis));
    g[RUNS] = (g[RUNS] ?? 0) + 1;
    if (options.transport === undefined) options = fromEnv(options);
    const transport = options.transport ?? 'stdio';
    if (transport === 'stdio') {
      const { serveStdio } = require('./stdio.cjs');
      await serveStdio(this, /** @type {import('./types/server').StdioRunOptions} */ (options));
    } else if (transport === 'http' || transport === 'sse') {
      const { runHttp } = require('./http.cjs');
      await runHttp(this, transport, /** @type {import('./types/server').HttpRunOptions} */ (options));
    } else {
      throw new TypeError(`unknown transport ${JSON.stringify(transport)}: one of "stdio", "http", "sse"`);
    }
  }

  /**
   * Starts serving HTTP in the background and resolves with the running server
   * (`url`, `host`, `port`, `sessionCount`, `await stop()`). `port: 0` picks a free port.
   * @param {import('./types/server').ListenOptions} [options]
   */
  startHttp(options = {}) {
    return require('./http.cjs').startHttp(this, options);
  }

  /**
   * A request handler `(req, res, next?) => void` serving this server inside an existing
   * HTTP app: `http.createServer(handler)`, Express `app.all('/mcp', handler)`, Fastify.
   * @param {import('./types/server').HttpOptions} [options]
   */
  httpHandler(options = {}) {
    return require('./http.cjs').httpHandler(this, options);
  }
}

/** How many times a server ran in this process (any copy of the package): the runner of
 * `hypermcp run` starts the file's server only when the file did not. */
const RUNS = Symbol.for('hypermcp.runs');
/** What marks a Server for the runner, whichever copy of the package made it. */
Object.defineProperty(Server.prototype, Symbol.for('hypermcp.server'), { value: true });

/**
 * `options` completed from HYPERMCP_TRANSPORT, HYPERMCP_HOST and HYPERMCP_PORT.
 * @param {import('./types/server').RunOptions} options
 * @returns {import('./types/server').RunOptions}
 */
function fromEnv(options) {
  const transport = process.env.HYPERMCP_TRANSPORT;
  if (!transport || transport === 'stdio') return options;
  if (transport !== 'http' && transport !== 'sse') {
    throw new TypeError(`HYPERMCP_TRANSPORT=${transport}: use stdio, http or sse`);
  }
  /** @type {Record<string, unknown>} */
  const out = { ...options, transport };
  if (out.host === undefined && process.env.HYPERMCP_HOST) out.host = process.env.HYPERMCP_HOST;
  if (out.port === undefined && process.env.HYPERMCP_PORT) {
    const port = Number(process.env.HYPERMCP_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new TypeError(`HYPERMCP_PORT=${process.env.HYPERMCP_PORT} is not a port number`);
    }
    out.port = port;
  }
  return /** @type {import('./types/server').RunOptions} */ (out);
}

module.exports = { Server, visibilityFilter };
