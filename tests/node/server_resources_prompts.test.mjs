// The Node Server's resources, resource templates, prompts, completions and pagination,
// driven in memory by the hypermcp Client.
//
// Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Server, InvalidParams, ResourceNotFound, McpError } from 'hypermcp';
import { within, withClient } from './_helpers.mjs';

const promptRef = (name) => ({ type: 'ref/prompt', name });
const resourceRef = (uri) => ({ type: 'ref/resource', uri });

/** Asserts `promise` rejects with an McpError of `cls`, `code` and `rpcCode`; returns the error. */
async function rejectsWith(promise, cls, code, rpcCode) {
  let caught;
  await assert.rejects(within(promise), (err) => {
    caught = err;
    return true;
  });
  assert.ok(caught instanceof cls, `${caught}`);
  assert.equal(caught.code, code);
  assert.equal(caught.rpcCode, rpcCode);
  return caught;
}

// ---- resources ----------------------------------------------------------------------------------


/** How a missing resource fails: -32002 on a legacy session, -32602 at 2026-07-28. */
function notFound(client) {
  return client.modern
    ? [InvalidParams, 'ERR_MCP_INVALID_PARAMS', -32602]
    : [ResourceNotFound, 'ERR_MCP_RESOURCE_NOT_FOUND', -32002];
}

test('static resources: string text, Buffer blob, object JSON, full result', async () => {
  const server = new Server({ name: 'resources' });
  const bytes = Buffer.from([0, 1, 2, 254, 255]);
  const calls = [];
  server.resource('file:///notes.txt', { name: 'notes', title: 'Notes', description: 'Some notes', mimeType: 'text/plain', size: 5 }, (url, vars) => {
    calls.push({ href: url.href, isUrl: url instanceof URL, vars });
    return 'hello';
  });
  server.resource('file:///data.bin', { mimeType: 'image/png' }, async () => bytes);
  server.resource('file:///raw.bin', () => new Uint8Array([9, 8]));
  server.resource('config://app', () => ({ debug: true, level: 3 }));
  server.resource('config://markdown', { mimeType: 'text/markdown' }, () => '# Title');
  server.resource('multi://both', () => ({
    contents: [
      { uri: 'multi://both#1', mimeType: 'text/plain', text: 'one' },
      { uri: 'multi://both#2', blob: 'AAE=' },
    ],
  }));
  await withClient(server, async (client) => {
    const { resources } = await within(client.listResources());
    assert.deepEqual(resources, [
      { uri: 'file:///notes.txt', name: 'notes', title: 'Notes', description: 'Some notes', mimeType: 'text/plain', size: 5 },
      { uri: 'file:///data.bin', name: 'file:///data.bin', mimeType: 'image/png' },
      { uri: 'file:///raw.bin', name: 'file:///raw.bin' },
      { uri: 'config://app', name: 'config://app' },
      { uri: 'config://markdown', name: 'config://markdown', mimeType: 'text/markdown' },
      { uri: 'multi://both', name: 'multi://both' },
    ]);
    const read = (uri) => within(client.readResource(uri));
    assert.deepEqual(await read('file:///notes.txt'), { contents: [{ uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'hello' }] });
    assert.deepEqual(calls, [{ href: 'file:///notes.txt', isUrl: true, vars: {} }]);
    assert.deepEqual(await read('file:///data.bin'), { contents: [{ uri: 'file:///data.bin', mimeType: 'image/png', blob: bytes.toString('base64') }] });
    assert.deepEqual(await read('file:///raw.bin'), { contents: [{ uri: 'file:///raw.bin', mimeType: 'application/octet-stream', blob: 'CQg=' }] });
    const app = await read('config://app');
    assert.equal(app.contents.length, 1);
    assert.equal(app.contents[0].uri, 'config://app');
    assert.equal(app.contents[0].mimeType, 'application/json');
    assert.deepEqual(JSON.parse(app.contents[0].text), { debug: true, level: 3 });
    assert.deepEqual(await read('config://markdown'), { contents: [{ uri: 'config://markdown', mimeType: 'text/markdown', text: '# Title' }] });
    assert.deepEqual(await read('multi://both'), {
      contents: [
        { uri: 'multi://both#1', mimeType: 'text/plain', text: 'one' },
        { uri: 'multi://both#2', blob: 'AAE=' },
      ],
    });
  });
});

test('resource templates: the handler gets a URL and the variables', async () => {
  const server = new Server({ name: 'templates' });
  const calls = [];
  server.resource('users://{id}/posts/{post}', { name: 'posts', description: 'A post of a user', mimeType: 'text/plain' }, (url, vars, ctx) => {
    calls.push({ isUrl: url instanceof URL, href: url.href, protocol: url.protocol, vars, hasCtx: typeof ctx.requestId !== 'undefined' });
    return `post ${vars.post} of user ${vars.id}`;
  });
  server.resource('users://{id}/profile', (url, vars) => {
    if (vars.id === 'ghost') throw new ResourceNotFound(`no user ${vars.id}`, { uri: url.href });
    return { id: vars.id };
  });
  await withClient(server, async (client) => {
    const { resourceTemplates } = await within(client.listResourceTemplates());
    assert.deepEqual(resourceTemplates, [
      { uriTemplate: 'users://{id}/posts/{post}', name: 'posts', description: 'A post of a user', mimeType: 'text/plain' },
      { uriTemplate: 'users://{id}/profile', name: 'users://{id}/profile' },
    ]);
    assert.deepEqual((await within(client.listResources())).resources, [], 'templates are not listed as resources');
    assert.deepEqual(await within(client.readResource('users://42/posts/hello%20world')), {
      contents: [{ uri: 'users://42/posts/hello%20world', mimeType: 'text/plain', text: 'post hello world of user 42' }],
    });
    assert.deepEqual(calls, [
      { isUrl: true, href: 'users://42/posts/hello%20world', protocol: 'users:', vars: { id: '42', post: 'hello world' }, hasCtx: true },
    ]);
    const profile = await within(client.readResource('users://ada/profile'));
    assert.deepEqual(JSON.parse(profile.contents[0].text), { id: 'ada' });
    // A handler can say "not found" itself.
    const err = await rejectsWith(client.readResource('users://ghost/profile'), ...notFound(client));
    assert.equal(err.message, 'no user ghost');
    assert.deepEqual(err.data, { uri: 'users://ghost/profile' });
  });
});

test('reading an unknown resource is ResourceNotFound', async () => {
  const server = new Server({ name: 'not-found' });
  server.resource('file:///exists', () => 'x');
  server.resource('users://{id}', () => 'y');
  await withClient(server, async (client) => {
    for (const uri of ['file:///missing', 'other://thing']) {
      const err = await rejectsWith(client.readResource(uri), ...notFound(client));
      assert.deepEqual(err.data, { uri });
    }
  });
});

test('a resource handler that fails is an InternalError naming the failure', async () => {
  const server = new Server({ name: 'failing-resource' });
  server.resource('file:///sync', () => {
    throw new Error('disk on fire');
  });
  server.resource('file:///async', async () => {
    throw new Error('network down');
  });
  await withClient(server, async (client) => {
    let err = await rejectsWith(client.readResource('file:///sync'), McpError, 'ERR_MCP_INTERNAL', -32603);
    assert.match(err.message, /disk on fire/);
    err = await rejectsWith(client.readResource('file:///async'), McpError, 'ERR_MCP_INTERNAL', -32603);
    assert.match(err.message, /network down/);
    assert.deepEqual(await within(client.ping()), {}, 'still serving');
  });
});

test('subscribe + notifyResourceUpdated reaches onNotification; unsubscribe stops it', async () => {
  const server = new Server({ name: 'subscriptions' });
  server.resource('file:///watched', () => 'w');
  server.resource('file:///other', () => 'o');
  const notes = [];
  await withClient(server, { onNotification: (method, params) => notes.push({ method, params }) }, async (client) => {
    assert.equal(client.serverCapabilities.resources.subscribe, true);
    await within(client.subscribeResource('file:///watched'));
    server.notifyResourceUpdated('file:///watched');
    server.notifyResourceUpdated('file:///other'); // not subscribed: not sent
    await within(client.ping()); // everything sent before the ping's answer has arrived
    assert.deepEqual(notes, [{ method: 'notifications/resources/updated', params: { uri: 'file:///watched' } }]);

    await within(client.unsubscribeResource('file:///watched'));
    server.notifyResourceUpdated('file:///watched');
    await within(client.ping());
    assert.equal(notes.length, 1);
  });
});

test('resources and templates added and removed at run time: list_changed and new lists', async () => {
  const server = new Server({ name: 'dynamic-resources' });
  server.resource('file:///first', () => 'first');
  const notes = [];
  await withClient(server, { onNotification: (method) => notes.push(method) }, async (client) => {
    const uris = async () => (await within(client.listResources())).resources.map((r) => r.uri);
    const templates = async () => (await within(client.listResourceTemplates())).resourceTemplates.map((t) => t.uriTemplate);

    server.resource('file:///second', () => 'second');
    await within(client.ping());
    assert.deepEqual(notes, ['notifications/resources/list_changed']);
    assert.deepEqual(await uris(), ['file:///first', 'file:///second']);
    assert.deepEqual(await within(client.readResource('file:///second')), { contents: [{ uri: 'file:///second', mimeType: 'text/plain', text: 'second' }] });

    assert.equal(server.removeResource('file:///first'), true);
    await within(client.ping());
    assert.equal(notes.length, 2);
    assert.deepEqual(await uris(), ['file:///second']);
    await rejectsWith(client.readResource('file:///first'), ...notFound(client));

    server.resource('items://{n}', (_url, { n }) => `item ${n}`);
    await within(client.ping());
    assert.equal(notes.length, 3);
    assert.deepEqual(await templates(), ['items://{n}']);
    assert.equal(server.removeResource('items://{n}'), true);
    await within(client.ping());
    assert.equal(notes.length, 4);
    assert.deepEqual(await templates(), []);
    assert.equal(server.removeResource('items://{n}'), false);
    await within(client.ping());
    assert.deepEqual(notes, Array(4).fill('notifications/resources/list_changed'));
  });
});

// ---- prompts ------------------------------------------------------------------------------------

test('prompts with arguments and with a zod argsSchema, string and message returns', async () => {
  const server = new Server({ name: 'prompts' });
  const seen = [];
  server.prompt(
    'greet',
    { title: 'Greeting', description: 'Greets someone', arguments: [{ name: 'who', description: 'Whom', required: true }, { name: 'tone' }] },
    (args, ctx) => {
      seen.push({ args, hasCtx: ctx.requestId !== undefined });
      return `Hello ${args.who}${args.tone ? ` (${args.tone})` : ''}`;
    },
  );
  server.prompt('review', { description: 'Review code', argsSchema: { code: z.string().describe('The code'), language: z.string().default('js') } }, ({ code, language }) => [
    { role: 'user', content: `Review this ${language}: ${code}` },
    { role: 'assistant', content: { type: 'text', text: 'Looking.' } },
  ]);
  server.prompt('full', async () => ({
    description: 'a full result',
    messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'file:///a', text: 'A', mimeType: 'text/plain' } } }],
  }));
  server.prompt('levels', { argsSchema: { level: z.enum(['low', 'high']) } }, ({ level }) => `level ${level}`);
  await withClient(server, async (client) => {
    const { prompts } = await within(client.listPrompts());
    assert.deepEqual(prompts, [
      { name: 'greet', title: 'Greeting', description: 'Greets someone', arguments: [{ name: 'who', description: 'Whom', required: true }, { name: 'tone' }] },
      { name: 'review', description: 'Review code', arguments: [{ name: 'code', description: 'The code', required: true }, { name: 'language', required: false }] },
      { name: 'full' },
      { name: 'levels', arguments: [{ name: 'level', required: true }] },
    ]);
    assert.deepEqual(await within(client.getPrompt('greet', { who: 'Ada' })), {
      description: 'Greets someone',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }],
    });
    assert.deepEqual(await within(client.getPrompt('greet', { who: 'Bob', tone: 'warm' })), {
      description: 'Greets someone',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello Bob (warm)' } }],
    });
    assert.deepEqual(seen, [
      { args: { who: 'Ada' }, hasCtx: true },
      { args: { who: 'Bob', tone: 'warm' }, hasCtx: true },
    ]);
    // The zod schema's default applies before the handler.
    assert.deepEqual(await within(client.getPrompt('review', { code: 'x = 1' })), {
      description: 'Review code',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Review this js: x = 1' } },
        { role: 'assistant', content: { type: 'text', text: 'Looking.' } },
      ],
    });
    assert.deepEqual(await within(client.getPrompt('full')), {
      description: 'a full result',
      messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'file:///a', text: 'A', mimeType: 'text/plain' } } }],
    });
    assert.deepEqual(await within(client.getPrompt('levels', { level: 'high' })), { messages: [{ role: 'user', content: { type: 'text', text: 'level high' } }] });
  });
});

test('prompt errors: missing required argument, a value zod rejects, an unknown prompt are InvalidParams', async () => {
  const server = new Server({ name: 'prompt-errors' });
  let called = 0;
  server.prompt('greet', { arguments: [{ name: 'who', required: true }] }, () => {
    called += 1;
    return 'x';
  });
  server.prompt('zodGreet', { argsSchema: { who: z.string(), tone: z.string().optional() } }, () => {
    called += 1;
    return 'x';
  });
  server.prompt('levels', { argsSchema: { level: z.enum(['low', 'high']) } }, () => {
    called += 1;
    return 'x';
  });
  await withClient(server, async (client) => {
    let err = await rejectsWith(client.getPrompt('greet', {}), InvalidParams, 'ERR_MCP_INVALID_PARAMS', -32602);
    assert.match(err.message, /who/);
    err = await rejectsWith(client.getPrompt('zodGreet', { tone: 'warm' }), InvalidParams, 'ERR_MCP_INVALID_PARAMS', -32602);
    assert.match(err.message, /who/);
    err = await rejectsWith(client.getPrompt('levels', { level: 'medium' }), InvalidParams, 'ERR_MCP_INVALID_PARAMS', -32602);
    assert.match(err.message, /level/);
    err = await rejectsWith(client.getPrompt('nope', {}), InvalidParams, 'ERR_MCP_INVALID_PARAMS', -32602);
    assert.match(err.message, /Unknown prompt: nope/);
    assert.equal(called, 0);
  });
});

test('prompts added and removed at run time: prompts/list_changed and the new list', async () => {
  const server = new Server({ name: 'dynamic-prompts' });
  server.prompt('one', () => '1');
  const notes = [];
  await withClient(server, { onNotification: (method) => notes.push(method) }, async (client) => {
    const names = async () => (await within(client.listPrompts())).prompts.map((p) => p.name);
    server.prompt('two', () => '2');
    await within(client.ping());
    assert.deepEqual(await names(), ['one', 'two']);
    assert.equal(server.removePrompt('one'), true);
    await within(client.ping());
    assert.deepEqual(await names(), ['two']);
    assert.deepEqual(notes, ['notifications/prompts/list_changed', 'notifications/prompts/list_changed']);
    await rejectsWith(client.getPrompt('one'), InvalidParams, 'ERR_MCP_INVALID_PARAMS', -32602);
  });
});

// ---- completions --------------------------------------------------------------------------------

test('completion filters ({prompt, argument}, {resource, argument}, catch-all) with context arguments', async () => {
  const server = new Server({ name: 'completions' });
  server.prompt('trip', { arguments: [{ name: 'country', required: true }, { name: 'city', required: true }] }, () => 'x');
  server.resource('repos://{owner}/{repo}', () => 'r');
  const calls = [];
  const CITIES = { France: ['Paris', 'Lyon', 'Lille'], Italy: ['Rome', 'Lucca'] };
  server.completion({ prompt: 'trip', argument: 'city' }, (value, context, params, ctx) => {
    calls.push({ filter: 'prompt', value, context, ref: params.ref, hasCtx: ctx.requestId !== undefined });
    return (CITIES[context.country] ?? []).filter((c) => c.startsWith(value));
  });
  server.completion({ resource: 'repos://{owner}/{repo}', argument: 'repo' }, async (value, context) => {
    calls.push({ filter: 'resource', value, context });
    return [`${context.owner ?? '?'}/${value}-one`, `${context.owner ?? '?'}/${value}-two`];
  });
  server.completion((value, _context, params) => {
    calls.push({ filter: 'any', value });
    return Array.from({ length: 150 }, (_, i) => `${params.argument.name}-${value}-${i}`);
  });
  await withClient(server, async (client) => {
    assert.deepEqual(client.serverCapabilities.completions, {});
    assert.deepEqual(await within(client.complete(promptRef('trip'), 'city', 'L', { country: 'France' })), {
      completion: { values: ['Lyon', 'Lille'], total: 2, hasMore: false },
    });
    assert.deepEqual(await within(client.complete(promptRef('trip'), 'city', 'R', { country: 'Italy' })), {
      completion: { values: ['Rome'], total: 1, hasMore: false },
    });
    assert.deepEqual(await within(client.complete(resourceRef('repos://{owner}/{repo}'), 'repo', 'hyp', { owner: 'ada' })), {
      completion: { values: ['ada/hyp-one', 'ada/hyp-two'], total: 2, hasMore: false },
    });
    // Neither specific filter matches: the catch-all answers, capped at 100 values.
    const any = await within(client.complete(promptRef('trip'), 'country', 'x'));
    assert.equal(any.completion.values.length, 100);
    assert.equal(any.completion.values[0], 'country-x-0');
    assert.equal(any.completion.total, 150);
    assert.equal(any.completion.hasMore, true);
    assert.deepEqual(calls, [
      { filter: 'prompt', value: 'L', context: { country: 'France' }, ref: { type: 'ref/prompt', name: 'trip' }, hasCtx: true },
      { filter: 'prompt', value: 'R', context: { country: 'Italy' }, ref: { type: 'ref/prompt', name: 'trip' }, hasCtx: true },
      { filter: 'resource', value: 'hyp', context: { owner: 'ada' } },
      { filter: 'any', value: 'x' },
    ]);
  });
});

test('without a matching completion handler the answer is empty', async () => {
  const server = new Server({ name: 'completion-none' });
  server.prompt('p', { arguments: [{ name: 'a' }, { name: 'b' }] }, () => 'x');
  server.completion({ prompt: 'p', argument: 'a' }, () => ['alpha']);
  await withClient(server, async (client) => {
    assert.deepEqual(await within(client.complete(promptRef('p'), 'a', '')), { completion: { values: ['alpha'], total: 1, hasMore: false } });
    assert.deepEqual((await within(client.complete(promptRef('p'), 'b', ''))).completion.values, []);
  });
});

// ---- pagination ---------------------------------------------------------------------------------

test('pagination with pageSize 2: pages of two, listTools walks every page', async () => {
  const server = new Server({ name: 'pages', pageSize: 2 });
  for (let i = 0; i < 5; i++) server.tool(`tool${i}`, () => `${i}`);
  for (let i = 0; i < 3; i++) server.resource(`file:///r${i}`, () => `${i}`);
  for (let i = 0; i < 3; i++) server.prompt(`prompt${i}`, () => `${i}`);
  await withClient(server, async (client) => {
    // Page by page, as the wire carries them.
    const pages = [];
    const cursors = [];
    let cursor;
    do {
      const page = await within(client.request('tools/list', cursor === undefined ? {} : { cursor }));
      pages.push(page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      if (cursor !== undefined) cursors.push(cursor);
      assert.ok(pages.length <= 5, 'the cursors end');
    } while (cursor !== undefined);
    assert.deepEqual(pages, [['tool0', 'tool1'], ['tool2', 'tool3'], ['tool4']]);
    // With a cursor, listTools gives that one page.
    const second = await within(client.listTools({ cursor: cursors[0] }));
    assert.deepEqual(second.tools.map((t) => t.name), ['tool2', 'tool3']);
    assert.equal(second.nextCursor, cursors[1]);

    // listTools without a cursor walks every page.
    const all = await within(client.listTools());
    assert.deepEqual(all.tools.map((t) => t.name), ['tool0', 'tool1', 'tool2', 'tool3', 'tool4']);
    assert.equal(all.nextCursor, undefined);
    assert.deepEqual((await within(client.listResources())).resources.map((r) => r.uri), ['file:///r0', 'file:///r1', 'file:///r2']);
    assert.deepEqual((await within(client.listPrompts())).prompts.map((p) => p.name), ['prompt0', 'prompt1', 'prompt2']);
    const resourcePage = await within(client.request('resources/list', {}));
    assert.equal(resourcePage.resources.length, 2);
    assert.equal(typeof resourcePage.nextCursor, 'string');
  });
});
