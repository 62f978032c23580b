// passes: embedded — starts its own Postgres and S3 server
// `easel copy-data`: an embedded instance with records of every kind moves
// onto Postgres and S3. Every copied table matches the source row for row,
// every blob in the bucket hashes to its name, and a node started on the
// target serves the same pages to the same session with the same deploy key.
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Of } from '../src/backup/create.ts';
import { S3BlobRemote } from '../src/blobs/s3-remote.ts';
import { copyDataCommand } from '../src/cli/copy-data.ts';
import { blobStoreSettings } from '../src/config.ts';
import { copyOrder } from '../src/copy/copy-records.ts';
import { localBlobHashes } from '../src/copy/copy-blobs.ts';
import { PostgresSql } from '../src/db/postgres-sql.ts';
import { AiCallStore } from '../src/runtime/ai/store.ts';
import { body, startTestApp } from './harness.ts';
import { zipOf } from './deploy-fixtures.ts';
import { createTestDatabase } from './support/postgres-server.ts';
import { startS3Server, type S3TestServer } from './support/s3-server.ts';

/** A row as comparable text: bytes as hex, every engine's numbers as numbers. */
function canonical(row: Record<string, unknown>): string {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v;
  return JSON.stringify(out);
}

function run(argv: string[], env: Record<string, string>) {
  const out = { stdout: '', stderr: '' };
  const io = { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t), isTTY: false };
  return copyDataCommand(argv, env, io).then((code) => ({ code, ...out }));
}

describe('easel copy-data', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'easel-copy-'));
  let s3: S3TestServer;
  let target: string;
  let blobEnv: Record<string, string>;
  let canvas: { id: string; slug: string; apiKey: string };
  let cookie: string;

  beforeAll(async () => {
    s3 = await startS3Server('easel-copy');
    blobEnv = s3.env('moved/');
    target = await createTestDatabase();
    // The embedded instance, with records of every kind the app writes in daily use.
    const source = await startTestApp({ dataDir });
    cookie = await source.signIn('owner@example.com', 'Owner');
    canvas = await body(await source.request('/api/canvases', { method: 'POST', cookie, json: { title: 'Moving house' } }));
    const member = { method: 'PUT', cookie, json: { email: 'editor@example.com', role: 'editor' } };
    expect((await source.request(`/api/canvases/${canvas.id}/members`, member)).status).toBe(200);
    const deploy = (files: Record<string, string>) =>
      source.request(`/v1/canvases/${canvas.id}/deploy`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${canvas.apiKey}` },
        body: zipOf(files),
      });
    expect((await deploy({ 'index.html': '<h1>first</h1>' })).status).toBe(200);
    expect((await deploy({ 'index.html': '<h1>moved intact</h1>', 'logo.bin': 'binary\u0000bytes' })).status).toBe(200);
    await source.request(`/v1/c/${canvas.slug}/kv/greeting`, { method: 'PUT', cookie, json: { text: 'hi', n: 2 ** 40 } });
    for (let i = 0; i < 3; i++)
      await source.request(`/v1/c/${canvas.slug}/kv/visits/increment`, { method: 'POST', cookie, json: { by: 1 } });
    expect((await source.request('/api/tokens', { method: 'POST', cookie, json: { name: 'ci' } })).status).toBe(201);
    expect(
      (await source.request(`/api/canvases/${canvas.id}/guest-invites`, { method: 'POST', cookie, json: { name: 'Visitor' } })).status,
    ).toBe(201);
    expect((await source.request(`/api/canvases/${canvas.id}/draft`, { cookie })).status).toBe(200);
    const begun = await source.request(`/v1/canvases/${canvas.id}/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${canvas.apiKey}` },
      json: { manifest: [{ path: 'pending.html', hash: 'a'.repeat(64), size: 3 }] },
    });
    expect(begun.status).toBe(200);
    await new AiCallStore(source.ctx.sql, source.ctx.nodeId).reserve(
      {
        id: 'call-1',
        canvasId: canvas.id,
        actorId: 'someone',
        actorKind: 'member',
        model: 'm',
        reservedUsd: 0.125,
        day: '2026-11-26',
        month: '2026-11',
        createdAt: 1,
      },
      () => {},
    );
    await source.close();
  });
  afterAll(async () => {
    await s3.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('usage errors exit 2; a running server on the source is refused', async () => {
    expect((await run([], blobEnv)).code).toBe(2);
    expect((await run(['--from', dataDir, '--to', target], blobEnv)).code).toBe(2);
    const bad = await run(['--from', `sqlite:${dataDir}`, '--to', 'postgres://user:topsecret@db'], blobEnv);
    expect(bad.code).toBe(1);
    expect(bad.stderr).not.toContain('topsecret');
    // Another live process holding the data directory's lock, as a running server does.
    const server = Bun.spawn(['sleep', '60']);
    writeFileSync(join(dataDir, 'easel.pid'), `${server.pid}\n`);
    try {
      const refused = await run(['--from', `sqlite:${dataDir}`, '--to', target], blobEnv);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`another easel process (pid ${server.pid})`);
      expect(refused.stderr).toContain('stop it first');
    } finally {
      server.kill();
      await server.exited;
      rmSync(join(dataDir, 'easel.pid'), { force: true });
    }
    // Neither refusal wrote anything.
    const pg = new PostgresSql(target, { max: 1 });
    expect(await pg.get("SELECT 1 AS found FROM information_schema.tables WHERE table_name = 'users'")).toBeUndefined();
    await pg.close();
  });

  test('every table arrives row for row, and every blob in the bucket hashes to its name', async () => {
    const copied = await run(['--from', `sqlite:${dataDir}`, '--to', target, '--json'], blobEnv);
    expect(copied.stderr).toBe('');
    expect(copied.code).toBe(0);
    const report = JSON.parse(copied.stdout);

    const source = new Database(join(dataDir, 'easel.db'), { readonly: true });
    const pg = new PostgresSql(target, { max: 1 });
    try {
      const filled = report.tables.filter((t: { rows: number }) => t.rows > 0).map((t: { table: string }) => t.table);
      expect(filled).toEqual(
        expect.arrayContaining(['users', 'sessions', 'canvases', 'canvas_members', 'versions', 'version_files', 'kv', 'personal_tokens']),
      );
      expect(filled).toEqual(
        expect.arrayContaining([
          'guest_invites',
          'drafts',
          'draft_files',
          'upload_sessions',
          'upload_blobs',
          'ai_calls',
          'audit_log',
          'settings',
        ]),
      );
      for (const table of copyOrder(source)) {
        const before = source.query<Record<string, unknown>, []>(`SELECT * FROM "${table}"`).all().map(canonical).sort();
        const after = (await pg.all<Record<string, unknown>>(`SELECT * FROM "${table}"`)).map(canonical).sort();
        expect({ table, rows: after }).toEqual({ table, rows: before });
      }
    } finally {
      source.close();
      await pg.close();
    }

    const bucket = new S3BlobRemote(blobStoreSettings(blobEnv)!);
    const hashes = [...localBlobHashes(dataDir)];
    expect(hashes.length).toBeGreaterThanOrEqual(3);
    expect(report.blobs).toEqual({ uploaded: hashes.length, alreadyThere: 0 });
    for (const hash of hashes) expect(await sha256Of((await bucket.open(hash))!)).toBe(hash);
  });

  test('a node started on the target serves the same pages to the same session; the deploy key and KV carry over', async () => {
    const node = await startTestApp({ env: { EASEL_DATABASE_URL: target, ...blobEnv } });
    try {
      const page = await node.request(`/c/${canvas.slug}/`, { cookie });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<h1>moved intact</h1>');
      expect(await (await node.request(`/c/${canvas.slug}/logo.bin`, { cookie })).text()).toBe('binary\u0000bytes');
      const read = await node.request(`/v1/canvases/${canvas.id}`, { headers: { authorization: `Bearer ${canvas.apiKey}` } });
      expect((await body(read)).currentVersion.number).toBe(2);
      expect((await body(await node.request(`/v1/c/${canvas.slug}/kv/visits`, { cookie }))).value).toBe(3);
      expect((await body(await node.request(`/v1/c/${canvas.slug}/kv/greeting`, { cookie }))).value).toEqual({ text: 'hi', n: 2 ** 40 });
      // New audit rows continue after the copied ones.
      expect((await node.request(`/api/canvases/${canvas.id}`, { method: 'PATCH', cookie, json: { title: 'Moved' } })).status).toBe(200);
    } finally {
      await node.close();
    }
  });

  test('a second copy into the same database is refused and changes nothing', async () => {
    const again = await run(['--from', `sqlite:${dataDir}`, '--to', target], blobEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds data');
  });
});
