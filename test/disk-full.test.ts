// passes: embedded, s3
// A nearly full disk (issue 20 item 6): deploys, staged uploads, runtime files
// and authoring answer 507 INSUFFICIENT_STORAGE before anything is written, and
// work again once there is room. The free space is injected: no real disk is filled.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../src/ids.ts';
import { zipOf } from './deploy-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, World } from './world.ts';

const MiB = 1024 * 1024;
let free = 10_000 * MiB;
let app: TestApp;
let w: World;

beforeAll(async () => {
  app = await startTestApp({
    freeDiskBytes: () => free,
    env: { EASEL_MIN_FREE_DISK_MB: '100', EASEL_RATELIMIT_ENABLED: 'false', EASEL_ADMIN_EMAILS: ADMIN_EMAIL },
  });
  w = await new World().attach(app);
});
afterAll(() => app.close());

const blobCount = () =>
  readdirSync(app.ctx.blobs.root, { recursive: true }).filter((n) => String(n).split('/').pop()!.length === 64).length;

describe('a nearly full disk', () => {
  test('every write path answers 507 before writing; with room again they work', async () => {
    const key = { authorization: `Bearer ${w.canvas.apiKey}` };
    const before = blobCount();
    const versions = (await (await app.request(`/v1/canvases/${w.canvas.id}/versions`, { headers: key })).json()).versions.length;
    free = 150 * MiB;
    // A staged upload whose manifest would eat into the reserve.
    const manifest = ['a', 'b', 'c'].map((n) => ({ path: `${n}.bin`, hash: sha256Hex(n), size: 20 * MiB }));
    await expectCode(
      await app.request(`/v1/canvases/${w.canvas.id}/uploads`, { method: 'POST', headers: key, json: { manifest } }),
      507,
      'INSUFFICIENT_STORAGE',
    );

    free = 50 * MiB;
    const zip = await app.request(`/v1/canvases/${w.canvas.id}/deploy`, {
      method: 'PUT',
      headers: key,
      body: zipOf({ 'index.html': 'full' }),
    });
    const refused = await expectCode(zip, 507, 'INSUFFICIENT_STORAGE');
    expect(refused.message).toContain('nearly full');
    const fd = new FormData();
    fd.append('file', new Blob(['data']), 'a.txt');
    await expectCode(
      await app.request(`/v1/c/${w.canvas.slug}/files`, { method: 'POST', cookie: w.cookie.editor, body: fd }),
      507,
      'INSUFFICIENT_STORAGE',
    );
    expect(blobCount()).toBe(before);
    expect(readdirSync(join(app.dataDir, 'blobs', 'tmp'))).toEqual([]);
    expect((await (await app.request(`/v1/canvases/${w.canvas.id}/versions`, { headers: key })).json()).versions.length).toBe(versions);

    free = 10_000 * MiB;
    expect(
      (await app.request(`/v1/canvases/${w.canvas.id}/deploy`, { method: 'PUT', headers: key, body: zipOf({ 'index.html': 'room' }) }))
        .status,
    ).toBe(200);
  });
});

describe('GET /api/admin/usage', () => {
  test('admins see the database, the blob store and the disk with its floor; others get 404', async () => {
    free = 10_000 * MiB;
    const usage = await w.expectOk('GET', '/api/admin/usage', 'admin');
    expect(usage.database.bytes).toBeGreaterThan(0);
    expect(usage.blobs.files).toBe(blobCount());
    expect(usage.blobs.bytes).toBeGreaterThan(0);
    // Where blobs live: the data directory (`bun run test:s3` keeps them in a bucket, the directory caching copies).
    const remote = app.ctx.blobs.remote;
    expect({ remote: usage.blobs.remote, cacheBytes: usage.blobs.cacheBytes }).toEqual(
      remote ? { remote: remote.location, cacheBytes: app.ctx.config.blobCacheBytes } : { remote: null, cacheBytes: null },
    );
    expect(usage.disk.totalBytes).toBeGreaterThan(usage.disk.freeBytes);
    expect(usage.disk.minFreeBytes).toBe(100 * MiB);
    await expectCode(await w.request('owner', '/api/admin/usage'), 404, 'NOT_FOUND');
  });
});
