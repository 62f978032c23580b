// passes: embedded, cluster
// Issue 23 item 3: in subdomain mode, a slug equal to the label of the base or
// API host (`studio` when the dashboard is studio.easel.test and canvases are
// {slug}.easel.test) would make that canvas the instance's own host, its
// /sdk/v1.js included. Such slugs are refused, those hosts never route to a
// canvas, and a data directory where a canvas already holds one refuses to start.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservedHostLabels } from '../src/http/host-labels.ts';
import { canvasSlugFromHost } from '../src/http/canvas-host.ts';
import { newId, newToken, sha256Hex } from '../src/ids.ts';
import { expectCode } from './expect-code.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { runToExit } from './spawn.ts';
import { deployFiles } from './world.ts';

const SUBDOMAIN = {
  EASEL_URL_MODE: 'subdomain',
  EASEL_BASE_URL: 'http://studio.easel.test',
  EASEL_API_BASE_URL: 'http://gateway.easel.test',
  EASEL_CANVAS_HOST: 'easel.test',
};

describe('the labels of the base and API hosts', () => {
  let app: TestApp;
  let cookie: string;
  const on = (host: string, path: string, init: RequestInit & { cookie?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.cookie) headers.set('cookie', init.cookie);
    return app.easel.handle(new Request(`http://${host}${path}`, { ...init, headers }), null);
  };
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    on('studio.easel.test', path, {
      ...init,
      cookie,
      headers: { 'content-type': 'application/json', origin: 'http://studio.easel.test', 'sec-fetch-site': 'same-origin' },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });

  beforeAll(async () => {
    app = await startTestApp({ env: SUBDOMAIN });
    const res = await on('studio.easel.test', '/auth/dev/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://studio.easel.test', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ email: 'mallory@example.com', name: 'Mallory' }),
    });
    expect(res.status).toBe(200);
    cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  });
  afterAll(() => app.close());

  test('are reserved in subdomain mode only, ports ignored', () => {
    expect(reservedHostLabels(app.ctx.config)).toEqual(['studio', 'gateway']);
    expect(reservedHostLabels({ ...app.ctx.config, urlMode: 'path' })).toEqual([]);
    const withPorts = { urlMode: 'subdomain' as const, canvasHost: 'easel.test:8443', baseUrl: 'https://studio.easel.test' };
    expect(reservedHostLabels(withPorts)).toEqual(['studio']);
    // The base host as the canvas host itself, or two labels down: nothing a slug could name.
    expect(reservedHostLabels({ urlMode: 'subdomain', canvasHost: 'easel.test', baseUrl: 'http://easel.test' })).toEqual([]);
    expect(reservedHostLabels({ urlMode: 'subdomain', canvasHost: 'easel.test', baseUrl: 'http://a.b.easel.test' })).toEqual([]);
  });

  test('a new canvas cannot take one (the spec slug error), a generated slug never is one', async () => {
    for (const slug of ['studio', 'gateway']) {
      const res = await api('/api/canvases', { method: 'POST', json: { title: 'Takeover', slug } });
      const answer = await expectCode(res, 400, 'INVALID_BODY');
      expect(answer.reason).toBe('invalid_slug');
    }
    const generated = await body(await api('/api/canvases', { method: 'POST', json: { title: 'Studio' } }));
    expect(generated.slug).toMatch(/^studio-[a-z0-9]+$/);
  });

  test('an existing canvas cannot be renamed to one', async () => {
    const made = await body(await api('/api/canvases', { method: 'POST', json: { title: 'Mine', slug: 'mine-for-now' } }));
    const res = await api(`/api/canvases/${made.id}`, { method: 'PATCH', json: { slug: 'gateway' } });
    expect((await expectCode(res, 400, 'INVALID_BODY')).reason).toBe('invalid_slug');
    expect((await app.ctx.canvases.byId(made.id))!.slug).toBe('mine-for-now');
  });

  test('a canvas that holds one anyway (made before the configuration) is never served on that host', async () => {
    const owner = (await app.ctx.users.byEmail('mallory@example.com'))!;
    // The API refuses this slug now, so the canvas is written to the store as an older version left it.
    const apiKey = newToken();
    const squatter = await app.ctx.canvases.insert({
      id: newId(),
      slug: 'studio',
      title: 'studio',
      ownerId: owner.id,
      keyHash: sha256Hex(apiKey),
      publicationToken: newToken(),
      now: app.ctx.now(),
    });
    await app.ctx.canvases.update(squatter.id, { access_mode: 'public_link' }, app.ctx.now());
    await deployFiles(
      app,
      { id: squatter.id, apiKey },
      { 'index.html': '<h1>owned</h1>', 'sdk/v1.js': 'window.stolen = document.cookie;' },
    );
    expect(canvasSlugFromHost(app.ctx.config, 'studio.easel.test')).toBeNull();
    expect(canvasSlugFromHost(app.ctx.config, 'gateway.easel.test')).toBeNull();
    expect(canvasSlugFromHost(app.ctx.config, 'other.easel.test')).toBe('other');

    const sdk = await on('studio.easel.test', '/sdk/v1.js', { cookie });
    expect(sdk.status).toBe(200);
    const text = await sdk.text();
    expect(text).not.toContain('window.stolen');
    expect(text).toContain('EaselError');
    const sdkOnApi = await on('gateway.easel.test', '/sdk/v1.js', { cookie });
    expect(await sdkOnApi.text()).not.toContain('window.stolen');
    // The dashboard host answers the dashboard's own routes, not the canvas page.
    const root = await on('studio.easel.test', '/healthz');
    expect(await root.json()).toMatchObject({ ok: true });
  });
});

describe('starting with a canvas on an own-host label', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'easel-host-label-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test('is refused with one line naming the canvas and the fix', async () => {
    // Path mode (the default) reserves nothing: the slug is fine there.
    const before = await startTestApp({ dataDir });
    const early = await before.signIn('early@example.com', 'Early');
    const made = await before.request('/api/canvases', { method: 'POST', cookie: early, json: { title: 'Studio', slug: 'studio' } });
    expect(made.status).toBe(201);
    const canvas = await body(made);
    await before.close();

    const run = await runToExit({ env: { EASEL_DATA_DIR: dataDir, EASEL_AUTH_MODE: 'proxy', ...SUBDOMAIN } });
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('refusing to start');
    expect(lines[0]).toContain(canvas.id);
    expect(lines[0]).toContain('"studio"');
    expect(run.stdout).not.toContain('listening on');

    // The same directory in path mode still starts.
    const pathMode = await runToExit({ env: { EASEL_DATA_DIR: dataDir, EASEL_AUTH_MODE: 'proxy' }, args: ['version'] });
    expect(pathMode.code).toBe(0);
  });
});
