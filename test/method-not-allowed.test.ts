// A known path asked with the wrong method (issue 22 item 5): 405 with Allow and what to do, not "no such route".
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { body, startTestApp, type TestApp } from './harness.ts';
import { World } from './world.ts';

let app: TestApp;
let w: World;
beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  w = await new World().attach(app);
});
afterAll(() => app.close());

test('POST …/deploy: 405, Allow: PUT, and how to send the ZIP', async () => {
  const res = await app.request(`/v1/canvases/${w.canvas.id}/deploy`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.canvas.apiKey}` },
    body: 'x',
  });
  expect(res.status).toBe(405);
  expect(res.headers.get('allow')).toBe('PUT');
  const b = await body(res);
  expect(b.code).toBe('METHOD_NOT_ALLOWED');
  expect(b.message).toContain('use PUT');
  expect(b.message).toContain('--data-binary @site.zip');
});

test('GET /auth/logout names POST; unknown paths stay 404; runtime paths keep the pipeline’s answers', async () => {
  const logout = await app.request('/auth/logout');
  expect([logout.status, logout.headers.get('allow')]).toEqual([405, 'POST']);
  const canvas = await app.request(`/api/canvases/${w.canvas.id}`, { method: 'PUT', cookie: w.cookie.owner, json: {} });
  expect([canvas.status, canvas.headers.get('allow')]).toEqual([405, 'DELETE, GET, HEAD, PATCH']);
  expect((await app.request('/api/nothing-here')).status).toBe(404);
  expect((await app.request(`/v1/c/${w.canvas.slug}/kv`, { method: 'PATCH', cookie: w.cookie.viewer })).status).toBe(404);
});
