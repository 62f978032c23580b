// passes: embedded, cluster
// A canvas's service worker must not outlive unpublishing or lost access
// (issue 23 item 13): pages may register one only when the owner opts in,
// and a canvas host that refuses a visitor tells the browser to clear what
// the canvas left behind.
import { describe, expect, test } from 'bun:test';
import { canvasHostCookie } from './canvas-host-session.ts';
import { expectCode } from './expect-code.ts';
import { useWorld } from './world.ts';

const FILES = { 'index.html': '<h1>sw</h1>', 'sw.js': 'self.addEventListener("fetch", () => {});' };
const asWorker = { 'service-worker': 'script' };

describe('service workers (path mode)', () => {
  const w = useWorld({ canvas: { files: FILES } });
  const page = (path: string, headers: Record<string, string> = {}) => w.request('viewer', `/c/${w.canvas.slug}/${path}`, { headers });

  test('a worker script is refused unless the owner opts in; the same file loads as a plain script', async () => {
    const refused = await page('sw.js', asWorker);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('not allowed its pages to install a service worker');
    expect((await page('sw.js')).status).toBe(200);
    expect((await w.settings({ serviceWorkers: true })).serviceWorkers).toBe(true);
    const allowed = await page('sw.js', asWorker);
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toBe(FILES['sw.js']);
  });

  test('only the owner (or an admin) switches it: an editor gets 403, a viewer 404', async () => {
    const path = `/api/canvases/${w.canvas.id}`;
    await expectCode(await w.request('editor', path, { method: 'PATCH', json: { serviceWorkers: true } }), 403, 'PERMISSION_DENIED');
    await expectCode(await w.request('viewer', path, { method: 'PATCH', json: { serviceWorkers: true } }), 404, 'NOT_FOUND');
    expect((await w.expectOk('PATCH', path, 'admin', { serviceWorkers: true })).serviceWorkers).toBe(true);
    expect((await w.expectOk('GET', path, 'owner')).serviceWorkers).toBe(true);
  });

  test('path mode shares its origin with the dashboard: a refusal clears nothing', async () => {
    const res = await w.request('stranger', `/c/${w.canvas.slug}/`);
    expect(res.status).toBe(404);
    expect(res.headers.get('clear-site-data')).toBeNull();
  });
});

describe('lost access on a canvas host (subdomain mode)', () => {
  const HOST = 'easel.test:8080';
  const w = useWorld({
    canvas: { files: FILES },
    env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: `http://${HOST}` },
  });
  // The viewer's own session on this test's canvas host (each test has a fresh canvas).
  const visit = async (who: 'viewer') => {
    const cookie = await canvasHostCookie(w.app, HOST, w.canvas.slug, w.cookie[who]);
    return w.app.request('/', { cookie, headers: { host: `${w.canvas.slug}.${HOST}` } });
  };

  test('a viewer taken off the list is told to clear the canvas host; a visitor with access is not', async () => {
    const ok = await visit('viewer');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('clear-site-data')).toBeNull();
    await w.expectOk('DELETE', `/api/canvases/${w.canvas.id}/members/${w.ids.viewer}`, 'owner');
    const lost = await visit('viewer');
    expect(lost.status).toBe(404);
    expect(lost.headers.get('clear-site-data')).toBe('"cache", "storage"');
  });

  test('archived and disabled canvases clear the canvas host too', async () => {
    await w.expectOk('POST', `/api/canvases/${w.canvas.id}/archive`, 'owner');
    expect((await visit('viewer')).headers.get('clear-site-data')).toBe('"cache", "storage"');
    await w.expectOk('POST', `/api/canvases/${w.canvas.id}/restore`, 'owner');
    await w.expectOk('POST', `/api/admin/canvases/${w.canvas.id}/disable`, 'admin', {});
    const disabled = await visit('viewer');
    expect(disabled.status).toBe(403);
    expect(disabled.headers.get('clear-site-data')).toBe('"cache", "storage"');
  });
});
