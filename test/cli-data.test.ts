// passes: embedded — the CLI's side; the export routes it calls run in the cluster pass (test/canvas-data.test.ts)
// `easel data export …` as a real process against a listening server: the
// linked canvas or --canvas, a file or stdout, the bytes the export route
// gives, and refusals that leave no file behind.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLink } from '../src/cli/project-link.ts';
import { body } from './harness.ts';
import { runToExit } from './spawn.ts';
import { World } from './world.ts';

const w = new World({ reset: 'none', listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
let work: string;
let ownerToken: string;

const easel = (args: string[], token = ownerToken, cwd = work) =>
  runToExit({ args: ['data', 'export', ...args], cwd, env: { HOME: work, XDG_CONFIG_HOME: join(work, 'cfg'), EASEL_TOKEN: token } });
const route = async (path: string) =>
  new Uint8Array(await (await w.app.request(`/api/canvases/${w.canvas.id}/data${path}`, { cookie: w.cookie.owner })).arrayBuffer());

beforeAll(async () => {
  await w.start();
  await w.deploy();
  work = mkdtempSync(join(tmpdir(), 'easel-cli-data-'));
  writeLink(work, { instance: w.app.base, canvasId: w.canvas.id, slug: w.canvas.slug });
  ownerToken = (await body(await w.request('owner', '/api/tokens', { method: 'POST', json: { name: 'export' } }))).token;
  const rt = (path: string, init: RequestInit & { json?: unknown }) =>
    w.app.request(`/v1/c/${w.canvas.slug}${path}`, { cookie: w.cookie.editor, ...init });
  expect((await rt('/kv/title', { method: 'PUT', json: 'Team, "lunch"' })).status).toBe(200);
  expect((await rt('/submissions/signup/mine', { method: 'PUT', json: { dish: '=soup' } })).status).toBe(200);
  const form = new FormData();
  form.append('file', new Blob(['a,b\n1,2\n']), 'sheet.csv');
  expect((await rt('/files', { method: 'POST', body: form })).status).toBe(201);
});
afterAll(async () => {
  await w.close();
  rmSync(work, { recursive: true, force: true });
});

describe('easel data export', () => {
  test('the linked canvas to --out: the bytes the export route gives, and a line on stderr', async () => {
    const run = await easel(['kv', '--format', 'csv', '--out', 'kv.csv']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^exported \S+ \S+ to kv\.csv\n$/);
    expect(readFileSync(join(work, 'kv.csv'))).toEqual(Buffer.from(await route('/kv?format=csv')));
    expect(readFileSync(join(work, 'kv.csv'), 'utf8')).toContain('"Team, ""lunch"""');
  });

  test('--canvas by slug, to stdout, from any folder: submissions as NDJSON', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'easel-cli-data-unlinked-'));
    try {
      const run = await easel(
        ['submissions', 'signup', '--format', 'ndjson', '--canvas', w.canvas.slug, '--api', w.app.base],
        ownerToken,
        elsewhere,
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(new TextDecoder().decode(await route('/submissions/signup?format=ndjson')));
      expect(JSON.parse(run.stdout.trim())).toMatchObject({ userId: w.ids.editor, value: { dish: '=soup' } });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test('files (the list, JSON by default) and files --zip (the files themselves)', async () => {
    const list = await easel(['files']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'sheet.csv', size: 8 })]);
    const zip = await easel(['files', '--zip', '--out', 'files.zip']);
    expect(zip.code).toBe(0);
    const tested = Bun.spawnSync(['unzip', '-p', 'files.zip', 'sheet.csv'], { cwd: work });
    expect(tested.exitCode).toBe(0);
    expect(tested.stdout.toString()).toBe('a,b\n1,2\n');
  });

  test("a refusal exits 1 with the server's code and leaves no file; usage errors exit 2 before any request", async () => {
    const viewerToken = (await body(await w.request('viewer', '/api/tokens', { method: 'POST', json: { name: 'x' } }))).token;
    const refused = await easel(['kv', '--out', 'refused.json'], viewerToken);
    expect(refused.code).toBe(1);
    // The folder's link names a canvas this person does not manage: the refusal says where the id came from.
    expect(refused.stderr).toStartWith('easel data: NOT_FOUND: canvas not found (');
    expect(refused.stderr).toEndWith(
      '.easel.json links this folder to canvas ' +
        w.canvas.id +
        ', which is gone or not yours to manage: run easel link <canvas> to link it to another)\n',
    );
    const missing = await easel(['collection', 'ghosts', '--out', 'ghosts.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('COLLECTION_NOT_CONFIGURED');
    expect(readdirSync(work).filter((f) => f.startsWith('refused') || f.startsWith('ghosts'))).toEqual([]);
    for (const args of [
      ['collection'],
      ['kv', 'extra'],
      ['kv', '--format', 'xlsx'],
      ['kv', '--zip'],
      ['files', '--zip', '--format', 'csv'],
      ['tables'],
    ]) {
      const bad = await easel(args);
      expect({ args, code: bad.code }).toEqual({ args, code: 2 });
      expect(bad.stderr).toContain('Usage: easel data export');
    }
    expect(existsSync(join(work, 'refused.json'))).toBe(false);
  });
});
