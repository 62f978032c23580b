// passes: embedded, cluster
// A NUL (U+0000) in text: SQLite stores it, Postgres's text type never does.
// So text fields refuse it where it arrives, with the same 400 INVALID_BODY
// on both engines (the cluster fuzz had met Postgres's refusal as an
// undeclared INVALID_REQUEST), while values stored as JSON (KV, records) and
// a file's content keep their NULs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { nulTextPath } from '../src/http/nul-text.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, World } from './world.ts';

let app: TestApp;
let w: World;
let client: Client;

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
  w = await new World().attach(app);
  const token = (await body(await w.request('owner', '/api/tokens', { method: 'POST', json: { name: 'agent' } }))).token;
  client = new Client({ name: 'easel-test', version: '1' });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/mcp`), { requestInit: { headers } }));
});
afterAll(async () => {
  await client.close();
  await app.close();
});

const refusal = (field: string) => ({
  status: 400,
  body: { code: 'INVALID_BODY', message: `${field}: text may not hold a NUL character (U+0000)` },
});
async function answer(res: Response) {
  return { status: res.status, body: await body(res) };
}

describe('a NUL in text', () => {
  test('is refused by the field that holds it, and nothing is written', async () => {
    const canvases = async () => (await body(await w.request('owner', '/api/canvases'))).canvases.length;
    const before = await canvases();
    expect(await answer(await w.request('owner', '/api/canvases', { method: 'POST', json: { title: 'a\u0000b' } }))).toEqual(
      refusal('title'),
    );
    expect(await canvases()).toBe(before);

    const c = w.canvas;
    const patch = await w.request('owner', `/api/canvases/${c.id}`, { method: 'PATCH', json: { title: 'fine', password: 'x\u0000' } });
    expect(await answer(patch)).toEqual(refusal('password'));
    expect((await body(await w.request('owner', `/api/canvases/${c.id}`))).title).not.toBe('fine');

    const token = await w.request('owner', '/api/tokens', { method: 'POST', json: { name: '\u0000' } });
    expect(await answer(token)).toEqual(refusal('name'));
    const signIn = await app.request('/auth/dev/login', { method: 'POST', json: { email: 'nul@example.com', name: 'N\u0000' } });
    expect(await answer(signIn)).toEqual(refusal('name'));

    const connection = { name: 'crm', origin: 'https://crm.example.com', methods: ['GET'], protectedHeaders: { 'x-key': 'k\u0000' } };
    const created = await w.request('admin', '/api/admin/connections', { method: 'POST', json: connection });
    expect(await answer(created)).toEqual(refusal('protectedHeaders.x-key'));
    expect((await body(await w.request('admin', '/api/admin/connections'))).connections).toEqual([]);
  });

  test('in a query string is refused the same way', async () => {
    const res = await w.request('owner', `/api/canvases/${w.canvas.id}/data/kv/items?q=%00`);
    expect(await answer(res)).toEqual(refusal('q'));
  });

  test('in a search or a lookup finds nothing, on both engines (Postgres refused to compare it: the cluster fuzz met INVALID_BODY)', async () => {
    expect(await answer(await w.request('owner', '/api/gallery?q=%00'))).toEqual({ status: 200, body: { canvases: [] } });
    const admin = (path: string) => w.request('admin', path);
    expect((await answer(await admin('/api/admin/canvases?q=a%00'))).body.canvases).toEqual([]);
    for (const filter of ['action=canvas.%00', 'canvasId=%00', 'actorId=x%00']) {
      const res = await admin(`/api/admin/audit?${filter}`);
      expect({ filter, status: res.status, entries: (await body(res)).entries }).toEqual({ filter, status: 200, entries: [] });
    }
    await w.deploy();
    const live = await w.request('owner', `/api/canvases/${w.canvas.id}/files?path=index.html%00`);
    expect({ status: live.status, code: (await body(live)).code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    const byKey = await app.request(`/v1/canvases/${w.canvas.id}/files?path=%00`, {
      headers: { authorization: `Bearer ${w.canvas.apiKey}` },
    });
    expect({ status: byKey.status, code: (await body(byKey)).code }).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  test('in an id in the path names nothing: the unknown id answer on both engines (Postgres had refused the lookup)', async () => {
    const seen = async (res: Response) => ({ status: res.status, code: (await body(res)).code });
    expect(await seen(await w.request('owner', '/api/canvases/%00'))).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(await seen(await w.request('owner', '/api/canvases/a%00b/members'))).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(await seen(await w.request('owner', '/api/tokens/%00', { method: 'DELETE' }))).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(await seen(await w.request('admin', '/api/admin/users/u%00'))).toEqual({ status: 404, code: 'NOT_FOUND' });
    // A segment that is not UTF-8 reaches the handler as null: it names nothing either.
    expect(await seen(await w.request('owner', '/api/canvases/%ff%fe'))).toEqual({ status: 404, code: 'NOT_FOUND' });
    const key = { authorization: `Bearer ${w.canvas.apiKey}` };
    const finalize = await app.request(`/v1/canvases/${w.canvas.id}/uploads/%00/finalize`, { method: 'POST', headers: key, body: '{}' });
    const stage = await app.request(`/v1/canvases/${w.canvas.id}/uploads/u%00/blobs/${'a'.repeat(64)}`, {
      method: 'PUT',
      headers: key,
      body: 'x',
    });
    expect([await seen(finalize), await seen(stage)]).toEqual([
      { status: 404, code: 'UPLOAD_HANDLE_INVALID' },
      { status: 404, code: 'UPLOAD_HANDLE_INVALID' },
    ]);
  });

  test('in a value stored as JSON is data: a KV value and a record keep it', async () => {
    await w.capabilities({ expectedRuntimePolicy: null, runtimePolicy: { collections: { notes: { preset: 'collaborative' } } } });
    const kv = `/v1/c/${w.canvas.slug}/kv/held`;
    expect((await w.request('owner', kv, { method: 'PUT', json: 'a\u0000b' })).status).toBe(200);
    expect((await body(await w.request('owner', kv))).value).toBe('a\u0000b');
    const record = await w.request('owner', `/v1/c/${w.canvas.slug}/collections/notes`, { method: 'POST', json: { text: 'x\u0000y' } });
    expect(record.status).toBe(201);
    expect((await body(record)).value).toEqual({ text: 'x\u0000y' });
  });

  test('over MCP: a title is refused by the tool; a file whose content holds one deploys and serves it', async () => {
    const created = (await client.callTool({ name: 'create_canvas', arguments: { title: 'a\u0000b' } })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(created.isError).toBe(true);
    expect(created.content[0]!.text).toBe('INVALID_BODY: title: text may not hold a NUL character (U+0000)');

    const files = [
      { path: 'index.html', content: '<h1>nul</h1>', encoding: 'utf8' },
      { path: 'data.bin', content: 'a\u0000b', encoding: 'utf8' },
    ];
    const deployed = (await client.callTool({ name: 'deploy_canvas', arguments: { canvasId: w.canvas.id, files } })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(deployed.isError).toBeFalsy();
    const served = await w.request('owner', `/c/${w.canvas.slug}/data.bin`);
    expect([...new Uint8Array(await served.arrayBuffer())]).toEqual([0x61, 0, 0x62]);
  });
});

describe('nulTextPath', () => {
  const schema = Type.Object({
    title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    tags: Type.Optional(Type.Array(Type.String())),
    headers: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]))),
    free: Type.Optional(Type.Unknown()),
    content: Type.Optional(Type.String({ contentMediaType: 'application/octet-stream' })),
  });

  test('names the first text holding a NUL, through unions, arrays and records (their keys too)', () => {
    expect(nulTextPath(schema, { title: null, tags: ['a', 'b\u0000'] })).toBe('tags.1');
    expect(nulTextPath(schema, { headers: { a: null, b: '\u0000' } })).toBe('headers.b');
    expect(nulTextPath(schema, { headers: { 'a\u0000': 'x' } })).toBe('headers');
    expect(nulTextPath(schema, { title: 'x\u0000' })).toBe('title');
    expect(nulTextPath(Type.String(), '\u0000')).toBe('body');
  });

  test('leaves free values and contents alone, and text without one', () => {
    expect(nulTextPath(schema, { free: { deep: ['\u0000'] }, content: '\u0000' })).toBeNull();
    expect(nulTextPath(schema, { title: 'fine', tags: [], headers: { a: 'b' } })).toBeNull();
  });
});
