// MCP Apps (io.modelcontextprotocol/ui) from Node: server.app(uri, {html, csp, ...}) served
// and listed from memory, { ui } on a tool linking it, the extension declared, and
// client.readApp giving the HTML with the CSP and allow list to render it with.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, DefinitionError, Server } from 'hypermcp';
import { within } from './_helpers.mjs';

const HTML = '<!doctype html><html><head><title>Forecast</title></head><body>forecast</body></html>';
const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';

function makeServer() {
  return new Server({ name: 'apps', version: '1.0.0' })
    .app('ui://weather/forecast', {
      html: HTML,
      csp: { connectDomains: ['https://api.weather.example'] },
      permissions: ['geolocation'],
      prefersBorder: true,
      description: 'The forecast, drawn',
    })
    .tool('forecast', { ui: 'ui://weather/forecast', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, ({ city }) => `Sunny in ${city}`)
    .tool('refresh', { ui: { resourceUri: 'ui://weather/forecast', visibility: ['app'] } }, () => 'refreshed');
}

for (const mode of /** @type {const} */ (['legacy', 'modern'])) {
  test(`apps are served, linked and read (${mode})`, async () => {
    const client = await within(Client.inMemory(makeServer(), { mode, extensions: { [UI]: { mimeTypes: [MIME] } } }));
    try {
      assert.deepEqual(client.serverCapabilities?.extensions?.[UI], {});
      const { tools } = await within(client.listTools());
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      assert.deepEqual(byName.forecast._meta?.ui, { resourceUri: 'ui://weather/forecast' });
      assert.deepEqual(byName.refresh._meta?.ui?.visibility, ['app']);
      const listed = (await within(client.listResources())).resources.find((r) => r.uri === 'ui://weather/forecast');
      assert.equal(listed?.mimeType, MIME);
      const app = await within(client.readApp('ui://weather/forecast'));
      assert.equal(app.html, HTML);
      assert.equal(app.mimeType, MIME);
      assert.deepEqual(app.meta, { csp: { connectDomains: ['https://api.weather.example'] }, permissions: { geolocation: {} }, prefersBorder: true });
      assert.match(app.cspHeader, /^default-src 'none'/);
      assert.match(app.cspHeader, /connect-src 'self' https:\/\/api\.weather\.example/);
      assert.equal(app.allow, 'geolocation');
      assert.equal((await within(client.callTool('forecast', { city: 'Paris' }))).content[0].text, 'Sunny in Paris');
      await assert.rejects(within(client.readApp('weather://paris')), /ui:\/\//);
    } finally {
      await client.close();
    }
  });
}

test('app definitions are checked', () => {
  const server = new Server({ name: 'apps', version: '1.0.0' });
  assert.throws(() => server.app('https://example.com/app', { html: HTML }), (err) => err instanceof DefinitionError && /ui:\/\//.test(err.message));
  assert.throws(() => server.app('ui://x/y', { html: HTML, csp: { resourceDomains: ["'unsafe-eval'"] } }), /not an origin/);
  assert.throws(() => server.tool('bad', { ui: 'https://example.com' }, () => ''), /ui:\/\//);
});
