// @ts-check
// The official extensions in one runnable program (node examples/node/extensions.mjs).
//
// A server that serves skills (the examples/skills directory), runs a tool as a task (it
// reports progress, asks the user a question, then answers) and links that tool to an MCP App
// view; and a client that loads and verifies a skill, follows the task to its end (answering
// its question), keeps another task's handle and cancels it, and reads the app's view with the
// Content-Security-Policy to render it with. Both ends run here, over the in-memory transport
// (the stdio code path); Client.stdio or Client.http reach the same server elsewhere.
import { fileURLToPath } from 'node:url';
import { Client, Server, TaskHandle } from 'hypermcp';

const SKILLS = fileURLToPath(new URL('../skills', import.meta.url));
const VIEW = '<!doctype html>\n<html><body><h1>Report</h1><p id="status">waiting for the report...</p></body></html>\n';
/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const server = new Server({ name: 'extensions-demo', tasks: { pollInterval: 50 } });
server.skills(SKILLS);
server.app('ui://demo/report', { html: VIEW });
server.tool(
  'build_report',
  {
    description: 'Builds a report page by page, then asks whether to publish it (runs as a task)',
    inputSchema: { type: 'object', properties: { pages: { type: 'integer' } } },
    task: true,
    ui: 'ui://demo/report',
  },
  async ({ pages = 3 }, ctx) => {
    for (let page = 1; page <= pages; page++) {
      if (ctx.signal.aborted) throw new Error('cancelled');
      await sleep(20);
      await ctx.reportProgress(page, pages, `page ${page} of ${pages}`);
    }
    const schema = { type: 'object', properties: { publish: { type: 'boolean' } }, required: ['publish'] };
    const answer = await ctx.elicit(`Publish the ${pages}-page report?`, schema);
    const publish = answer.action === 'accept' && answer.content?.publish === true;
    return `report of ${pages} pages ${publish ? 'published' : 'kept as a draft'}`;
  },
);

const client = await Client.inMemory(server, {
  tasks: true,
  apps: true,
  onElicitation: async (params) => {
    console.log(`  the task asks: ${params.message} -> yes`);
    return { action: 'accept', content: { publish: true } };
  },
});
try {
  // Skills: listed without fetching; SKILL.md and each file verified when read.
  const { skills } = await client.listSkills();
  console.log(`skills: ${skills.map((s) => s.frontmatter.name).join(', ')}`);
  const pdf = skills.find((s) => s.frontmatter.name === 'pdf-processing');
  if (!pdf) throw new Error('no pdf-processing skill');
  const loaded = await client.loadSkill(pdf);
  const forms = await loaded.readText('references/FORMS.md');
  console.log(`  ${loaded.name}: ${loaded.text.length} bytes of SKILL.md, ${forms.length} of FORMS.md (verified)`);

  // Tasks: callTool follows the task to its end; its question reaches onElicitation above.
  const result = await client.callTool('build_report', { pages: 3 });
  const [first] = result.content;
  console.log(`task followed to its end: ${first.type === 'text' ? first.text : first.type}`);
  const handle = await client.callToolTask('build_report', { pages: 500 });
  if (!(handle instanceof TaskHandle)) throw new Error('the server did not answer with a task');
  console.log(`task kept: ${handle.id} is ${(await handle.status()).status}`);
  await handle.cancel();
  console.log(`  after cancel: ${(await handle.status()).status}`);

  // MCP Apps: the tool's view, and how to render it.
  const { tools } = await client.listTools();
  const ui = /** @type {{ resourceUri?: string } | undefined} */ (tools.find((t) => t.name === 'build_report')?._meta?.ui);
  if (!ui?.resourceUri) throw new Error('build_report links no view');
  const app = await client.readApp(ui.resourceUri);
  console.log(`app view: ${app.uri}, ${app.html.length} bytes of HTML, CSP ${JSON.stringify(app.cspHeader)}`);
} finally {
  await client.close();
}
