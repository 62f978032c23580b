// passes: embedded — the CLI's side; the archive, restore and delete routes run in the cluster pass (test/canvases*.test.ts)
// `easel archive`, `easel restore <canvas>` and `easel delete <canvas> [--yes]`
// (issue 38 item 6.1): in process against a listening app for the answers and
// the terminal's confirmation, and as a process for `restore`'s choice
// between a canvas and a backup.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canvasCommand, type CanvasCommand } from '../src/cli/canvas-commands.ts';
import { restoresACanvas } from '../src/cli/canvas-lifecycle.ts';
import { writeLink } from '../src/cli/project-link.ts';
import { zipOf } from './deploy-fixtures.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { runToExit } from './spawn.ts';

let app: TestApp;
let work: string;
let cookie: string;
let env: Record<string, string>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'easel-cli-life-'));
  app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  cookie = await app.signIn('owner@example.com');
  const made = await body(await app.request('/api/tokens', { method: 'POST', cookie, json: { name: 'cli' } }));
  env = { EASEL_TOKEN: made.token, EASEL_API_BASE_URL: app.base, HOME: work, XDG_CONFIG_HOME: join(work, 'cfg') };
});
afterAll(async () => {
  await app.close();
  rmSync(work, { recursive: true, force: true });
});

/** One command in process; `answer` is what the person types at the terminal (none: not a terminal). */
async function easel(command: CanvasCommand, argv: string[], answer?: string) {
  let stdout = '';
  let stderr = '';
  const questions: string[] = [];
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), isTTY: answer !== undefined };
  const ask = async (q: string) => (questions.push(q), answer ?? null);
  const code = await canvasCommand(command, argv, env, io, { cwd: work, ...(answer !== undefined ? { ask } : {}) });
  return { code, stdout, stderr, questions };
}

async function newCanvas(title: string, slug: string): Promise<{ id: string; slug: string; url: string; apiKey: string }> {
  return body(await app.request('/api/canvases', { method: 'POST', cookie, json: { title, slug } }));
}
const statusOf = async (id: string) => (await app.request(`/api/canvases/${id}`, { cookie })).status;

describe('easel archive and easel restore', () => {
  test('archive stops the canvas, restore brings it back; each by slug, with --json', async () => {
    const c = await newCanvas('Shelf', 'shelf');
    const archived = await easel('archive', ['shelf']);
    expect(archived).toMatchObject({ code: 0, stderr: '' });
    expect(archived.stdout).toBe('archived Shelf (shelf): it no longer answers; easel restore shelf brings it back\n');
    expect((await body(await app.request(`/api/canvases/${c.id}`, { cookie }))).status).toBe('archived');
    const restored = await easel('restore', [c.id, '--json']);
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ id: c.id, status: 'active' });
    // A canvas with a live version answers again, at its address.
    const put = await app.request(`/v1/canvases/${c.id}/deploy`, {
      method: 'PUT',
      body: zipOf({ 'index.html': 'shelf' }),
      headers: { authorization: `Bearer ${c.apiKey}` },
    });
    expect(put.status).toBe(200);
    expect((await easel('archive', ['shelf'])).code).toBe(0);
    expect((await easel('restore', ['shelf'])).stdout).toBe(`restored Shelf: it answers again at ${c.url}\n`);
  });

  test('no canvas named, or an unknown one: usage (2) and NOT_FOUND (1)', async () => {
    expect((await easel('archive', [])).code).toBe(2);
    const unknown = await easel('restore', ['no-such-canvas']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toStartWith('easel restore: NOT_FOUND: ');
  });
});

describe('easel delete', () => {
  test('not at a terminal it needs --yes; with it the canvas is gone', async () => {
    const c = await newCanvas('Scratch', 'scratch');
    const refused = await easel('delete', ['scratch']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    expect(await statusOf(c.id)).toBe(200);
    const done = await easel('delete', ['scratch', '--yes', '--json']);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({ deleted: { id: c.id, slug: 'scratch' } });
    expect(await statusOf(c.id)).toBe(404);
  });

  test('at a terminal it asks for the slug: anything else deletes nothing', async () => {
    const c = await newCanvas('Keep me', 'keep-me');
    const wrong = await easel('delete', ['keep-me'], 'Keep me');
    expect(wrong.questions).toHaveLength(1);
    expect(wrong.questions[0]).toContain('Type its slug (keep-me) to confirm');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('not deleted: the slug typed was not keep-me');
    expect(await statusOf(c.id)).toBe(200);
    const right = await easel('delete', ['keep-me'], 'keep-me\n');
    expect(right.code).toBe(0);
    expect(right.stdout).toBe('deleted Keep me (keep-me); its address no longer answers and the slug is free again\n');
    expect(await statusOf(c.id)).toBe(404);
  });
});

describe('a folder linked to a canvas that is gone', () => {
  test('easel versions and easel deploy there say the link names it, and how to link another', async () => {
    const c = await newCanvas('Linked', 'linked-then-gone');
    const folder = join(work, 'linked-site');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'index.html'), '<h1>hi</h1>');
    writeLink(folder, { instance: app.base, canvasId: c.id, slug: 'linked-then-gone' });
    expect((await easel('delete', ['linked-then-gone', '--yes'])).code).toBe(0);
    const hint = `${join(folder, '.easel.json')} links this folder to canvas ${c.id}, which is gone or not yours to manage: run easel link <canvas> to link it to another`;
    for (const args of [['versions'], ['deploy']]) {
      const run = await runToExit({ args, cwd: folder, env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`easel ${args[0]}: NOT_FOUND: canvas not found (`);
      expect(run.stderr).toContain(hint);
    }
  });
});

describe('easel restore: a canvas or a backup', () => {
  test('a slug-like name that is no file here is a canvas; a file, a folder or --data-dir is a backup', () => {
    mkdirSync(join(work, 'nightly'), { recursive: true });
    expect(restoresACanvas(['shelf'], work)).toBe(true);
    expect(restoresACanvas(['shelf', '--json'], work)).toBe(true);
    expect(restoresACanvas(['nightly'], work)).toBe(false);
    expect(restoresACanvas(['backup.tar'], work)).toBe(false);
    expect(restoresACanvas(['shelf', '--data-dir', 'd'], work)).toBe(false);
    expect(restoresACanvas([], work)).toBe(false);
  });

  test('as a process: easel archive then easel restore <slug> reach the canvas', async () => {
    const c = await newCanvas('Process', 'process-canvas');
    const run = (args: string[]) => runToExit({ args, cwd: work, env });
    const archived = await run(['archive', 'process-canvas']);
    expect([archived.code, archived.stderr]).toEqual([0, '']);
    const restored = await run(['restore', 'process-canvas']);
    expect([restored.code, restored.stderr]).toEqual([0, '']);
    // Nothing was ever published on it: restoring gives back no page, and says so.
    expect(restored.stdout).toStartWith('restored Process: nothing is published on it yet (easel deploy gives it its page at ');
    expect((await body(await app.request(`/api/canvases/${c.id}`, { cookie }))).status).toBe('active');
    // Not a terminal (stdin is ignored): delete without --yes refuses.
    expect((await run(['delete', 'process-canvas'])).code).toBe(2);
  });
});
