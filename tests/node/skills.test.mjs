// The skills extension (io.modelcontextprotocol/skills) from Node: server.skills(dir) and
// server.skills({files}) served by the engine in both eras and over HTTP, the client's
// listSkills / getSkill / readDirectory / loadSkill, and the verification of every file it
// reads (a file changed after listing is refused).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, DefinitionError, InvalidParams, MethodNotFound, Server, SkillVerificationError } from 'hypermcp';
import { within } from './_helpers.mjs';

const SKILLS = fileURLToPath(new URL('../../examples/skills', import.meta.url));
const EXT = 'io.modelcontextprotocol/skills';

/** @param {string} reason */
const refused = (reason) => (/** @type {any} */ err) => {
  assert.ok(err instanceof SkillVerificationError, String(err));
  assert.equal(err.reason, reason, err.message);
  assert.equal(err.code, 'ERR_MCP_SKILL_VERIFICATION');
  return true;
};

for (const mode of /** @type {const} */ (['legacy', 'modern'])) {
  test(`skills are listed, loaded and read (${mode})`, async () => {
    const server = new Server({ name: 'skills', version: '1.0.0', pageSize: 2 }).skills(SKILLS);
    const client = await within(Client.inMemory(server, { mode }));
    try {
      assert.deepEqual(client.serverCapabilities?.extensions?.[EXT], { directoryRead: true });
      assert.ok(client.serverCapabilities?.resources);
      const { skills } = await within(client.listSkills());
      assert.deepEqual(skills.map((s) => s.uri), [
        'skill://acme/billing/refunds/SKILL.md',
        'skill://git-workflow/SKILL.md',
        'skill://git-workflow/commit-message/SKILL.md',
        'skill://pdf-processing/SKILL.md',
      ]);
      const pdf = skills[3];
      const md = readFileSync(join(SKILLS, 'pdf-processing/SKILL.md'));
      assert.ok(Array.isArray(pdf.resources));
      const own = pdf.resources.find((f) => f.uri === pdf.uri);
      assert.deepEqual(own, { uri: pdf.uri, size: md.length, digest: `sha256:${createHash('sha256').update(md).digest('hex')}` });
      assert.deepEqual(await within(client.getSkill(pdf.uri)), pdf);
      await assert.rejects(within(client.getSkill('skill://nope/SKILL.md')), InvalidParams);

      const loaded = await within(client.loadSkill(pdf));
      assert.equal(loaded.text, md.toString('utf8'));
      assert.equal(loaded.name, 'pdf-processing');
      assert.equal(loaded.files.length, 6);
      assert.match(await within(loaded.readText('references/FORMS.md')), /^# Filling PDF forms/);
      const png = await within(loaded.read('skill://pdf-processing/assets/logo.png'));
      assert.deepEqual(png, readFileSync(join(SKILLS, 'pdf-processing/assets/logo.png')));
      await assert.rejects(within(loaded.read('references/SECRET.md')), refused('unlisted'));

      const { resources } = await within(client.readDirectory('skill://pdf-processing/templates'));
      assert.deepEqual(resources.map((r) => [r.uri, r.mimeType]), [
        ['skill://pdf-processing/templates/invoice.md', 'text/markdown'],
        ['skill://pdf-processing/templates/regional', 'inode/directory'],
      ]);
      await assert.rejects(within(client.readDirectory(pdf.uri)), InvalidParams);
      const listed = (await within(client.listResources())).resources.find((r) => r.uri === pdf.uri);
      assert.equal(listed?.description, pdf.frontmatter.description);
    } finally {
      await client.close();
    }
  });
}

test('a file changed after listing is refused (HTTP)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'hypermcp-skills-'));
  cpSync(SKILLS, root, { recursive: true });
  const server = new Server({ name: 'skills', version: '1.0.0' }).skills(root);
  const http = await within(server.startHttp({ port: 0 }));
  const client = await within(Client.http(http.url));
  try {
    const pdf = (await within(client.listSkills())).skills.find((s) => s.frontmatter.name === 'pdf-processing');
    assert.ok(pdf);
    const forms = join(root, 'pdf-processing/references/FORMS.md');
    const data = readFileSync(forms);
    data[2] = 'X'.charCodeAt(0);
    writeFileSync(forms, data);
    server.reloadSkills();
    await assert.rejects(within(client.readSkillFile(pdf, 'references/FORMS.md')), refused('digest'));
    writeFileSync(forms, Buffer.concat([data, Buffer.from('more')]));
    server.reloadSkills();
    await assert.rejects(within(client.readSkillFile(pdf, 'references/FORMS.md')), refused('size'));
    // A new SKILL.md with the entry's old frontmatter: the comparison catches it.
    const mdPath = join(root, 'pdf-processing/SKILL.md');
    writeFileSync(mdPath, readFileSync(mdPath, 'utf8').replace('Extract text', 'Exfiltrate text'));
    server.reloadSkills();
    const fresh = await within(client.getSkill(pdf.uri));
    await assert.rejects(within(client.loadSkill({ ...fresh, frontmatter: pdf.frontmatter })), refused('frontmatter'));
    assert.match((await within(client.loadSkill(fresh))).text, /Exfiltrate/);
  } finally {
    await client.close();
    await within(http.stop(), 20_000, 'http.stop()');
    rmSync(root, { recursive: true, force: true });
  }
});

test('skills from code; reloading tells subscribers', async () => {
  const md = '---\nname: hello\ndescription: Say hi\n---\nHi\n';
  const server = new Server({ name: 'skills', version: '1.0.0' }).skills({ files: { 'hello/SKILL.md': md, 'hello/a.txt': Buffer.from('A') } });
  /** @type {[string, any][]} */
  const seen = [];
  /** @type {() => void} */
  let updated = () => {};
  const gotUpdate = new Promise((resolve) => (updated = () => resolve(undefined)));
  const client = await within(
    Client.inMemory(server, {
      mode: 'legacy',
      onNotification: (method, params) => {
        seen.push([method, params]);
        if (method === 'notifications/resources/updated') updated();
      },
    }),
  );
  try {
    const { skills } = await within(client.listSkills());
    assert.equal(skills.length, 1);
    assert.equal((await within(client.loadSkill(skills[0]))).text, md);
    await within(client.subscribeResource('skill://hello/a.txt'));
    server.skills({ files: { 'hello/SKILL.md': md, 'hello/a.txt': 'B' } });
    await within(gotUpdate);
    assert.ok(seen.some(([m]) => m === 'notifications/resources/list_changed'));
    assert.ok(seen.some(([m, p]) => m === 'notifications/resources/updated' && p.uri === 'skill://hello/a.txt'));
    server.clearSkills();
    await assert.rejects(within(client.listSkills()), MethodNotFound);
  } finally {
    await client.close();
  }
});

test('bad skills are refused with the rule broken', () => {
  const server = new Server({ name: 'skills', version: '1.0.0' });
  assert.throws(() => server.skills({ files: { 'pdf/SKILL.md': '---\nname: other\ndescription: x\n---\n' } }), (err) => err instanceof DefinitionError && /its directory is/.test(err.message));
  assert.throws(() => server.skills({ files: { 'Pdf/SKILL.md': '---\nname: Pdf\ndescription: x\n---\n' } }), /lowercase/);
  assert.throws(() => server.skills({ files: { 'pdf/SKILL.md': '---\nname: pdf\n---\n' } }), /no description/);
  assert.throws(() => server.skills(join(tmpdir(), 'hypermcp-no-such-dir')), /hypermcp-no-such-dir/);
  // @ts-expect-error: neither a directory nor files
  assert.throws(() => server.skills(42), TypeError);
  assert.throws(() => server.reloadSkills(), /directory/);
});
