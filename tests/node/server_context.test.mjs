// What a Node Server handler can do through `ctx`, driven in memory by the hypermcp Client:
// progress, logging, elicitation (form and URL), sampling, roots, the request's identity,
// cancellation through `ctx.signal`, and the server's lifespan.
//
// Run: node --test tests/node/

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Server, McpError, MethodNotFound, InvalidParams } from 'hypermcp';
import { within, tick, connect, withClient } from './_helpers.mjs';

/** A promise with its resolve function. */
function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

/** The text of a one-block tool result, parsed as JSON. */
const json = (result) => {
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.equal(result.content.length, 1);
  return JSON.parse(result.content[0].text);
};

// ---- progress -----------------------------------------------------------------------------------

test('reportProgress reaches the client onProgress, in order', async () => {
  const server = new Server({ name: 'progress' });
  server.tool('work', async (_args, ctx) => {
    const sent = [];
    for (let i = 1; i <= 5; i++) {
      sent.push(await ctx.reportProgress(i, 5, `step ${i}`));
      if (i % 2) await tick(1);
    }
    sent.push(await ctx.reportProgress(7.5)); // no total, no message
    return JSON.stringify(sent);
  });
  await withClient(server, async (client) => {
    const seen = [];
    const result = await within(client.callTool('work', {}, { onProgress: (p) => seen.push(p) }));
    assert.deepEqual(JSON.parse(result.content[0].text), [true, true, true, true, true, true]);
    assert.deepEqual(seen, [
      { progress: 1, total: 5, message: 'step 1' },
      { progress: 2, total: 5, message: 'step 2' },
      { progress: 3, total: 5, message: 'step 3' },
      { progress: 4, total: 5, message: 'step 4' },
      { progress: 5, total: 5, message: 'step 5' },
      { progress: 7.5 },
    ]);
    // Without onProgress the client asks for none: reportProgress resolves false.
    assert.deepEqual(await within(client.callTool('work', {})), { content: [{ type: 'text', text: '[false,false,false,false,false,false]' }] });
  });
});

test('non-increasing progress rejects with an McpError', async () => {
  const server = new Server({ name: 'progress-order' });
  server.tool('backwards', async (_args, ctx) => {
    await ctx.reportProgress(2, 10);
    const failures = [];
    for (const value of [2, 1]) {
      try {
        await ctx.reportProgress(value, 10);
        failures.push(null);
      } catch (err) {
        failures.push({ isMcpError: err instanceof McpError, code: err.code, rpcCode: err.rpcCode });
      }
    }
    await ctx.reportProgress(3, 10); // still usable
    return JSON.stringify(failures);
  });
  await withClient(server, async (client) => {
    const seen = [];
    const failures = json(await within(client.callTool('backwards', {}, { onProgress: (p) => seen.push(p.progress) })));
    const expected = { isMcpError: true, code: 'ERR_MCP_INVALID_PARAMS', rpcCode: -32602 };
    assert.deepEqual(failures, [expected, expected]);
    assert.deepEqual(seen, [2, 3]);
  });
});

// ---- logging ------------------------------------------------------------------------------------

test('ctx.log / ctx.info reach onLog, filtered by setLoggingLevel', async () => {
  const server = new Server({ name: 'logging' });
  server.tool('chatty', async (_args, ctx) => {
    await ctx.debug('d');
    await ctx.info({ detail: 'i' }, 'my.logger');
    await ctx.log('notice', 'n');
    await ctx.warning('w');
    await ctx.error('e');
    await ctx.log('critical', { n: 1 });
    return 'done';
  });
  server.tool('badLevel', async (_args, ctx) => {
    try {
      await ctx.log('loud', 'x');
      return 'accepted';
    } catch (err) {
      return `${err.name}`;
    }
  });
  const logs = [];
  await withClient(server, { onLog: (p) => logs.push(p) }, async (client) => {
    await within(client.setLoggingLevel('warning'));
    await within(client.callTool('chatty', {}));
    assert.deepEqual(logs, [
      { level: 'warning', data: 'w' },
      { level: 'error', data: 'e' },
      { level: 'critical', data: { n: 1 } },
    ]);

    logs.length = 0;
    await within(client.setLoggingLevel('debug'));
    await within(client.callTool('chatty', {}));
    assert.deepEqual(logs, [
      { level: 'debug', data: 'd' },
      { level: 'info', data: { detail: 'i' }, logger: 'my.logger' },
      { level: 'notice', data: 'n' },
      { level: 'warning', data: 'w' },
      { level: 'error', data: 'e' },
      { level: 'critical', data: { n: 1 } },
    ]);

    logs.length = 0;
    await within(client.setLoggingLevel('emergency'));
    await within(client.callTool('chatty', {}));
    assert.deepEqual(logs, []);
    assert.deepEqual(await within(client.callTool('badLevel', {})), { content: [{ type: 'text', text: 'TypeError' }] });
  });
});

// ---- elicitation --------------------------------------------------------------------------------

test('form elicitation with a JSON Schema and with a zod shape: accept and decline', async () => {
  const server = new Server({ name: 'elicit' });
  server.tool('jsonForm', async (_args, ctx) =>
    JSON.stringify(
      await ctx.elicit('Who are you?', {
        type: 'object',
        properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
        required: ['name'],
      }),
    ),
  );
  server.tool('zodForm', async (_args, ctx) =>
    JSON.stringify(await ctx.elicit('Confirm?', { confirm: z.boolean(), note: z.string().optional() })),
  );
  const asked = [];
  let answer = { action: 'accept', content: { name: 'Ada', age: 36 } };
  await withClient(
    server,
    {
      onElicitation: async (params, { signal }) => {
        asked.push({ params, hasSignal: signal instanceof AbortSignal });
        return answer;
      },
    },
    async (client) => {
      assert.deepEqual(json(await within(client.callTool('jsonForm', {}))), { action: 'accept', content: { name: 'Ada', age: 36 } });
      answer = { action: 'accept', content: { confirm: true } };
      assert.deepEqual(json(await within(client.callTool('zodForm', {}))), { action: 'accept', content: { confirm: true } });
      answer = { action: 'decline' };
      assert.deepEqual(json(await within(client.callTool('zodForm', {}))), { action: 'decline' });
      assert.equal(asked.length, 3);
      assert.ok(asked.every((a) => a.hasSignal));
      assert.deepEqual(asked[0].params, {
        message: 'Who are you?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } }, required: ['name'] },
      });
      assert.deepEqual(asked[1].params, {
        message: 'Confirm?',
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' }, note: { type: 'string' } }, required: ['confirm'] },
      });
    },
  );
});

test('URL elicitation (elicitationUrl: true): accept, decline, and the completion notice', async () => {
  const server = new Server({ name: 'elicit-url' });
  server.tool('login', async (_args, ctx) => {
    const r = await ctx.elicitUrl('Sign in', 'https://example.com/login?s=1', 'elicit-42');
    if (r.action === 'accept') ctx.elicitationComplete('elicit-42');
    return JSON.stringify(r);
  });
  const asked = [];
  const notes = [];
  let action = 'accept';
  await withClient(
    server,
    {
      // The completion notice is a legacy notification (2026-07-28 has none).
      mode: 'legacy',
      elicitationUrl: true,
      onElicitation: async (params) => {
        asked.push(params);
        return { action };
      },
      onNotification: (method, params) => notes.push({ method, params }),
    },
    async (client) => {
      assert.deepEqual(json(await within(client.callTool('login', {}))), { action: 'accept' });
      assert.deepEqual(asked, [{ mode: 'url', message: 'Sign in', url: 'https://example.com/login?s=1', elicitationId: 'elicit-42' }]);
      await within(client.ping()); // the notification is ahead of the ping's answer
      assert.deepEqual(notes, [{ method: 'notifications/elicitation/complete', params: { elicitationId: 'elicit-42' } }]);
      action = 'decline';
      assert.deepEqual(json(await within(client.callTool('login', {}))), { action: 'decline' });
      assert.equal(notes.length, 1);
    },
  );
});

// ---- sampling and roots -------------------------------------------------------------------------

test('sampling: ctx.sample reaches onSampling and returns its message', async () => {
  const server = new Server({ name: 'sampling' });
  server.tool('summarise', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, async ({ text }, ctx) => {
    const r = await ctx.sample(`Summarise: ${text}`, { maxTokens: 50, systemPrompt: 'Be brief', temperature: 0.2 });
    return `${r.model}: ${r.content.text}`;
  });
  server.tool('conversation', async (_args, ctx) => {
    const r = await ctx.sample([
      { role: 'user', content: { type: 'text', text: 'hi' } },
      { role: 'assistant', content: { type: 'text', text: 'hello' } },
      'and now?',
    ]);
    return JSON.stringify(r);
  });
  const asked = [];
  await withClient(
    server,
    {
      onSampling: async (params) => {
        asked.push(params);
        return { role: 'assistant', content: { type: 'text', text: `reply ${asked.length}` }, model: 'test-model', stopReason: 'endTurn' };
      },
    },
    async (client) => {
      assert.deepEqual(await within(client.callTool('summarise', { text: 'long story' })), { content: [{ type: 'text', text: 'test-model: reply 1' }] });
      assert.deepEqual(asked[0], {
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarise: long story' } }],
        maxTokens: 50,
        systemPrompt: 'Be brief',
        temperature: 0.2,
      });
      assert.deepEqual(json(await within(client.callTool('conversation', {}))), {
        role: 'assistant',
        content: { type: 'text', text: 'reply 2' },
        model: 'test-model',
        stopReason: 'endTurn',
      });
      assert.deepEqual(asked[1].messages, [
        { role: 'user', content: { type: 'text', text: 'hi' } },
        { role: 'assistant', content: { type: 'text', text: 'hello' } },
        { role: 'user', content: { type: 'text', text: 'and now?' } },
      ]);
      assert.equal(typeof asked[1].maxTokens, 'number');
    },
  );
});

test('roots: ctx.listRoots returns the client roots (array and function)', async () => {
  const server = new Server({ name: 'roots' });
  server.tool('roots', async (_args, ctx) => JSON.stringify(await ctx.listRoots()));
  await withClient(server, { roots: [{ uri: 'file:///projects/a', name: 'a' }, 'file:///projects/b'] }, async (client) => {
    assert.deepEqual(json(await within(client.callTool('roots', {}))), [{ uri: 'file:///projects/a', name: 'a' }, { uri: 'file:///projects/b' }]);
  });
  let calls = 0;
  await withClient(server, { roots: () => [{ uri: `file:///call/${++calls}` }] }, async (client) => {
    assert.deepEqual(json(await within(client.callTool('roots', {}))), [{ uri: 'file:///call/1' }]);
    assert.deepEqual(json(await within(client.callTool('roots', {}))), [{ uri: 'file:///call/2' }]);
  });
});

test('ctx carries requestId, clientInfo, protocolVersion, clientCapabilities', async () => {
  const server = new Server({ name: 'identity' });
  server.tool('who', (_args, ctx) =>
    JSON.stringify({
      requestId: ctx.requestId,
      clientInfo: ctx.clientInfo,
      protocolVersion: ctx.protocolVersion,
      clientCapabilities: ctx.clientCapabilities,
      meta: ctx.meta,
      server: ctx.server === server,
    }),
  );
  const ids = [];
  await withClient(
    server,
    { name: 'identity-client', version: '3.2.1', onSampling: async () => ({}), roots: [] },
    async (client) => {
      for (let i = 0; i < 2; i++) {
        const who = json(await within(client.callTool('who', {}, { meta: { trace: `t${i}` } })));
        ids.push(who.requestId);
        assert.deepEqual(who.clientInfo, { name: 'identity-client', version: '3.2.1' });
        // Per-request identity at 2026-07-28 (the auto client's era with our servers).
        assert.equal(who.protocolVersion, '2026-07-28');
        assert.deepEqual(who.clientCapabilities, { sampling: { tools: {} }, roots: { listChanged: true } });
        assert.deepEqual(who.meta, { trace: `t${i}` });
        assert.equal(who.server, true);
      }
      assert.ok(ids.every((id) => typeof id === 'number' || typeof id === 'string'));
      assert.notEqual(ids[0], ids[1], 'each request has its own id');
    },
  );
  await withClient(server, { protocolVersion: '2025-06-18' }, async (client) => {
    const who = json(await within(client.callTool('who', {})));
    assert.equal(who.protocolVersion, '2025-06-18');
    assert.deepEqual(who.clientCapabilities, {});
    assert.equal(who.meta, null);
  });
});

test('a client without the handler: the ctx call rejects with MethodNotFound', async () => {
  const server = new Server({ name: 'no-handlers' });
  const attempt = (fn) => async (_args, ctx) => {
    try {
      await fn(ctx);
      return 'succeeded';
    } catch (err) {
      return JSON.stringify({ isMethodNotFound: err instanceof MethodNotFound, code: err.code, rpcCode: err.rpcCode });
    }
  };
  server.tool('elicit', attempt((ctx) => ctx.elicit('form?', { a: z.string() })));
  server.tool('elicitUrl', attempt((ctx) => ctx.elicitUrl('url?', 'https://example.com')));
  server.tool('sample', attempt((ctx) => ctx.sample('hi')));
  server.tool('roots', attempt((ctx) => ctx.listRoots()));
  // Legacy: the client answers -32601. 2026-07-28: the server never asks a client for what it
  // did not declare; the ctx call rejects with MissingRequiredClientCapability (-32021).
  const refusals = {
    legacy: { isMethodNotFound: true, code: 'ERR_MCP_METHOD_NOT_FOUND', rpcCode: -32601 },
    modern: { isMethodNotFound: false, code: 'ERR_MCP_MISSING_CAPABILITY', rpcCode: -32021 },
  };
  for (const [mode, expected] of Object.entries(refusals)) {
    await withClient(server, { mode }, async (client) => {
      for (const name of ['elicit', 'elicitUrl', 'sample', 'roots']) {
        assert.deepEqual(json(await within(client.callTool(name, {}))), expected, `${mode} ${name}`);
      }
    });
    // Form elicitation alone does not cover URL mode.
    const onElicitation = async () => ({ action: 'accept', content: { a: 'x' } });
    await withClient(server, { mode, onElicitation }, async (client) => {
      assert.deepEqual(json(await within(client.callTool('elicitUrl', {}))), expected);
      assert.deepEqual(await within(client.callTool('elicit', {})), { content: [{ type: 'text', text: 'succeeded' }] });
    });
  }
});

// ---- cancellation -------------------------------------------------------------------------------

test('cancellation: aborting callTool fires ctx.signal and the server keeps serving', async () => {
  const server = new Server({ name: 'cancel' });
  const started = deferred();
  const aborted = deferred();
  server.tool('wait', async (_args, ctx) => {
    ctx.signal.addEventListener('abort', () => aborted.resolve({ reason: ctx.signal.reason, cancelled: ctx.cancelled }));
    started.resolve();
    await aborted.promise;
    return 'too late'; // never sent: the request was cancelled
  });
  server.tool('echo', { inputSchema: { type: 'object', properties: { t: { type: 'string' } } } }, ({ t }) => t);
  await withClient(server, async (client) => {
    const ac = new AbortController();
    const call = client.callTool('wait', {}, { signal: ac.signal });
    const outcome = call.then(
      (r) => ({ resolved: r }),
      (err) => ({ rejected: err }),
    );
    await within(started.promise);
    ac.abort(new Error('user pressed stop'));
    const { rejected } = await within(outcome);
    assert.equal(rejected?.code, 'ERR_MCP_ABORTED');
    const seen = await within(aborted.promise);
    assert.equal(seen.cancelled, true);
    assert.ok(seen.reason instanceof Error);
    assert.match(seen.reason.message, /user pressed stop/);
    assert.deepEqual(await within(client.callTool('echo', { t: 'still here' })), { content: [{ type: 'text', text: 'still here' }] });
  });
});

test('cancellation reaches a ctx request in flight (the client handler sees its signal)', async () => {
  const server = new Server({ name: 'cancel-nested' });
  const sampling = deferred();
  const samplingAborted = deferred();
  const handlerOutcome = deferred();
  server.tool('ask', async (_args, ctx) => {
    try {
      await ctx.sample('think hard');
      handlerOutcome.resolve('sampled');
    } catch (err) {
      handlerOutcome.resolve(`rejected: ${ctx.signal.aborted}`);
    }
    return 'never sent';
  });
  // Legacy: the server's request to the client is cancelled with the call.
  await withClient(
    server,
    {
      mode: 'legacy',
      onSampling: (_params, { signal }) => {
        sampling.resolve();
        signal.addEventListener('abort', () => samplingAborted.resolve(true));
        return new Promise(() => {});
      },
    },
    async (client) => {
      const ac = new AbortController();
      const call = client.callTool('ask', {}, { signal: ac.signal }).catch((err) => err);
      await within(sampling.promise);
      ac.abort();
      assert.equal((await within(call)).code, 'ERR_MCP_ABORTED');
      assert.equal(await within(handlerOutcome.promise), 'rejected: true');
      assert.equal(await within(samplingAborted.promise), true);
    },
  );
});

// ---- lifespan -----------------------------------------------------------------------------------

test('lifespan opens before serving, is ctx.server.lifespanContext, closes after the client closes', async () => {
  const events = [];
  const server = new Server({
    name: 'lifespan',
    lifespan: async (srv) => {
      events.push(`open ${srv.name}`);
      await tick(10);
      const db = { queries: 0 };
      return {
        context: { db },
        close: async () => {
          await tick(5);
          events.push(`close after ${db.queries} queries`);
        },
      };
    },
  });
  server.tool('query', (_args, ctx) => {
    events.push('query');
    ctx.server.lifespanContext.db.queries += 1;
    return `query ${ctx.server.lifespanContext.db.queries}`;
  });
  assert.equal(server.lifespanContext, undefined);
  const client = await connect(server);
  try {
    assert.deepEqual(events, ['open lifespan']);
    assert.deepEqual(server.lifespanContext, { db: { queries: 0 } });
    assert.deepEqual(await within(client.callTool('query', {})), { content: [{ type: 'text', text: 'query 1' }] });
    assert.deepEqual(await within(client.callTool('query', {})), { content: [{ type: 'text', text: 'query 2' }] });
    assert.deepEqual(events, ['open lifespan', 'query', 'query']);
  } finally {
    await within(client.close());
  }
  assert.deepEqual(events, ['open lifespan', 'query', 'query', 'close after 2 queries']);
  assert.equal(server.lifespanContext, undefined);
});
