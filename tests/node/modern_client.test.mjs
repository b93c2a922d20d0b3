// The Node client at 2026-07-28 against our server: the era it finds, the listen streams it
// opens for the application (async iterator and events), input_required rounds served by its
// handlers, and the legacy mode beside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, MethodNotFound, Subscription } from 'hypermcp';
import { within, withClient } from './_helpers.mjs';

function server() {
  const s = new Server({ name: 'modern' });
  s.tool('echo', { description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, async ({ text }) => text);
  s.tool('greet', { description: 'Asks twice' }, async (_args, ctx) => {
    const schema = { v: { type: 'string' } };
    const name = await ctx.elicit('Name?', { type: 'object', properties: schema });
    const mood = await ctx.elicit('Mood?', { type: 'object', properties: schema });
    return `${name.content?.v} is ${mood.content?.v}`;
  });
  s.resource('file:///watched.txt', { name: 'watched' }, async () => 'v1');
  return s;
}

test('the era and input_required rounds', async () => {
  const s = server();
  const asked = [];
  const onElicitation = (params) => {
    asked.push(params.message);
    return { action: 'accept', content: { v: params.message === 'Name?' ? 'Ada' : 'calm' } };
  };
  await withClient(s, { onElicitation }, async (client) => {
    assert.equal(client.modern, true);
    assert.equal(client.protocolVersion, '2026-07-28');
    const r = await within(client.callTool('greet', {}));
    assert.equal(r.content[0].text, 'Ada is calm');
    assert.deepEqual(asked, ['Name?', 'Mood?'], 'each question once');
  });
  await withClient(s, { mode: 'legacy', onElicitation }, async (client) => {
    assert.equal(client.modern, false);
    assert.equal(client.protocolVersion, '2025-11-25');
    assert.equal((await within(client.callTool('greet', {}))).content[0].text, 'Ada is calm');
  });
});

test('listen streams: async iteration, events, close', async () => {
  const s = server();
  await withClient(s, async (client) => {
    const sub = client.listen({ resourcesListChanged: true, resourceSubscriptions: ['file:///watched.txt'] });
    assert.equal(typeof sub.id, 'number');
    const it = sub[Symbol.asyncIterator]();
    const ack = (await within(it.next())).value;
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual(ack.params.notifications, { resourcesListChanged: true, resourceSubscriptions: ['file:///watched.txt'] });
    s.notifyResourceUpdated('file:///watched.txt');
    const update = (await within(it.next())).value;
    assert.equal(update.method, 'notifications/resources/updated');
    assert.equal(update.params.uri, 'file:///watched.txt');
    assert.equal(update.params._meta['io.modelcontextprotocol/subscriptionId'], sub.id);
    sub.close();
    assert.deepEqual(await within(it.next()), { value: undefined, done: true });
    assert.equal(sub.ended, true);

    // The EventEmitter face.
    const events = client.listen({ resourcesListChanged: true });
    const seen = [];
    events.on('notification', (method) => seen.push(method));
    const ended = new Promise((resolve) => events.on('end', resolve));
    s.resource('file:///new.txt', { name: 'new' }, async () => 'new');
    const deadline = Date.now() + 5000;
    while (!seen.includes('notifications/resources/list_changed') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(seen, ['notifications/subscriptions/acknowledged', 'notifications/resources/list_changed']);
    events.close();
    await within(ended);
    const r = await within(client.callTool('echo', { text: 'after' }));
    assert.equal(r.content[0].text, 'after');
  });
  await withClient(s, { mode: 'legacy' }, async (client) => {
    assert.throws(() => client.listen({ toolsListChanged: true }), MethodNotFound);
  });
});

test('a listen stream nobody reads is closed, not buffered without limit', async () => {
  const s = server();
  const saved = Subscription.backlog;
  Subscription.backlog = 3;
  try {
    await withClient(s, async (client) => {
      const sub = client.listen({ resourceSubscriptions: ['file:///watched.txt'] });
      for (let i = 0; i < 10; i++) s.notifyResourceUpdated('file:///watched.txt');
      await new Promise((r) => setTimeout(r, 200));
      const items = [];
      for await (const { method } of sub) items.push(method);
      assert.equal(items.length, 3, String(items));
      assert.equal(items[0], 'notifications/subscriptions/acknowledged');
      assert.equal(sub.ended, true);
      assert.equal((await within(client.callTool('echo', { text: 'alive' }))).content[0].text, 'alive');
    });
  } finally {
    Subscription.backlog = saved;
  }
});
