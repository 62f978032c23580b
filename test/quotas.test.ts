// passes: embedded, cluster
// Per-person limits (issue 23 item 4): canvases created per hour, canvases
// owned, and the bytes a person's canvases keep (versions and runtime files).
// Admin-tunable instance settings.
import { describe, expect, test } from 'bun:test';
import { expectCode } from './expect-code.ts';
import { useWorld } from './world.ts';

const HOUR = 3600_000;

describe('canvas creation', () => {
  // Rate windows are fixed (aligned to the hour): start just after a boundary, so Retry-After is never near its end.
  let clock = Math.floor(Date.now() / HOUR) * HOUR + 1000;
  const w = useWorld({ now: () => clock, env: { EASEL_RATELIMIT_ENABLED: 'true' } });
  const create = (title: string) => w.request('viewer2', '/api/canvases', { method: 'POST', json: { title } });

  test('at most userCanvasCreatesPerHour per person per hour: then 429 rate_limited with Retry-After', async () => {
    await w.adminSettings({ userCanvasCreatesPerHour: 2 });
    try {
      expect((await create('one')).status).toBe(201);
      expect((await create('two')).status).toBe(201);
      const refused = await create('three');
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ error: 'rate_limited' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60);
      // Others are not affected; the window is an hour, not a minute.
      expect((await w.request('stranger', '/api/canvases', { method: 'POST', json: { title: 'theirs' } })).status).toBe(201);
      clock += 61_000;
      expect((await create('still three')).status).toBe(429);
      clock += HOUR;
      expect((await create('three')).status).toBe(201);
    } finally {
      await w.adminSettings({ userCanvasCreatesPerHour: null });
    }
  });

  test('at most userCanvases owned: then 409 QUOTA_EXCEEDED; deleting one makes room', async () => {
    clock += 2 * HOUR;
    const owned = (await w.expectOk('GET', '/api/canvases', 'viewer2')).canvases.filter((c: any) => c.role === 'owner');
    await w.adminSettings({ userCanvases: owned.length + 1 });
    try {
      const made = await w.expectOk('POST', '/api/canvases', 'viewer2', { title: 'last one' }, 201);
      const refused = await expectCode(await create('one too many'), 409, 'QUOTA_EXCEEDED');
      expect(refused).toMatchObject({ quota: 'canvases.user', limit: owned.length + 1 });
      await w.expectOk('DELETE', `/api/canvases/${made.id}`, 'viewer2');
      expect((await create('fits again')).status).toBe(201);
    } finally {
      await w.adminSettings({ userCanvases: null });
    }
  });
});

describe('storage per person', () => {
  const w = useWorld({ canvas: { capabilities: { backend: true, files: true } } });

  test('a deploy that would take the owner past userStorageBytes: 409 QUOTA_EXCEEDED, the live version unchanged', async () => {
    const first = await w.deploy(w.canvas, { 'index.html': 'a'.repeat(600) });
    await w.adminSettings({ userStorageBytes: 1000 });
    try {
      const res = await w.app.request(`/v1/canvases/${w.canvas.id}/deploy`, {
        method: 'PUT',
        body: await zipOf({ 'index.html': 'b'.repeat(600) }),
        headers: { authorization: `Bearer ${w.canvas.apiKey}` },
      });
      const refused = await expectCode(res, 409, 'QUOTA_EXCEEDED');
      expect(refused).toMatchObject({ quota: 'storage.user', limit: 1000 });
      const view = await w.expectOk('GET', `/api/canvases/${w.canvas.id}`, 'owner');
      expect(view.currentVersionId).toBe(first.versionId);
    } finally {
      await w.adminSettings({ userStorageBytes: null });
    }
  });

  test("runtime files count against the canvas owner's storage too", async () => {
    // The owner's other canvases hold a few KB; the files here are far larger.
    await w.adminSettings({ userStorageBytes: 1_000_000 });
    try {
      const form = (size: number) => {
        const f = new FormData();
        f.append('scope', 'shared');
        f.append('file', new Blob(['x'.repeat(size)]), 'x.txt');
        return f;
      };
      const upload = (size: number) => w.request('editor', `/v1/c/${w.canvas.slug}/files`, { method: 'POST', body: form(size) });
      expect((await upload(600_000)).status).toBe(201);
      const refused = await expectCode(await upload(600_000), 409, 'QUOTA_EXCEEDED');
      expect(refused).toMatchObject({ quota: 'storage.user', limit: 1_000_000 });
    } finally {
      await w.adminSettings({ userStorageBytes: null });
    }
  });
});

async function zipOf(files: Record<string, string>): Promise<Uint8Array<ArrayBuffer>> {
  const { zipSync, strToU8 } = await import('fflate');
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)]))) as Uint8Array<ArrayBuffer>;
}
