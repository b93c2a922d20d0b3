// Type tests of hypermcp's declarations (bindings-node/js/index.d.ts), checked by
// `npx tsc -p tsconfig.json`; never run. Each `// @ts-expect-error` line proves a misuse does
// not compile (tsc fails if the line compiles). This file is CommonJS-format under
// `module: nodenext` (the package has no "type": "module"); esm.test-d.mts and cjs.test-d.cts
// check the other two ways in.

import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import {
  AbortError,
  audio,
  Client,
  ConnectionClosed,
  Context,
  DefinitionError,
  embeddedResource,
  errorFromObject,
  image,
  INVALID_PARAMS,
  InvalidParams,
  isContent,
  McpError,
  MethodNotFound,
  promptRef,
  PROTOCOL_VERSIONS,
  RequestTimeout,
  resourceRef,
  ResourceNotFound,
  resourceLink,
  Server,
  StdioTransport,
  text,
  version,
} from 'hypermcp';
import type {
  CallToolResult,
  ContentBlock,
  CreateMessageResult,
  ElicitResult,
  GetPromptResult,
  Implementation,
  InferArgs,
  LoggingLevel,
  ReadResourceResult,
  ResourceVariables,
  Root,
  Tool,
} from 'hypermcp';

// ---- helpers ---------------------------------------------------------------------------------

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when `T` is `true`. */
function assertType<T extends true>(): T | void {}
/** Compiles only when the value's type is exactly `T`. */
function exact<T>() {
  return <V>(value: V & (Equal<V, T> extends true ? unknown : never)): V => value;
}

// ---- server: tools ---------------------------------------------------------------------------

interface AppState {
  lookups: number;
  db: Map<string, string>;
}

const server = new Server({
  name: 'types',
  version: '1.0.0',
  title: 'Types',
  instructions: 'Used by the type tests.',
  pageSize: 50,
  requestTimeout: 30_000,
  icons: [{ src: 'data:image/png;base64,AAAA', mimeType: 'image/png', sizes: ['48x48'] }],
  lifespan: async () => ({
    context: { lookups: 0, db: new Map<string, string>() } as AppState,
    close: async () => {},
  }),
});
// The lifespan context type is inferred from `lifespan`.
exact<AppState | undefined>()(server.lifespanContext);

// A zod 4 raw shape: the handler's arguments are typed from it.
server.tool(
  'forecast',
  {
    description: 'Forecast for a city',
    inputSchema: {
      city: z.string().describe('Which city'),
      days: z.number().int().min(1).max(7).default(3),
      units: z.enum(['celsius', 'fahrenheit']).optional(),
    },
    outputSchema: { city: z.string(), temperatures: z.array(z.number()) },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async (args, ctx) => {
    exact<{ city: string; days: number; units?: 'celsius' | 'fahrenheit' | undefined }>()(args);
    exact<Context<AppState>>()(ctx);
    const upper: string = args.city.toUpperCase();
    const days: number = args.days + 1;
    // @ts-expect-error: city is a string, not a number
    const wrong: number = args.city;
    // @ts-expect-error: no such argument
    args.country;
    // @ts-expect-error: units may be undefined
    args.units.length;
    const state = ctx.server.lifespanContext;
    if (state) state.lookups += 1;
    await ctx.reportProgress(1, 2, 'halfway');
    void upper, days, wrong;
    // The structured result must match outputSchema.
    return { city: args.city, temperatures: [1, 2] };
  },
);

// The output schema types what the handler may return.
server.tool('typed_output', { inputSchema: { n: z.number() }, outputSchema: z.object({ doubled: z.number() }) }, ({ n }) => ({
  doubled: n * 2,
}));
// @ts-expect-error: doubled must be a number
server.tool('typed_output_bad', { inputSchema: { n: z.number() }, outputSchema: z.object({ doubled: z.number() }) }, ({ n }) => ({
  doubled: String(n * 2),
}));
// ...but text, content and full results are always fine.
server.tool('typed_output_text', { outputSchema: z.object({ a: z.string() }) }, () => 'plain text');
server.tool('typed_output_result', { outputSchema: z.object({ a: z.string() }) }, () => ({
  content: [text('hi')],
  structuredContent: { a: 'hi' },
}));

// A zod 4 object schema, in the short form.
server.tool('echo', 'Echo text back', z.object({ text: z.string(), times: z.number().optional() }), ({ text: t, times }) => {
  exact<string>()(t);
  exact<number | undefined>()(times);
  return t.repeat(times ?? 1);
});

// A zod 4 raw shape, in the short form (the ARCHITECTURE.md example).
server.tool('echo2', 'Echo text back', { text: z.string() }, async ({ text: t }) => t);

// @ts-expect-error: the handler uses an argument the schema does not have
server.tool('echo3', 'Echo', { text: z.string() }, ({ missing }) => missing);

// zod 3 (the v3 API): shapes and objects are typed the same way.
server.tool('v3_shape', { inputSchema: { q: z3.string(), limit: z3.number().optional() } }, ({ q, limit }) => {
  exact<string>()(q);
  exact<number | undefined>()(limit);
  return q;
});
server.tool('v3_object', 'zod 3 object', z3.object({ flag: z3.boolean() }), (args) => {
  exact<{ flag: boolean }>()(args);
  // @ts-expect-error: flag is a boolean
  args.flag.toFixed();
  return String(args.flag);
});

// Plain JSON Schema written inline: the arguments are inferred from it too.
server.tool(
  'json',
  {
    description: 'JSON Schema tool',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'Which city' },
        days: { type: 'integer', minimum: 1 },
        mode: { enum: ['fast', 'slow'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['city'],
    },
  },
  async ({ city, days, mode, tags }, ctx) => {
    exact<string>()(city);
    exact<number | undefined>()(days);
    exact<'fast' | 'slow' | undefined>()(mode);
    exact<string[] | undefined>()(tags);
    // @ts-expect-error: days may be undefined
    days.toFixed();
    await ctx.info({ city });
    return `Sunny in ${city}`;
  },
);

// A JSON Schema held in a variable typed loosely: arguments are a plain record.
const looseSchema: { type: string; properties: Record<string, object> } = { type: 'object', properties: {} };
server.tool('loose', { inputSchema: looseSchema }, (args) => {
  exact<{ [key: string]: unknown }>()(args);
  return null;
});

// A tool without arguments, and one returning content.
server.tool('now', () => new Date().toISOString());
server.tool('pixel', 'An image', (_args, ctx) => {
  exact<string | number>()(ctx.requestId);
  return [image(new Uint8Array([1, 2, 3])), 'and some text', resourceLink({ uri: 'weather://paris/now' })];
});
server.tool('audio', 'Audio and an embedded resource', () => ({
  content: [audio('AAAA', 'audio/wav'), embeddedResource({ uri: 'mem://a', text: 'hello', mimeType: 'text/plain' })],
}));

// @ts-expect-error: the handler must be a function
server.tool('bad', { description: 'x' }, 'not a function');
// @ts-expect-error: annotations have known fields
server.tool('bad2', { annotations: { readOnly: true } }, () => 'x');
// @ts-expect-error: embeddedResource needs text or blob
embeddedResource({ uri: 'mem://a' });

server.removeTool('now') satisfies boolean;

// ---- server: resources, prompts, completion --------------------------------------------------

server.resource('weather://cities', { mimeType: 'application/json', description: 'Every city' }, (url, vars) => {
  exact<URL>()(url);
  exact<{ [name: string]: never }>()(vars);
  return ['paris', 'lima'];
});

server.resource('weather://{city}/now', { mimeType: 'application/json' }, async (url, { city }, ctx) => {
  exact<string>()(city);
  await ctx.debug(`read ${url.href}`);
  return { city, temp: 18 };
});

server.resource('file:///{+path}{?rev}', (_url, vars) => {
  exact<{ path: string; rev?: string }>()(vars);
  // @ts-expect-error: no such variable
  vars.city;
  return Buffer.from('bytes');
});

server.resource('mem://full', { name: 'full' }, (url): ReadResourceResult => ({
  contents: [{ uri: url.href, mimeType: 'text/plain', text: 'hi' }],
}));

assertType<Equal<ResourceVariables<'a://{x}/{y}'>, { x: string; y: string }>>();

server.prompt(
  'review',
  {
    description: 'Review code',
    arguments: [
      { name: 'code', required: true, description: 'The code' },
      { name: 'style', description: 'House style' },
    ],
  },
  ({ code, style }) => {
    exact<string>()(code);
    exact<string | undefined>()(style);
    return `Review (${style ?? 'default'}):\n${code}`;
  },
);

server.prompt(
  'packing_list',
  { description: 'A packing list', argsSchema: { city: z.string(), days: z.string().default('3') } },
  async ({ city, days }, ctx): Promise<GetPromptResult> => {
    exact<string>()(city);
    exact<string>()(days);
    await ctx.log('notice', 'prompt used');
    return { messages: [{ role: 'user', content: { type: 'text', text: `${city} for ${days} days` } }] };
  },
);

server.prompt('greeting', () => [
  { role: 'user', content: 'Hello' },
  { role: 'assistant', content: text('Hi! How can I help?') },
]);

// @ts-expect-error: a prompt message's role is user or assistant
server.prompt('bad_prompt', () => ({ role: 'system', content: 'x' }));

server.completion({ prompt: 'packing_list', argument: 'city' }, (value) => ['paris', 'lima'].filter((c) => c.startsWith(value)));
server.completion({ resource: 'weather://{city}/now', argument: 'city' }, async (value, context, params, ctx) => {
  exact<{ [name: string]: string }>()(context);
  exact<string>()(params.argument.name);
  exact<Context<AppState>>()(ctx);
  return { completion: { values: [value], total: 1, hasMore: false } };
});
server.completion(() => []);

server.onNotification('notifications/roots/list_changed', async (params) => {
  exact<{ [key: string]: unknown } | undefined>()(params);
});
server.notifyResourceUpdated('weather://paris/now');
server.removeResource('weather://cities') satisfies boolean;
server.removePrompt('greeting') satisfies boolean;

// ---- Context ---------------------------------------------------------------------------------

async function contextUse(ctx: Context<AppState>) {
  exact<AbortSignal>()(ctx.signal);
  exact<boolean>()(ctx.cancelled);
  exact<string | number>()(ctx.requestId);
  exact<string | number | null>()(ctx.progressToken);
  exact<Implementation | null>()(ctx.clientInfo);
  const sampling: object | undefined = ctx.clientCapabilities.sampling;
  const rev: string | null = ctx.protocolVersion;
  exact<Server<AppState>>()(ctx.server);
  const sent: boolean = await ctx.reportProgress(1, 10, 'step 1');
  await ctx.log('debug', { any: 'json' }, 'my-logger');
  await ctx.info('info');
  await ctx.warning('warning');
  await ctx.error(new Error('x').message);
  // @ts-expect-error: not a logging level
  await ctx.log('verbose', 'x');

  // Elicitation with an inline JSON Schema: the content is typed from it.
  const answer = await ctx.elicit('Where to?', {
    type: 'object',
    properties: { city: { type: 'string', enum: ['paris', 'lima'] }, days: { type: 'integer' } },
    required: ['city'],
  });
  if (answer.action === 'accept' && answer.content) {
    exact<'paris' | 'lima'>()(answer.content.city);
    exact<number | undefined>()(answer.content.days);
  }
  // ...or with a zod shape.
  const confirm = await ctx.elicit('Sure?', { ok: z.boolean() }, { timeout: 5_000 });
  exact<ElicitResult<{ ok: boolean }>>()(confirm);
  const url = await ctx.elicitUrl('Sign in', 'https://example.com/login', 'login-1');
  ctx.elicitationComplete('login-1');
  exact<'accept' | 'decline' | 'cancel'>()(url.action);

  const reply = await ctx.sample('Say hi', { maxTokens: 50, systemPrompt: 'Be brief' }, { signal: ctx.signal });
  exact<CreateMessageResult>()(reply);
  await ctx.sample(['first', { role: 'assistant', content: { type: 'text', text: 'ok' } }]);
  const roots = await ctx.listRoots();
  exact<Root[]>()(roots);
  await ctx.ping({ timeout: 1000 });
  const custom = await ctx.request<{ value: number }>('custom/method', { a: 1 });
  exact<number>()(custom.value);
  void sampling, rev, sent;
}
void contextUse;

function isContext(value: unknown): boolean {
  // Context is a runtime class, so instanceof works; but it cannot be constructed.
  // @ts-expect-error: the constructor is private
  void new Context();
  return value instanceof Context;
}
void isContext;

// ---- errors ----------------------------------------------------------------------------------

const err = new McpError(INVALID_PARAMS, 'unknown city', { known: ['paris'] });
exact<number>()(err.rpcCode);
exact<string>()(err.code);
exact<unknown>()(err.data);
const wire: { code: number; message: string; data?: unknown } = err.toJSON();
const ip = new InvalidParams('bad');
exact<'ERR_MCP_INVALID_PARAMS'>()(ip.code);
const asBase: McpError = new ResourceNotFound('gone', { uri: 'a://b' });
const abort = new AbortError();
exact<'ERR_MCP_ABORTED'>()(abort.code);
const def = new DefinitionError('bad schema');
exact<'ERR_MCP_DEFINITION'>()(def.code);
// @ts-expect-error: a DefinitionError is not an McpError
const notRpc: McpError = def;
const fromObj: McpError = errorFromObject({ code: -32601, message: 'nope' });
void wire, asBase, notRpc, fromObj, MethodNotFound, RequestTimeout, ConnectionClosed;
// @ts-expect-error: McpError needs a numeric code first
new McpError('message');

server.tool('throws', () => {
  throw new McpError(-32000, 'custom', { detail: 1 });
});

// ---- content and constants -------------------------------------------------------------------

const blocks: ContentBlock[] = [text('a'), image('AAAA'), audio(new Uint8Array(4)), resourceLink({ uri: 'a://b', name: 'b' })];
const maybe: unknown = blocks[0];
if (isContent(maybe)) exact<ContentBlock>()(maybe);
exact<string>()(version);
const revs: readonly string[] = PROTOCOL_VERSIONS;
// @ts-expect-error: PROTOCOL_VERSIONS is read-only
PROTOCOL_VERSIONS.push('2099-01-01');
void revs;

assertType<Equal<InferArgs<{ a: z.ZodString }>, { a: string }>>();
assertType<Equal<InferArgs<undefined>, { [key: string]: unknown }>>();

// ---- client ----------------------------------------------------------------------------------

async function clientUse() {
  const levels: LoggingLevel[] = [];
  const client = await Client.stdio('node', ['examples/node/weather_server.mjs'], {
    name: 'type-tests',
    version: '1.0.0',
    timeout: 30_000,
    env: { DEBUG: '1' },
    onStderr: (line) => void line.length,
    onLog: ({ level, data }) => {
      levels.push(level);
      void data;
    },
    onNotification: (method, params) => void [method, params],
    onSampling: async (params, { signal }) => {
      exact<AbortSignal>()(signal);
      const last = params.messages[params.messages.length - 1];
      void last;
      return { role: 'assistant', model: 'scripted', content: { type: 'text', text: 'Pack layers.' } };
    },
    onElicitation: async (params) => {
      if (params.mode === 'url') return { action: 'decline' };
      exact<string>()(params.message);
      return { action: 'accept', content: { city: 'paris', days: 2 } };
    },
    roots: ['/tmp', new URL('file:///home'), { uri: 'file:///srv', name: 'srv' }],
  });
  const info: Implementation | undefined = client.serverInfo;
  const caps = client.serverCapabilities;
  const instructions: string | undefined = client.instructions;
  const rev: string | undefined = client.protocolVersion;
  void info, caps?.tools?.listChanged, instructions, rev;

  await client.ping();
  const { tools } = await client.listTools();
  exact<Tool[]>()(tools);
  const page = await client.listTools({ cursor: 'abc' });
  const next: string | undefined = page.nextCursor;

  const controller = new AbortController();
  const result = await client.callTool<{ city: string; temperatures: number[] }>(
    'forecast',
    { city: 'paris', days: 3 },
    {
      timeout: 10_000,
      signal: controller.signal,
      resetTimeoutOnProgress: true,
      onProgress: ({ progress, total, message }) => void [progress, total, message],
    },
  );
  exact<CallToolResult<{ city: string; temperatures: number[] }>>()(result);
  exact<number[] | undefined>()(result.structuredContent?.temperatures);
  if (result.isError) throw new Error('failed');
  for (const block of result.content) if (block.type === 'text') exact<string>()(block.text);

  const { resources } = await client.listResources();
  const { resourceTemplates } = await client.listResourceTemplates();
  const read = await client.readResource(new URL('weather://paris/now'));
  const first = read.contents[0];
  if (first && 'text' in first) exact<string>()(first.text);
  await client.subscribeResource('weather://paris/now');
  await client.unsubscribeResource('weather://paris/now');
  const { prompts } = await client.listPrompts();
  const prompt = await client.getPrompt('packing_list', { city: 'tokyo', days: 4 });
  exact<GetPromptResult>()(prompt);
  const done = await client.complete({ type: 'ref/prompt', name: 'packing_list' }, 'city', 'pa');
  exact<string[]>()(done.completion.values);
  await client.complete({ type: 'ref/resource', uri: 'weather://{city}/now' }, 'city', 'l', {});
  await client.complete(promptRef('packing_list'), 'city', 'l');
  await client.complete(resourceRef('weather://{city}/now'), 'city', 'l', { other: 'x' });
  // @ts-expect-error: not a reference
  await client.complete({ type: 'ref/tool', name: 'x' }, 'city', 'l');
  await client.setLoggingLevel('warning');
  // @ts-expect-error: not a logging level
  await client.setLoggingLevel('loud');
  await client.sendRootsListChanged();
  await client.setRoots(() => ['/srv']);
  const raw = await client.request<{ tools: Tool[] }>('tools/list', {});
  await client.notify('notifications/custom', { a: 1 });
  void resources, resourceTemplates, prompts, raw, next;
  try {
    await client.callTool('nope');
  } catch (e) {
    if (e instanceof McpError) exact<number>()(e.rpcCode);
  }
  await client.close();

  // In memory, against a Server object.
  const mem = await Client.connect(server, { name: 'mem' });
  exact<Client>()(mem);
  await using scoped = await Client.inMemory(server);
  void scoped.state;
  // An explicit transport.
  const transport = new StdioTransport('node', ['server.mjs'], { cwd: '/srv', onStderr: console.error });
  const viaTransport = await Client.connect(transport, { timeout: null });
  exact<number | undefined>()(transport.pid);
  await viaTransport.close();
  // Without arguments: options second.
  const bare = await Client.stdio('mcp-server', { cwd: '/tmp' });
  await bare.close();
  // @ts-expect-error: timeout is in milliseconds (a number)
  await Client.stdio('x', [], { timeout: '10s' });
}
void clientUse;

void server.run();
