// The MCP conformance-suite client: `node conformance_client.mjs <server-url>`.
//
// The official harness (`@modelcontextprotocol/conformance client`) starts a mock server per
// scenario and runs this with the scenario name in MCP_CONFORMANCE_SCENARIO:
// - initialize: connect (Streamable HTTP, protocol 2025-11-25) and list the tools;
// - tools_call: call `add_numbers` with {a, b};
// - elicitation-sep1034-client-defaults: accept the server's elicitation with every default
//   its schema gives;
// - sse-retry (and anything else): call each tool; the transport resumes broken SSE streams
//   with Last-Event-ID after the server's `retry` delay;
// - sep-2640-client-no-prefetch: list the skills, fetch nothing;
// - sep-2640-client-verify-*: load the first skill and read its files, each verified against
//   the skill's entry; a file failing verification is refused (printed, exit 0).
// The era comes from MCP_CONFORMANCE_PROTOCOL_VERSION: 2026-07-28 runs the stateless client
// (mode "modern": per-request _meta and Mcp-* headers, input_required answered through
// onElicitation, tools with invalid x-mcp-header annotations dropped), which calls each tool
// (with the arguments MCP_CONFORMANCE_CONTEXT gives, else sample values of the required
// ones), reads every resource and gets every prompt; another revision runs the initialize
// handshake; unset, the client probes (mode "auto").
// The auth/* scenarios put an OAuth-protected server before the same plays: the client
// authorizes with the `auth` option (onAuthorize reads the redirect the harness's
// authorization servers answer with at once; its Client ID Metadata Document URL; the pre-registered
// credentials MCP_CONFORMANCE_CONTEXT gives, a secret or a private key; the workload token of
// auth/wif-jwt-bearer and the identity provider of auth/enterprise-managed-authorization;
// DPoP where the authorization server offers it).
// Exits 0 on success, 1 with a message otherwise.
import { Client, SkillVerificationError } from '../../bindings-node/js/index.mjs';

/** The harness's Client ID Metadata Document URL (its authorization servers accept it as is). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** OAuth options for an auth/* scenario. */
function conformanceAuth(scenario) {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
  let grant = 'authorization_code';
  if (scenario.startsWith('auth/client-credentials')) grant = 'client_credentials';
  else if (scenario === 'auth/wif-jwt-bearer') grant = 'jwt_bearer';
  else if (scenario === 'auth/enterprise-managed-authorization') grant = 'enterprise_managed';
  return {
    clientId: context.client_id,
    clientSecret: context.client_secret,
    privateKeyPem: context.private_key_pem,
    signingAlgorithm: context.signing_algorithm,
    assertion: context.valid_jwt,
    idToken: context.idp_id_token,
    idpTokenEndpoint: context.idp_token_endpoint,
    idpClientId: context.idp_client_id,
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientName: 'hypermcp-conformance-client',
    redirectUri: 'http://localhost:3000/callback',
    grant,
    onAuthorize: approve,
  };
}

/**
 * The app's side of the authorization: the harness's authorization servers approve at once,
 * so their answer to the authorization URL is the redirect (read, not followed).
 */
async function approve(url, redirectUri) {
  const r = await fetch(url, { redirect: 'manual' });
  const location = r.headers.get('location');
  if (r.status >= 300 && r.status < 400 && location) return location;
  throw new Error(`${url} answered ${r.status} instead of redirecting to ${redirectUri}`);
}

/** Accepts a form elicitation with the defaults of its schema applied. */
function acceptDefaults(params) {
  const props = params.requestedSchema?.properties ?? {};
  const content = {};
  for (const [name, schema] of Object.entries(props)) {
    if (schema && 'default' in schema) content[name] = schema.default;
  }
  return { action: 'accept', content };
}

/** Sample values for a tool's required parameters. */
function sampleArguments(schema) {
  const samples = { integer: 1, number: 1, boolean: true, object: {}, array: [] };
  const args = {};
  for (const name of schema?.required ?? []) {
    args[name] = samples[schema.properties?.[name]?.type] ?? 'us-west1';
  }
  return args;
}

/**
 * A host passing a tool's inputSchema on (to a model, a validator) as the server listed it:
 * every JSON Schema 2020-12 keyword kept ($schema, $defs, $anchor, additionalProperties,
 * allOf/anyOf, if/then/else). The server's echo tool receives it back and the harness compares.
 * @param {Client} client
 */
async function playSchemaEcho(client) {
  const { tools } = await client.listTools();
  const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
  if (!focal) throw new Error('the server lists no json_schema_2020_12_tool');
  const r = await client.callTool('json_schema_echo', { schema: focal.inputSchema });
  console.log(`json_schema_echo: ${r.content?.[0]?.text ?? ''}`);
}

async function playModern(client) {
  const caps = client.serverCapabilities;
  if (caps.tools) {
    const { tools } = await client.listTools();
    const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
    const calls = context.toolCalls ?? tools.map((t) => ({ name: t.name, arguments: sampleArguments(t.inputSchema) }));
    for (const call of calls) {
      const r = await client.callTool(call.name, call.arguments ?? {});
      console.log(`${call.name}: ${r.content?.[0]?.text ?? ''}`);
    }
  }
  if (caps.resources) {
    for (const r of (await client.listResources()).resources) await client.readResource(r.uri);
  }
  if (caps.prompts) {
    for (const p of (await client.listPrompts()).prompts) await client.getPrompt(p.name);
  }
}

/**
 * A host loading the first listed skill (its SKILL.md, verified against the entry), then
 * reading its other files as the model asks for them. Content failing verification is refused
 * and nothing more of the skill is read: that ends the scenario, not as an error.
 * @param {Client} client
 */
async function playSkills(client) {
  const { skills } = await client.listSkills();
  if (skills.length === 0) throw new Error('the server lists no skill');
  try {
    const loaded = await client.loadSkill(skills[0]);
    console.log(`loaded ${loaded.uri} (${loaded.text.length} characters)`);
    for (const uri of loaded.files) {
      if (uri !== loaded.uri) console.log(`read ${uri} (${(await loaded.read(uri)).length} bytes)`);
    }
  } catch (err) {
    if (!(err instanceof SkillVerificationError)) throw err;
    console.log(`refused ${skills[0].uri}: ${err.message}`);
  }
}

async function play(scenario, url) {
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const mode = version === undefined ? 'auto' : version === '2026-07-28' ? 'modern' : 'legacy';
  const client = await Client.http(url, {
    name: 'hypermcp-conformance-client',
    mode,
    onElicitation: scenario.startsWith('elicitation') || mode !== 'legacy' ? acceptDefaults : undefined,
    auth: scenario.startsWith('auth/') ? conformanceAuth(scenario) : undefined,
  });
  try {
    if (scenario === 'sep-2640-client-no-prefetch') {
      // A host builds its skill registry from the listing and fetches nothing more.
      for (const skill of (await client.listSkills()).skills) console.log(`skill ${skill.frontmatter.name}: ${skill.frontmatter.description}`);
      return;
    }
    if (scenario.startsWith('sep-2640-client-verify')) {
      await playSkills(client);
      return;
    }
    if (scenario === 'json-schema-2020-12-preservation') {
      await playSchemaEcho(client);
      return;
    }
    if (client.modern && scenario !== 'initialize' && scenario !== 'tools_call') {
      await playModern(client);
      return;
    }
    const tools = client.serverCapabilities.tools ? (await client.listTools()).tools : [];
    if (scenario === 'initialize') return;
    if (scenario === 'tools_call') {
      const r = await client.callTool('add_numbers', { a: 5, b: 3 });
      console.log('add_numbers:', r.content?.[0]?.text);
      return;
    }
    for (const tool of tools) {
      const r = await client.callTool(tool.name, {});
      console.log(`${tool.name}: ${r.content?.[0]?.text ?? ''}`);
    }
  } finally {
    await client.close();
  }
}

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
if (!url) {
  console.error('usage: conformance_client.mjs <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)');
  process.exit(2);
}
const timer = setTimeout(() => {
  console.error(`scenario ${JSON.stringify(scenario)} against ${url}: timed out`);
  process.exit(1);
}, 25_000);
try {
  await play(scenario, url);
  clearTimeout(timer);
} catch (err) {
  console.error(`scenario ${JSON.stringify(scenario)} against ${url}: ${err?.stack ?? err}`);
  process.exit(1);
}
