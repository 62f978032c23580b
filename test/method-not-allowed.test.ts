// passes: embedded — the router's answers, the same on every storage
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

// Refusals that say what to do (issue 22 item 5): every allowed value, the unit, raw ZIP bytes, switches that exist.
test('a value outside a choice lists every allowed value; a number field names its unit', async () => {
  const patch = (json: unknown) => app.request(`/api/canvases/${w.canvas.id}`, { method: 'PATCH', cookie: w.cookie.owner, json });
  const mode = await body(await patch({ accessMode: 'public' }));
  expect(mode).toEqual({ code: 'INVALID_BODY', message: 'accessMode: expected one of "restricted", "whole_org" or "public_link"' });
  const date = await body(await patch({ expiresAt: '2027-01-31' }));
  expect(date.message).toStartWith('expiresAt: must be a whole number (epoch milliseconds');
  const negative = await body(await patch({ expiresAt: -1 }));
  expect(negative.message).toContain('(epoch milliseconds');
});

// The checker's words ("Expected string length greater or equal to 1") reached the dashboard's toasts; people read these.
test('a body that does not fit says what is wrong in plain words', async () => {
  const token = (json: unknown) => app.request('/api/tokens', { method: 'POST', cookie: w.cookie.owner, json });
  expect(await body(await token({ name: '' }))).toEqual({ code: 'INVALID_BODY', message: 'name: must not be empty' });
  expect(await body(await token({ name: 'x'.repeat(101) }))).toEqual({
    code: 'INVALID_BODY',
    message: 'name: must be at most 100 characters',
  });
  expect(await body(await token({}))).toEqual({ code: 'INVALID_BODY', message: 'name: is required' });
  expect(await body(await token({ name: 7 }))).toEqual({ code: 'INVALID_BODY', message: 'name: must be text' });
  expect(await body(await token({ name: 'ok', bogus: 1 }))).toEqual({ code: 'INVALID_BODY', message: 'bogus: unknown field' });
});

test('a deploy body sent as a form (curl -d) or multipart (curl -F) is told to send the raw bytes; a plain bad body is not', async () => {
  const put = (body: BodyInit, contentType: string) =>
    app.request(`/v1/canvases/${w.canvas.id}/deploy`, {
      method: 'PUT',
      body,
      headers: { authorization: `Bearer ${w.canvas.apiKey}`, 'content-type': contentType },
    });
  const form = await body(await put('PK%03%04garbled', 'application/x-www-form-urlencoded'));
  expect(form.code).toBe('INVALID_ZIP');
  expect(form.message).toContain(
    "If it was sent with curl -d (which drops line breaks, and sends nothing for a file it cannot read), send the ZIP's raw bytes instead: curl -X PUT --data-binary @site.zip",
  );
  // curl -d of a file it cannot read sends nothing, labelled as a form.
  const nothing = await body(await put('', 'application/x-www-form-urlencoded'));
  expect(nothing.code).toBe('EMPTY_DEPLOY');
  expect(nothing.message).toContain('If it was sent with curl -d');
  // curl --data-binary labels a real ZIP as a form too: one that was read (here, with no files) is not told it was sent wrong.
  const emptyZip = new Uint8Array([0x50, 0x4b, 5, 6, ...new Array(18).fill(0)]);
  const readable = await body(await put(emptyZip, 'application/x-www-form-urlencoded'));
  expect(readable.code).toBe('EMPTY_DEPLOY');
  expect(readable.message).not.toContain('curl');
  const multipart = new FormData();
  multipart.append('file', new Blob([new Uint8Array([0x50, 0x4b, 3, 4, 1, 2])]), 'site.zip');
  const res = await app.request(`/v1/canvases/${w.canvas.id}/deploy`, {
    method: 'PUT',
    body: multipart,
    headers: { authorization: `Bearer ${w.canvas.apiKey}` },
  });
  const parts = await body(res);
  expect([res.status, parts.code]).toEqual([400, 'INVALID_ZIP']);
  expect(parts.message).toContain('a multipart form (curl -F)');
  const plain = await body(await put('not a zip', 'application/zip'));
  expect(plain.code).toBe('INVALID_ZIP');
  expect(plain.message).not.toContain('curl');
});

test("a switched-off capability's hint names the route that turns it on", async () => {
  await w.deploy();
  await w.capabilities({ backend: false });
  const res = await app.request(`/v1/c/${w.canvas.slug}/kv/x`, { cookie: w.cookie.owner });
  const b = await body(res);
  expect(b.code).toBe('CAPABILITY_DISABLED');
  expect(b.hint).toBe(
    `The canvas owner can turn on backend: PATCH /api/canvases/${w.canvas.id}/capabilities with {"backend": true}, or the set_capabilities MCP tool.`,
  );
});
