// passes: embedded, s3, cluster
// History and read-back for people (issue 22 item 1): owners, editors and
// admins with a session or a token get what the canvas key gets, through the
// same services and codes; viewers and strangers get 404.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { zipSync } from 'fflate';
import { sha256Hex } from '../src/ids.ts';
import { expectCode } from './expect-code.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, World } from './world.ts';

let app: TestApp;
let w: World;

beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
  w = await new World().attach(app);
});
afterAll(() => app.close());

const asKey = (path: string, init: RequestInit = {}) =>
  app.request(`/v1/canvases/${w.canvas.id}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${w.canvas.apiKey}`, ...(init.headers ?? {}) },
  });

describe('versions, files, rollback and unpublish for people', () => {
  test('the same answers as the Deploy API, for the owner, an editor, an admin and a token; 404 for viewers and strangers', async () => {
    await w.deploy(w.canvas, { 'index.html': 'one' });
    await w.deploy(w.canvas, { 'index.html': 'two' });
    const byKey = await body(await asKey('/versions'));
    for (const who of ['owner', 'editor', 'admin'] as const) {
      expect(await w.expectOk('GET', `/api/canvases/${w.canvas.id}/versions`, who)).toEqual(byKey);
    }
    const { token } = await body(await w.request('editor', '/api/tokens', { method: 'POST', json: { name: 'ci' } }));
    const viaToken = await app.request(`/api/canvases/${w.canvas.id}/versions`, { headers: { authorization: `Bearer ${token}` } });
    expect(await body(viaToken)).toEqual(byKey);
    for (const who of ['viewer', 'stranger'] as const) {
      await expectCode(await w.request(who, `/api/canvases/${w.canvas.id}/versions`), 404, 'NOT_FOUND');
    }
    expect(await w.expectOk('GET', `/api/canvases/${w.canvas.id}/files`, 'editor')).toEqual(await body(await asKey('/files')));
    const file = await w.request('editor', `/api/canvases/${w.canvas.id}/files?path=index.html`);
    expect([file.status, await file.text(), file.headers.get('etag')]).toEqual([200, 'two', `"${sha256Hex('two')}"`]);
    expect(file.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
  });

  test('rollback and unpublish as a person: the same results and codes, audited as that person', async () => {
    await w.deploy(w.canvas, { 'index.html': 'v1' });
    await w.deploy(w.canvas, { 'index.html': 'v2' });
    const versions = (await w.expectOk('GET', `/api/canvases/${w.canvas.id}/versions`, 'editor')).versions as Array<{ number: number }>;
    const oldest = Math.min(...versions.map((v) => v.number));
    const rolled = await w.expectOk('POST', `/api/canvases/${w.canvas.id}/rollback`, 'editor', { version: oldest });
    expect(rolled).toEqual({ url: expect.any(String), version: oldest });
    await expectCode(
      await w.request('editor', `/api/canvases/${w.canvas.id}/rollback`, { method: 'POST', json: { version: 999 } }),
      404,
      'INVALID_PATH',
    );
    await expectCode(await w.request('editor', `/api/canvases/${w.canvas.id}/rollback`, { method: 'POST', json: {} }), 400, 'INVALID_BODY');
    await expectCode(
      await w.request('viewer', `/api/canvases/${w.canvas.id}/rollback`, { method: 'POST', json: { version: oldest } }),
      404,
      'NOT_FOUND',
    );
    expect((await w.expectOk('POST', `/api/canvases/${w.canvas.id}/unpublish`, 'owner')).publicationState).toBe('draft');
    await expectCode(await w.request('owner', `/api/canvases/${w.canvas.id}/unpublish`, { method: 'POST' }), 409, 'CANNOT_UNPUBLISH');
    // Newest first: the last two, oldest of them first.
    const audit = (await app.ctx.audit.forCanvas(w.canvas.id))
      .filter((e) => e.action === 'canvas.rollback' || e.action === 'canvas.unpublish')
      .slice(0, 2)
      .reverse()
      .map((e) => ({ action: e.action, actor_id: e.actorId, actor_kind: e.actorKind }));
    expect(audit).toEqual([
      { action: 'canvas.rollback', actor_id: w.ids.editor, actor_kind: 'user' },
      { action: 'canvas.unpublish', actor_id: w.ids.owner, actor_kind: 'user' },
    ]);
  });
});

describe('deploying as a person (PUT /api/canvases/{id}/deploy and the staged upload)', () => {
  let limited: TestApp;
  let lw: World;
  beforeAll(async () => {
    limited = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_DEPLOY_PER_MIN: '2' } });
    lw = await new World().attach(limited);
  });
  afterAll(() => limited.close());
  const zip = (text: string) => new Uint8Array(zipSync({ 'index.html': new TextEncoder().encode(text) }));
  const put = (who: 'owner' | 'editor' | 'viewer' | 'stranger', text: string) =>
    limited.request(`/api/canvases/${lw.canvas.id}/deploy`, { method: 'PUT', cookie: lw.cookie[who], body: zip(text) });

  test("the Deploy API's answers: a DeployResult for owners and editors, 404 for viewers, the deploy class's 429 with Retry-After", async () => {
    const first = await put('editor', 'by the editor');
    expect(first.status).toBe(200);
    expect(await body(first)).toMatchObject({ outcome: 'published', version: 1, fileCount: 1, warnings: [] });
    await expectCode(await put('viewer', 'no'), 404, 'NOT_FOUND');
    await expectCode(await put('stranger', 'no'), 404, 'NOT_FOUND');
    expect((await put('owner', 'by the owner')).status).toBe(200);
    // Two a minute here, shared with the canvas key's deploys: the third is throttled in the Deploy API's {error} shape.
    const third = await put('owner', 'too many');
    expect([third.status, await body(third)]).toEqual([429, { error: 'rate_limited' }]);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    const key = await limited.request(`/v1/canvases/${lw.canvas.id}/deploy`, {
      method: 'PUT',
      body: zip('by the key'),
      headers: { authorization: `Bearer ${lw.canvas.apiKey}` },
    });
    expect(key.status).toBe(429);
  });
});
