// passes: embedded, cluster
// A canvas's data for its owners (issue 39, items 1 and 2): the summary in
// counts, and exports of exactly what the caller could read through the
// runtime API — JSON, NDJSON and CSV (RFC 4180, formulas defused), streamed,
// audited, with people named.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tx } from '../src/db/sql.ts';
import { setCollections } from './collections-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { body } from './harness.ts';
import { World, type Who } from './world.ts';

const w = new World({ reset: 'none', env: { EASEL_RATELIMIT_ENABLED: 'false' } });
const rt = (path: string, who: Who, init: RequestInit & { json?: unknown } = {}) =>
  w.app.request(`/v1/c/${w.canvas.slug}${path}`, { cookie: w.cookie[who as keyof typeof w.cookie], ...init });
const data = (path: string, who: Who | { token: string }) =>
  w.app.request(
    `/api/canvases/${w.canvas.id}/data${path}`,
    typeof who === 'object' ? { headers: { authorization: `Bearer ${who.token}` } } : { cookie: w.cookie[who as keyof typeof w.cookie] },
  );

beforeAll(async () => {
  await w.start();
  await w.deploy();
  await setCollections(w, { notes: { preset: 'personal' }, poll: { preset: 'collaborative' } });
  for (const [key, value] of [
    ['title', 'Team lunch'],
    ['menu', { mains: ['soup', 'pie'], price: 12 }],
  ] as const)
    expect((await rt(`/kv/${key}`, 'editor', { method: 'PUT', json: value })).status).toBe(200);
  expect((await rt('/kv/user/theme', 'viewer', { method: 'PUT', json: 'dark' })).status).toBe(200);
  expect((await rt('/submissions/signup/mine', 'viewer', { method: 'PUT', json: { dish: 'soup', note: 'no nuts, please' } })).status).toBe(
    200,
  );
  expect(
    (await rt('/submissions/signup/mine', 'editor', { method: 'PUT', json: { dish: '=HYPERLINK("x")', note: 'line one\nline "two"' } }))
      .status,
  ).toBe(200);
  expect((await rt('/collections/notes', 'viewer', { method: 'POST', json: { text: "the viewer's own note" } })).status).toBe(201);
  expect((await rt('/collections/notes', 'owner', { method: 'POST', json: { text: "the owner's note" } })).status).toBe(201);
  expect((await rt('/collections/poll', 'viewer', { method: 'POST', json: { choice: 'pie' } })).status).toBe(201);
});
afterAll(() => w.close());

describe('who may read the data', () => {
  const routes = ['', '/kv', '/collections/poll', '/submissions/signup', '/files', '/files.zip'];
  test('owners and editors; viewers and strangers learn nothing (404); signed out is 401', async () => {
    for (const path of routes) {
      for (const who of ['owner', 'editor'] as const)
        expect({ path, who, status: (await data(path, who)).status }).toEqual({ path, who, status: 200 });
      for (const who of ['viewer', 'stranger'] as const) await expectCode(await data(path, who), 404, 'NOT_FOUND');
      expect((await w.app.request(`/api/canvases/${w.canvas.id}/data${path}`)).status).toBe(401);
    }
  });

  test('an instance admin without a role sees the summary, but exports follow the runtime read rules: 403', async () => {
    expect((await data('', 'admin')).status).toBe(200);
    for (const path of routes.slice(1)) await expectCode(await data(path, 'admin'), 403, 'PERMISSION_DENIED');
  });

  test('a personal access token acts as its person', async () => {
    const { token } = await body(await w.request('owner', '/api/tokens', { method: 'POST', json: { name: 'export' } }));
    expect((await data('/kv', { token })).status).toBe(200);
    const viewers = await body(await w.request('viewer', '/api/tokens', { method: 'POST', json: { name: 'export' } }));
    await expectCode(await data('/kv', { token: viewers.token }), 404, 'NOT_FOUND');
  });

  test('a collection the policy does not configure is 404 COLLECTION_NOT_CONFIGURED; a bad format is 400', async () => {
    await expectCode(await data('/collections/ghosts', 'owner'), 404, 'COLLECTION_NOT_CONFIGURED');
    await expectCode(await data('/kv?format=xlsx', 'owner'), 400, 'INVALID_BODY');
    await expectCode(await data('/kv?format=csv&extra=1', 'owner'), 400, 'INVALID_BODY');
  });
});

describe('the summary', () => {
  test('counts and bytes, the per-viewer scope as counts only', async () => {
    const summary = await body(await data('', 'editor'));
    expect(summary.kv.shared.keys).toBe(2);
    expect(summary.kv.shared.bytes).toBe(
      'title'.length + '"Team lunch"'.length + 'menu'.length + JSON.stringify({ mains: ['soup', 'pie'], price: 12 }).length,
    );
    expect(summary.kv.perViewer).toEqual({ keys: 1, bytes: 'theme'.length + '"dark"'.length, people: 1 });
    expect(summary.collections.map((c: any) => [c.name, c.preset, c.records])).toEqual([
      ['notes', 'personal', 2],
      ['poll', 'collaborative', 1],
    ]);
    expect(summary.submissions).toEqual([{ collection: 'signup', count: 2, bytes: expect.any(Number), updatedAt: expect.any(Number) }]);
    expect(summary.files).toEqual({ count: 0, bytes: 0, groups: [] });
    expect(JSON.stringify(summary)).not.toContain('dark');
  });
});

describe('exports', () => {
  test('shared KV as JSON; the per-viewer scope is never exported', async () => {
    const res = await data('/kv', 'owner');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const day = new Date().toISOString().slice(0, 10);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${w.canvas.slug}-kv-${day}.json"`);
    expect(await res.json()).toEqual([
      { key: 'menu', value: { mains: ['soup', 'pie'], price: 12 } },
      { key: 'title', value: 'Team lunch' },
    ]);
  });

  test('submissions with their people named, as NDJSON', async () => {
    const res = await data('/submissions/signup?format=ndjson', 'editor');
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const byUser = new Map(lines.map((l) => [l.userId, l]));
    expect(byUser.get(w.ids.viewer)).toMatchObject({ email: w.emails.viewer, value: { dish: 'soup', note: 'no nuts, please' } });
    expect(byUser.get(w.ids.viewer).updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(lines).toHaveLength(2);
  });

  test('CSV per RFC 4180: a header row, commas, quotes and newlines quoted, formulas shown as text', async () => {
    const res = await data('/submissions/signup?format=csv', 'owner');
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    const bytes = new Uint8Array(await res.arrayBuffer());
    // A UTF-8 byte order mark first, or Excel reads the file in the system's code page ("CafÃ©").
    expect([...bytes.subarray(0, 4)]).toEqual([0xef, 0xbb, 0xbf, 'u'.charCodeAt(0)]);
    const text = new TextDecoder().decode(bytes);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text).toContain(`"'=HYPERLINK(""x"")","line one\nline ""two"""`);
    // Read back by Python's csv module, a reader spreadsheets agree with, from the bytes as served.
    const script =
      "import csv, io, json, sys; print(json.dumps(list(csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding='utf-8-sig', newline=''), strict=True))))";
    const parsed = Bun.spawnSync(['python3', '-c', script], { stdin: bytes });
    expect(parsed.exitCode).toBe(0);
    const [header, ...rows] = JSON.parse(parsed.stdout.toString()) as string[][];
    expect(header).toEqual(['userId', 'name', 'email', 'updatedAt', 'dish', 'note']);
    const byUser = new Map(rows.map((r) => [r[0], r]));
    expect(byUser.get(w.ids.viewer)!.slice(2)).toEqual([w.emails.viewer, expect.any(String), 'soup', 'no nuts, please']);
    expect(byUser.get(w.ids.editor)!.slice(4)).toEqual([`'=HYPERLINK("x")`, 'line one\nline "two"']);
    expect(rows).toHaveLength(2);
  });

  test("a personal preset's records reach the owner only when the policy lets them read them", async () => {
    const notes = await (await data('/collections/notes', 'owner')).json();
    expect(notes.map((n: any) => n.value.text)).toEqual(["the owner's note"]);
    const poll = await (await data('/collections/poll', 'owner')).json();
    expect(poll).toEqual([
      {
        id: expect.any(String),
        authorId: w.ids.viewer,
        name: expect.any(String),
        email: w.emails.viewer,
        updatedAt: expect.any(String),
        value: { choice: 'pie' },
      },
    ]);
  });

  test('files: the list the caller may read, with the uploader named', async () => {
    const form = new FormData();
    form.append('file', new Blob(['a,b\n1,2\n']), 'sheet.csv');
    expect((await rt('/files', 'editor', { method: 'POST', body: form })).status).toBe(201);
    const listed = await (await data('/files', 'owner')).json();
    expect(listed).toEqual([
      expect.objectContaining({ name: 'sheet.csv', size: 8, scope: 'shared', uploadedBy: w.ids.editor, uploaderEmail: w.emails.editor }),
    ]);
  });

  test('files.zip: every readable file, names made safe and unique, readable by Info-ZIP', async () => {
    const upload = async (name: string, content: string) => {
      const form = new FormData();
      form.append('file', new Blob([content]), name);
      expect((await rt('/files', 'editor', { method: 'POST', body: form })).status).toBe(201);
    };
    await upload('report.txt', 'first report');
    await upload('report.txt', 'second report');
    await upload('REPORT.txt', 'third report');
    await upload('../evil.txt', 'not outside');
    const res = await data('/files.zip', 'owner');
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="${w.canvas.slug}-files-\\d{4}-\\d\\d-\\d\\d\\.zip"$`),
    );
    const dir = mkdtempSync(join(tmpdir(), 'easel-zip-'));
    try {
      writeFileSync(join(dir, 'files.zip'), new Uint8Array(await res.arrayBuffer()));
      const tested = Bun.spawnSync(['unzip', '-t', 'files.zip'], { cwd: dir });
      expect(tested.exitCode).toBe(0);
      const listed = Bun.spawnSync(['unzip', '-Z1', 'files.zip'], { cwd: dir }).stdout.toString().trim().split('\n').sort();
      // Unique even where file systems ignore case; nothing outside the archive's own folder.
      // Which of two uploads in the same millisecond is numbered first is the store's (created_at, id) order: not asserted.
      const reports = listed.filter((n) => /report/i.test(n));
      expect(reports.map((n) => n.toLowerCase()).sort()).toEqual(['report (2).txt', 'report (3).txt', 'report.txt']);
      expect(listed.filter((n) => /evil/.test(n))).toEqual(['evil.txt']);
      expect(listed.every((n) => !n.includes('/') && !n.startsWith('.'))).toBe(true);
      const contents = reports.map((n) => Bun.spawnSync(['unzip', '-p', 'files.zip', n], { cwd: dir }).stdout.toString());
      expect(contents.sort()).toEqual(['first report', 'second report', 'third report']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('each export is audited with what was exported, never the data', async () => {
    await data('/submissions/signup?format=csv', 'editor');
    const entries = await w.app.ctx.audit.forCanvas(w.canvas.id, 50);
    const exports = entries.filter((e) => e.action === 'data.export');
    expect(exports[0]).toMatchObject({ actorId: w.ids.editor, detail: { kind: 'submissions', name: 'signup', format: 'csv' } });
    expect(JSON.stringify(exports)).not.toContain('soup');
  });

  test('10,000 records stream out in pieces, every one of them', async () => {
    await w.app.ctx.sql.write(function* () {
      for (let i = 0; i < 10_000; i++)
        yield* tx.run(
          'INSERT INTO submissions (canvas_id, collection, user_id, value, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)',
          w.canvas.id,
          'big',
          `u-${String(i).padStart(5, '0')}`,
          JSON.stringify({ n: i, text: 'x'.repeat(40) }),
          Date.UTC(2026, 0, 1),
        );
    });
    const res = await data('/submissions/big?format=csv', 'owner');
    const reader = res.body!.getReader();
    let pieces = 0;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pieces++;
      text += new TextDecoder().decode(value);
    }
    expect(text.split('\r\n').filter(Boolean)).toHaveLength(10_001);
    expect(pieces).toBeGreaterThan(5);
  }, 120_000); // 10,000 inserts on Postgres take over 10 s on a loaded 2-core machine: a hang guard, not a bound
});
