// passes: embedded, cluster
// Issue 23 item 16: Elysia found the path at a fixed offset in request.url,
// so with a Host of three characters or fewer `GET /zz/api/me` (Host: zz)
// answered as `/api/me`. Every request is now routed by the path its URL
// names, whatever the Host's length.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { expectCode } from './expect-code.ts';
import { body, startTestApp, type TestApp } from './harness.ts';

/** One raw HTTP/1.1 exchange over a socket (the Host header exactly as given); status line and body. */
function rawRequest(port: number, lines: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write([...lines, 'Connection: close', '', ''].join('\r\n')));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

describe('in process: the path is the URL’s, whatever the Host', () => {
  let app: TestApp;
  let cookie: string;
  beforeAll(async () => {
    app = await startTestApp();
    cookie = await app.signIn('host@example.com');
  });
  afterAll(() => app.close());

  const get = (url: string) => app.easel.handle(new Request(url, { headers: { cookie } }), null);

  test.each(['zz', 'z', 'abc', 'a:1', 'localhost'])('Host %s: /api/me is /api/me, /zz/api/me is no route', async (host) => {
    const me = await get(`http://${host}/api/me`);
    expect(me.status).toBe(200);
    expect((await body(me)).email).toBe('host@example.com');
    await expectCode(await get(`http://${host}/zz/api/me`), 404, 'NOT_FOUND');
    await expectCode(await get(`http://${host}/x/api/canvases`), 404, 'NOT_FOUND');
  });

  test('routes with parameters and queries read them from the right place', async () => {
    const res = await get('http://zz/auth/login?returnTo=%2Fc%2Fdemo%2F');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"/c/demo/"');
  });

  test('the log line names the path the request was routed by', async () => {
    await get('http://zz/zz/api/me');
    expect(app.logs.findLast((l) => l.msg === 'request')).toMatchObject({ path: '/zz/api/me', status: 404 });
  });

  test('a URL the router would misread (https://, which Bun’s plain-http server never makes) is refused, not misrouted', async () => {
    await expectCode(await get('https://zz/zz/api/me'), 400, 'INVALID_REQUEST');
    await expectCode(await get('https://localhost/api/me'), 400, 'INVALID_REQUEST');
  });
});

describe('over a real socket', () => {
  let live: TestApp;
  let cookie: string;
  let port: number;
  beforeAll(async () => {
    live = await startTestApp({ listen: true });
    cookie = await live.signIn('socket@example.com');
    port = Number(new URL(live.base).port);
  });
  afterAll(() => live.close());

  test.each(['zz', 'z', 'abc'])('Host: %s — GET /zz/api/me is 404, GET /api/me is the caller', async (host) => {
    const shifted = await rawRequest(port, ['GET /zz/api/me HTTP/1.1', `Host: ${host}`, `Cookie: ${cookie}`]);
    expect(shifted.status).toBe(404);
    expect(JSON.parse(shifted.body).code).toBe('NOT_FOUND');
    const me = await rawRequest(port, ['GET /api/me HTTP/1.1', `Host: ${host}`, `Cookie: ${cookie}`]);
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body).email).toBe('socket@example.com');
  });
});
