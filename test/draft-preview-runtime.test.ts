// passes: embedded, s3, cluster
// The editor's draft preview in subdomain mode (issue 38 item 6.3): the
// preview is a cross-site frame on the canvas host, where no session cookie
// reaches, so its address's token is its credential for the SDK script and
// for this canvas's runtime API too (?easel_preview=), never another's.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { body, startTestApp, type TestApp } from './harness.ts';
import { expectError } from './expect-code.ts';
import { detectTarget } from '../sdk/env.ts';

const HOST = 'easel.test:8080';
let app: TestApp;
let alice: string;
let canvas: { id: string; slug: string };
let other: { id: string; slug: string };
/** The draft preview's address and its token. */
let preview: { url: string; token: string };

const at = (slug: string, path: string, headers: Record<string, string> = {}) =>
  app.request(path, { headers: { host: `${slug}.${HOST}`, ...headers } });

beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: `http://${HOST}`, EASEL_RATELIMIT_ENABLED: 'false' } });
  alice = await app.signIn('alice@example.com', 'Alice');
  const create = async (title: string) => body(await app.request('/api/canvases', { method: 'POST', cookie: alice, json: { title } }));
  canvas = await create('Preview me');
  other = await create('Another');
  await app.request(`/api/canvases/${canvas.id}/draft`, { cookie: alice });
  const put = await app.request(`/api/canvases/${canvas.id}/draft/file?path=index.html`, {
    method: 'PUT',
    cookie: alice,
    body: '<script src="/sdk/v1.js"></script>',
  });
  expect(put.status).toBe(200);
  const url = (await body(await app.request(`/api/canvases/${canvas.id}/draft`, { cookie: alice }))).previewUrl as string;
  preview = { url, token: /__easel\/draft\/([^/]+)\//.exec(url)![1]! };
});
afterAll(() => app.close());

describe('the draft preview on the canvas host', () => {
  test('its page loads the SDK from the canvas host: 200 JavaScript, with no session', async () => {
    expect(new URL(preview.url).host).toBe(`${canvas.slug}.${HOST}`);
    const res = await at(canvas.slug, '/sdk/v1.js', { referer: `${preview.url}index.html` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await res.text()).toContain('easel');
  });

  test('without a good token of this canvas the SDK stays behind the gateway (401)', async () => {
    const forged = preview.url.replace(preview.token, `${preview.token.slice(0, -2)}xx`);
    const otherHost = preview.url.replace(`${canvas.slug}.`, `${other.slug}.`);
    for (const referer of [null, `http://${canvas.slug}.${HOST}/`, forged, otherHost]) {
      const slug = referer === otherHost ? other.slug : canvas.slug;
      await expectError(await at(slug, '/sdk/v1.js', referer ? { referer } : {}), 401, 'unauthorized');
    }
  });

  test("the preview's runtime calls carry its token: this canvas's API answers as the person, another canvas's does not", async () => {
    const me = await at(canvas.slug, `/v1/c/${canvas.slug}/me?easel_preview=${preview.token}`);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ name: 'Alice', kind: 'member' });
    await expectError(await at(canvas.slug, `/v1/c/${canvas.slug}/me`), 401, 'unauthorized');
    await expectError(await at(other.slug, `/v1/c/${other.slug}/me?easel_preview=${preview.token}`), 401, 'unauthorized');
    const forged = `${preview.token.slice(0, -2)}xx`;
    await expectError(await at(canvas.slug, `/v1/c/${canvas.slug}/me?easel_preview=${forged}`), 401, 'unauthorized');
  });

  test('the SDK finds the token in its page address and nowhere else', () => {
    const page = (href: string) => {
      const u = new URL(href);
      return { href, origin: u.origin, hostname: u.hostname, pathname: u.pathname, protocol: u.protocol, host: u.host };
    };
    expect(detectTarget(page(`${preview.url}sub/page.html`), null)).toEqual({
      apiBase: `http://${canvas.slug}.${HOST}`,
      slug: canvas.slug,
      preview: preview.token,
    });
    expect(detectTarget(page(`http://${canvas.slug}.${HOST}/__easel/v/1/`), null)).toEqual({
      apiBase: `http://${canvas.slug}.${HOST}`,
      slug: canvas.slug,
    });
  });
});
