// passes: embedded, cluster
// Issue 23 item 10: deactivating a person stops what they publish. A canvas
// key whose canvas's owner is deactivated is refused (401, the Deploy API's
// `{error}` shape, with the reason) on every Deploy API route, and works
// again once the owner is reactivated.
import { describe, expect, test } from 'bun:test';
import { zipSync } from 'fflate';
import { body } from './harness.ts';
import { useWorld } from './world.ts';

describe("a deactivated owner's canvas key", () => {
  const w = useWorld({ canvas: { files: { 'index.html': '<h1>v1</h1>' } } });
  const key = () => ({ authorization: `Bearer ${w.canvas.apiKey}` });
  const zip = () => zipSync({ 'index.html': new TextEncoder().encode('<h1>v2</h1>') }) as Uint8Array<ArrayBuffer>;
  const routes = (): Array<[string, string, RequestInit]> => [
    ['GET', `/v1/canvases/${w.canvas.id}`, {}],
    ['PUT', `/v1/canvases/${w.canvas.id}/deploy`, { body: zip() }],
    [
      'POST',
      `/v1/canvases/${w.canvas.id}/rollback`,
      { body: JSON.stringify({ version: 1 }), headers: { 'content-type': 'application/json' } },
    ],
    ['POST', `/v1/canvases/${w.canvas.id}/unpublish`, {}],
    [
      'POST',
      `/v1/canvases/${w.canvas.id}/uploads`,
      { body: JSON.stringify({ manifest: [] }), headers: { 'content-type': 'application/json' } },
    ],
  ];

  test('every Deploy API route answers 401 {error: "unauthorized", reason: "owner_deactivated"}; nothing changes', async () => {
    await w.adminUser('owner', { active: false });
    for (const [method, path, init] of routes()) {
      const res = await w.app.request(path, { ...init, method, headers: { ...key(), ...(init.headers as Record<string, string>) } });
      expect({ method, path, status: res.status, body: await body(res) }).toEqual({
        method,
        path,
        status: 401,
        body: { error: 'unauthorized', reason: 'owner_deactivated' },
      });
    }
    // Still published, still version 1.
    await w.adminUser('owner', { active: true });
    const status = await w.app.request(`/v1/canvases/${w.canvas.id}`, { headers: key() });
    expect(status.status).toBe(200);
    expect(await body(status)).toMatchObject({ publicationState: 'published', currentVersion: { number: 1 } });
  });

  test('a reactivated owner deploys again', async () => {
    await w.adminUser('owner', { active: false });
    await w.adminUser('owner', { active: true });
    const res = await w.app.request(`/v1/canvases/${w.canvas.id}/deploy`, { method: 'PUT', body: zip(), headers: key() });
    expect(res.status).toBe(200);
    expect((await body(res)).version).toBe(2);
  });

  test('an unknown key stays the plain 401, with no reason', async () => {
    const res = await w.app.request(`/v1/canvases/${w.canvas.id}`, { headers: { authorization: 'Bearer nope' } });
    expect([res.status, await body(res)]).toEqual([401, { error: 'unauthorized' }]);
  });
});
