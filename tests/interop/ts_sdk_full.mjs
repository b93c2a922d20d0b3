#!/usr/bin/env node
// Drive the weather example server through every MCP feature with the official TypeScript
// SDK client (@modelcontextprotocol/sdk 1.32.2, from ${PEERS:-<repo>/.peers}/npm; see
// setup_peers.sh) over stdio (starting CMD), Streamable HTTP (--url) or legacy HTTP+SSE
// (--sse-url).
//
//   node ts_sdk_full.mjs [--timeout SECONDS] ([--] CMD [ARGS...] | --url URL | --sse-url URL)
//
// The server must serve what examples/python/weather_server.py serves: tools `forecast` (structured
// output, progress, an info log), `alerts` (a list wrapped in its one array property), `weather_map` (an image
// and a resource link) and `plan_trip` (elicitation, then sampling); the resource
// `weather://cities`; the template `weather://{city}/now`; the prompt `packing_list`;
// completion of `city` for both. Every step's result is checked; the run is bounded (30 s by
// default). Exit 0 with one `ts_sdk_full: ok (...)` line on stdout, or print what failed to
// stderr and exit 1.
import { isDeepStrictEqual } from 'node:util';
import { importPeer } from './peer_import.mjs';
import { check, CheckFailed, harness, settle } from './sdk_harness.mjs';

const PREFIX = 'ts_sdk_full';
const CITIES = ['lima', 'london', 'paris', 'tokyo'];
const SAMPLED = 'Pack light layers and sunglasses.';
const INVALID_PARAMS = -32602;

const h = harness(PREFIX, 'ts_sdk_full.mjs');

const eq = isDeepStrictEqual;
const j = JSON.stringify;

async function main() {
  let Client, types;
  try {
    ({ Client } = await importPeer('@modelcontextprotocol/sdk/client/index.js'));
    types = await importPeer('@modelcontextprotocol/sdk/types.js');
  } catch (e) {
    throw new CheckFailed(`cannot load the TypeScript SDK: ${e.message}`);
  }
  const { ElicitRequestSchema, CreateMessageRequestSchema, LoggingMessageNotificationSchema, McpError } = types;
  const done = [];

  const transport = await h.openTransport();
  let closed = false;
  transport.onclose = () => {
    closed = true;
  };

  const client = new Client(
    { name: 'hypermcp-interop-ts-full', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} } },
  );
  // SDK 1.32.2 dispatches notifications on a microtask but responses at once, so progress
  // that reaches it in the same read as the response finds its handler gone and is reported
  // here, not to onprogress (typescript-sdk issue #2580; no server can avoid it). Count those;
  // the wire tap below checks what the server sent.
  const LATE_PROGRESS = 'Received a progress notification for an unknown token';
  let lateProgress = 0;
  let closing = false; // closing the legacy SSE transport aborts its stream: not an error
  client.onerror = (e) => {
    if (String(e?.message).startsWith(LATE_PROGRESS)) lateProgress += 1;
    else if (!closing) process.stderr.write(`${PREFIX}: transport error: ${e?.message ?? e}\n`);
  };

  const logs = [];
  const elicitations = [];
  const samplings = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params);
  });
  client.setRequestHandler(ElicitRequestSchema, (req) => {
    elicitations.push(req.params);
    return { action: 'accept', content: { city: 'tokyo', days: 2 } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, (req) => {
    samplings.push(req.params);
    return { role: 'assistant', content: { type: 'text', text: SAMPLED }, model: 'interop-model' };
  });

  // ---- initialize
  await client.connect(transport);
  // Tap the messages in wire order: those received before the SDK's dispatch, those sent.
  const wireLog = [];
  const sentLog = [];
  const dispatch = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    wireLog.push(msg);
    dispatch(msg, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (msg, opts) => {
    sentLog.push(msg);
    return send(msg, opts);
  };
  const info = client.getServerVersion();
  const caps = client.getServerCapabilities() ?? {};
  check(caps.tools, `no tools capability: ${j(caps)}`);
  check(caps.resources?.subscribe === true, `no resources capability with subscribe: ${j(caps)}`);
  check(caps.prompts, `no prompts capability: ${j(caps)}`);
  check(caps.completions, `no completions capability: ${j(caps)}`);
  check(caps.logging, `no logging capability: ${j(caps)}`);
  check(info?.name === 'weather', `server name is ${j(info?.name)}`);
  process.stderr.write(`${PREFIX}: initialized: protocolVersion=${h.negotiated()} server=${info?.name} ${info?.version}\n`);
  done.push('initialize');

  // ---- tools/list
  const tools = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t]));
  for (const name of ['forecast', 'alerts', 'weather_map', 'plan_trip']) {
    check(tools[name], `tools/list lacks ${name} (has ${j(Object.keys(tools))})`);
    check(tools[name].inputSchema?.type === 'object', `${name} inputSchema: ${j(tools[name].inputSchema)}`);
  }
  const fc = tools.forecast;
  check(eq(fc.inputSchema.required, ['city']), `forecast inputSchema: ${j(fc.inputSchema)}`);
  const props = Object.keys(fc.inputSchema.properties ?? {});
  check(['city', 'days', 'units'].every((p) => props.includes(p)), `forecast input properties: ${j(props)}`);
  check(!props.includes('ctx'), 'forecast inputSchema exposes the Context parameter');
  check(fc.outputSchema?.type === 'object', `forecast outputSchema: ${j(fc.outputSchema)}`);
  check(tools.alerts.outputSchema, 'alerts has no outputSchema');
  check(!('ctx' in (tools.plan_trip.inputSchema.properties ?? {})), 'plan_trip exposes ctx');
  done.push('tools/list');

  // ---- logging/setLevel, then forecast with progress and logging. The SDK validates
  // structuredContent against the listed outputSchema itself (callTool throws otherwise).
  await client.setLoggingLevel('debug');
  const progress = [];
  let res = await client.callTool({ name: 'forecast', arguments: { city: 'Paris', days: 3 } }, undefined, {
    onprogress: (p) => progress.push(p),
  });
  check(res.isError !== true, `forecast isError: ${j(res)}`);
  const sc = res.structuredContent;
  check(
    eq(sc, { city: 'Paris', days: 3, temperatures: [18.5, 19.0, 19.5], units: 'celsius' }),
    `forecast structuredContent: ${j(res)}`,
  );
  const texts = res.content.filter((c) => c.type === 'text').map((c) => c.text);
  check(texts.length > 0 && eq(JSON.parse(texts[0]), sc), `forecast text is not the structured JSON: ${j(res)}`);
  await settle(() => progress.length + lateProgress >= 3 && logs.some((l) => l.level === 'info'));
  // What the server sent for this call, in order: its progress, then its response.
  const call = sentLog.find((m) => m.method === 'tools/call' && m.params?.name === 'forecast');
  const token = call?.params?._meta?.progressToken;
  check(token !== undefined, `the forecast call carries no progressToken: ${j(call)}`);
  const answer = wireLog.findIndex((m) => m.id === call.id && !m.method);
  check(answer >= 0, 'the forecast response is not in the wire log');
  const sent = wireLog
    .map((m, k) => [m, k])
    .filter(([m]) => m.method === 'notifications/progress' && m.params?.progressToken === token);
  check(
    sent.length === 3 && sent.every(([, k]) => k < answer),
    `forecast progress notifications on the wire (before the response at ${answer}): ${j(sent)}`,
  );
  const values = sent.map(([m]) => m.params);
  check(
    values.every((p, k) => k === 0 || values[k - 1].progress < p.progress),
    `progress does not increase: ${j(values)}`,
  );
  check(values[2].progress === 3 && values[2].total === 3, `progress does not reach the total 3: ${j(values)}`);
  check(values[0].message === 'day 1', `progress message: ${j(values)}`);
  // onprogress saw them in order, less those the SDK dropped (see LATE_PROGRESS).
  const delivered = values.slice(0, progress.length).map(({ progressToken, ...rest }) => rest);
  check(
    progress.length + lateProgress === 3 && eq(progress, delivered),
    `onprogress got ${j(progress)} (${lateProgress} dropped by the SDK), the server sent ${j(values)}`,
  );
  check(
    logs.some((l) => l.level === 'info' && String(l.data).includes('forecast for Paris over 3 days')),
    `no info log for the forecast: ${j(logs)}`,
  );
  done.push('tools/call forecast (structured, progress, logging)');

  // ---- alerts: a list return wrapped in the single array property its outputSchema
  // declares ({"result": [...]} in Python, {"alerts": [...]} in the Node example)
  const alertProps = Object.entries(tools.alerts.outputSchema.properties ?? {});
  check(
    alertProps.length === 1 && alertProps[0][1].type === 'array',
    `alerts outputSchema should wrap one array: ${j(tools.alerts.outputSchema)}`,
  );
  const key = alertProps[0][0];
  res = await client.callTool({ name: 'alerts', arguments: {} });
  check(res.isError !== true, `alerts isError: ${j(res)}`);
  check(
    eq(res.structuredContent, {
      [key]: [
        { city: 'London', level: 'warning', message: 'Heavy rain' },
        { city: 'Lima', level: 'info', message: 'Morning fog' },
      ],
    }),
    `alerts structuredContent: ${j(res)}`,
  );
  res = await client.callTool({ name: 'alerts', arguments: { country: 'pe' } });
  check(
    eq(res.structuredContent, { [key]: [{ city: 'Lima', level: 'info', message: 'Morning fog' }] }),
    `alerts(country=pe) structuredContent: ${j(res)}`,
  );
  done.push('tools/call alerts');

  // ---- weather_map: an image and a resource link
  res = await client.callTool({ name: 'weather_map', arguments: { city: 'Lima' } });
  check(res.isError !== true, `weather_map isError: ${j(res)}`);
  const images = res.content.filter((c) => c.type === 'image');
  const links = res.content.filter((c) => c.type === 'resource_link');
  check(
    images.length === 1 && images[0].mimeType === 'image/png' && images[0].data,
    `weather_map image: ${j(res)}`,
  );
  check(
    links.length === 1 && links[0].uri === 'weather://lima/now' && links[0].name === 'Lima now',
    `weather_map resource_link: ${j(res)}`,
  );
  done.push('tools/call weather_map');

  // ---- plan_trip: elicitation, then sampling
  res = await client.callTool({ name: 'plan_trip', arguments: {} });
  check(res.isError !== true, `plan_trip isError: ${j(res)}`);
  const tripText = res.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');
  check(
    tripText.includes('tokyo') && tripText.includes(SAMPLED),
    `plan_trip text lacks the city or the sample: ${j(tripText)}`,
  );
  check(elicitations.length === 1, `elicitations: ${elicitations.length}`);
  const el = elicitations[0];
  check(
    el.message === 'Where would you like to go?' &&
      (el.mode ?? 'form') === 'form' &&
      eq(el.requestedSchema?.required, ['city']),
    `elicitation request: ${j(el)}`,
  );
  check(samplings.length === 1, `samplings: ${samplings.length}`);
  const sm = samplings[0];
  check(
    sm.maxTokens === 60 && sm.messages?.[0]?.content?.type === 'text' && sm.messages[0].content.text.includes('tokyo'),
    `sampling request: ${j(sm)}`,
  );
  done.push('tools/call plan_trip (elicitation + sampling)');

  // ---- the error path: _city() raises McpError(-32602) -> a JSON-RPC error, not isError
  let err = null;
  try {
    res = await client.callTool({ name: 'forecast', arguments: { city: 'Atlantis' } });
  } catch (e) {
    err = e;
  }
  check(err !== null, `forecast with an unknown city gave a result, want a JSON-RPC error: ${j(res)}`);
  check(err instanceof McpError, `unknown city: ${err?.name}: ${err?.message}`);
  check(err.code === INVALID_PARAMS, `unknown city: error code ${err.code}, want ${INVALID_PARAMS}`);
  check(err.message.includes('Atlantis'), `unknown city: error message ${j(err.message)}`);
  check(eq(err.data, { known: CITIES }), `unknown city: error data ${j(err.data)}`);
  done.push('JSON-RPC error');

  // ---- resources
  const resources = (await client.listResources()).resources;
  const cities = resources.find((r) => r.uri === 'weather://cities');
  check(cities, `resources/list lacks weather://cities: ${j(resources.map((r) => r.uri))}`);
  check(cities.mimeType === 'application/json', `weather://cities mimeType: ${j(cities)}`);
  const templates = (await client.listResourceTemplates()).resourceTemplates;
  check(
    templates.some((t) => t.uriTemplate === 'weather://{city}/now'),
    `resources/templates/list lacks weather://{city}/now: ${j(templates.map((t) => t.uriTemplate))}`,
  );
  let read = await client.readResource({ uri: 'weather://cities' });
  check(read.contents.length === 1, `read weather://cities: ${j(read)}`);
  let item = read.contents[0];
  check(
    item.uri === 'weather://cities' &&
      item.mimeType === 'application/json' &&
      typeof item.text === 'string' &&
      eq(JSON.parse(item.text), CITIES),
    `read weather://cities: ${j(read)}`,
  );
  read = await client.readResource({ uri: 'weather://paris/now' });
  item = read.contents[0];
  check(
    item?.uri === 'weather://paris/now' &&
      typeof item.text === 'string' &&
      eq(JSON.parse(item.text), { name: 'Paris', country: 'FR', temp_c: 18.5, sky: 'sunny' }),
    `read weather://paris/now: ${j(read)}`,
  );
  await client.subscribeResource({ uri: 'weather://cities' });
  done.push('resources (list, templates, read x2, subscribe)');

  // ---- prompts
  const prompts = (await client.listPrompts()).prompts;
  const pl = prompts.find((p) => p.name === 'packing_list');
  check(pl, `prompts/list lacks packing_list: ${j(prompts.map((p) => p.name))}`);
  check(
    eq(
      (pl.arguments ?? []).map((a) => a.name),
      ['city', 'days'],
    ),
    `packing_list arguments: ${j(pl.arguments)}`,
  );
  const prompt = await client.getPrompt({ name: 'packing_list', arguments: { city: 'london', days: '5' } });
  check(
    eq(prompt.messages, [
      { role: 'user', content: { type: 'text', text: 'I am going to london for 5 days; the sky is rain.' } },
      { role: 'user', content: { type: 'text', text: 'What should I pack?' } },
    ]),
    `packing_list messages: ${j(prompt)}`,
  );
  done.push('prompts');

  // ---- completion: the prompt argument and the template variable
  let comp = await client.complete({
    ref: { type: 'ref/prompt', name: 'packing_list' },
    argument: { name: 'city', value: 'p' },
  });
  check(eq(comp.completion.values, ['paris']), `complete prompt city 'p': ${j(comp)}`);
  comp = await client.complete({
    ref: { type: 'ref/resource', uri: 'weather://{city}/now' },
    argument: { name: 'city', value: 'L' },
  });
  check(eq(comp.completion.values, ['lima', 'london']), `complete template city 'L': ${j(comp)}`);
  done.push('completion x2');

  await client.ping();
  done.push('ping');
  check(!closed, 'the connection closed during the session');
  closing = true;
  await client.close();
  return done;
}

h.finish(main(), (done) => process.stdout.write(`${PREFIX}: ok (${done.join(', ')})\n`));
