// passes: embedded, s3, cluster
// MCP through a real client: the SDK's own Client and Streamable HTTP client
// transport against the running server (issue 17 item 2).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sha256Hex } from '../src/ids.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { World } from './world.ts';

let app: TestApp;
let w: World;
let token: string;
let viewerToken: string;
const clients: Client[] = [];

async function connect(bearer: string | null): Promise<Client> {
  const client = new Client({ name: 'easel-test', version: '1' });
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

type Result = { isError?: boolean; content: Array<{ type: string; text: string }> };
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as Result;
  if (result.isError) throw new Error(result.content[0]!.text);
  return JSON.parse(result.content[0]!.text);
}
async function refusal(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as Result;
  expect(result.isError).toBe(true);
  return result.content[0]!.text;
}

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  w = await new World().attach(app);
  const make = async (who: 'owner' | 'viewer') =>
    (await body(await w.request(who, '/api/tokens', { method: 'POST', json: { name: 'agent' } }))).token as string;
  token = await make('owner');
  viewerToken = await make('viewer');
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await app.close();
});

describe('MCP', () => {
  test("tools/list: the spec's twelve and Easel's own, each with a description, an input schema and annotations", async () => {
    const client = await connect(token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'add_files',
        'begin_deploy',
        'browse_canvas_data',
        'create_canvas',
        'delete_canvas_data_item',
        'deploy_canvas',
        'export_canvas_data',
        'finalize_deploy',
        'get_canvas',
        'get_canvas_file',
        'list_canvases',
        'list_versions',
        'regenerate_deploy_key',
        'rollback_canvas',
        'set_capabilities',
        'unpublish_canvas',
        'update_canvas',
      ].sort(),
    );
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(20);
      expect(t.inputSchema.type).toBe('object');
    }
    const deploy = tools.find((t) => t.name === 'deploy_canvas')!;
    expect(deploy.inputSchema.required).toEqual(['canvasId', 'files']);
    // Annotations let a client ask its person before what replaces: reads say so, and nothing reaches past this server.
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const name of ['list_canvases', 'list_versions', 'get_canvas', 'get_canvas_file', 'export_canvas_data', 'browse_canvas_data'])
      expect(hints[name]).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(hints.create_canvas).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    for (const name of ['unpublish_canvas', 'delete_canvas_data_item', 'rollback_canvas'])
      expect(hints[name]).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    for (const name of ['deploy_canvas', 'finalize_deploy', 'regenerate_deploy_key']) expect(hints[name]!.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === 'rollback_canvas')!.inputSchema.properties!.version).toMatchObject({
      description: 'The version number, as list_versions gives it.',
    });
  });

  test('export_canvas_data: what the canvas collected, as its runtime API lets the caller read it', async () => {
    const client = await connect(token);
    const slug = w.canvas.slug;
    await w.request('viewer', `/v1/c/${slug}/submissions/rsvp/mine`, { method: 'PUT', json: { coming: true, note: 'a, b' } });
    const csv = await call(client, 'export_canvas_data', { canvasId: w.canvas.id, kind: 'submissions', name: 'rsvp', format: 'csv' });
    expect(csv.truncated).toBe(false);
    expect(csv.url).toBe(`${app.ctx.config.baseUrl.replace(/\/$/, '')}/api/canvases/${w.canvas.id}/data/submissions/rsvp?format=csv`);
    expect(csv.content.split('\r\n')[0]).toBe('userId,name,email,updatedAt,coming,note');
    expect(csv.content).toContain(`${w.emails.viewer},`);
    expect(csv.content).toContain(',true,"a, b"\r\n');
    expect(await refusal(client, 'export_canvas_data', { canvasId: w.canvas.id, kind: 'submissions' })).toContain('name: required');
    // A viewer manages nothing: the canvas is unknown to them, as on the HTTP route.
    expect(await refusal(await connect(viewerToken), 'export_canvas_data', { canvasId: w.canvas.id, kind: 'kv' })).toContain('NOT_FOUND');
  });

  test('browse_canvas_data and delete_canvas_data_item: a page with a search, then one item removed, as the HTTP routes do', async () => {
    const client = await connect(token);
    const slug = w.canvas.slug;
    for (const key of ['alpha', 'beta', 'beta_2'])
      expect((await w.request('editor', `/v1/c/${slug}/kv/${key}`, { method: 'PUT', json: key })).status).toBe(200);
    const page = await call(client, 'browse_canvas_data', { canvasId: w.canvas.id, kind: 'kv', q: '_', limit: 5 });
    expect(page).toEqual({ items: [{ deletable: true, key: 'beta_2', value: 'beta_2' }], next: null });
    const first = await call(client, 'browse_canvas_data', { canvasId: w.canvas.id, kind: 'kv', limit: 1 });
    expect(first).toEqual({ items: [{ deletable: true, key: 'alpha', value: 'alpha' }], next: 'alpha' });
    expect(await call(client, 'delete_canvas_data_item', { canvasId: w.canvas.id, kind: 'kv', item: 'beta' })).toEqual({ ok: true });
    expect((await w.request('viewer', `/v1/c/${slug}/kv/beta`)).status).toBe(404);
    expect(await refusal(client, 'browse_canvas_data', { canvasId: w.canvas.id, kind: 'collection' })).toContain('name: required');
    expect(
      await refusal(await connect(viewerToken), 'delete_canvas_data_item', { canvasId: w.canvas.id, kind: 'kv', item: 'alpha' }),
    ).toContain('NOT_FOUND');
  });

  test('an agent creates, deploys, reads back, updates, rolls back and unpublishes a canvas', async () => {
    const client = await connect(token);
    const created = await call(client, 'create_canvas', { title: 'Agent site', slug: 'agent-site' });
    expect(created.apiKey).toMatch(/^easel_/);
    expect(created.deploy).toEqual({
      apiBase: app.ctx.config.apiBaseUrl,
      zip: `${app.ctx.config.apiBaseUrl}/v1/canvases/${created.canvas.id}/deploy`,
      upload: `${app.ctx.config.apiBaseUrl}/v1/canvases/${created.canvas.id}/uploads`,
      files: `${app.ctx.config.apiBaseUrl}/v1/canvases/${created.canvas.id}/files`,
      curl: expect.stringContaining('--data-binary @site.zip'),
    });
    const id = created.canvas.id;
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const first = await call(client, 'deploy_canvas', {
      canvasId: id,
      releaseId: 'r1',
      files: [
        { path: 'index.html', content: '<h1>v1</h1>', encoding: 'utf8' },
        { path: 'logo.png', content: png.toString('base64'), encoding: 'base64' },
      ],
    });
    expect(first).toMatchObject({ outcome: 'published', version: 1 });
    const again = await call(client, 'deploy_canvas', {
      canvasId: id,
      releaseId: 'r1',
      files: [{ path: 'index.html', content: 'x', encoding: 'utf8' }],
    });
    expect(again.outcome).toBe('already_current');
    const read = await call(client, 'get_canvas_file', { canvasId: id, path: 'index.html' });
    expect(read).toEqual({
      path: 'index.html',
      size: 11,
      mime: 'text/html; charset=utf-8',
      hash: sha256Hex('<h1>v1</h1>'),
      content: '<h1>v1</h1>',
      encoding: 'utf8',
    });
    const big = await call(client, 'create_canvas', { title: 'Big file' });
    const large = 'x'.repeat(256 * 1024 + 1);
    await call(client, 'deploy_canvas', { canvasId: big.canvas.id, files: [{ path: 'index.html', content: large, encoding: 'utf8' }] });
    // Above 256 KiB: the metadata, the hash, and where the same token reads the bytes.
    const described = await call(client, 'get_canvas_file', { canvasId: big.canvas.id, path: 'index.html' });
    expect(described).toEqual({
      path: 'index.html',
      size: large.length,
      mime: 'text/html; charset=utf-8',
      hash: sha256Hex(large),
      // The answering node's own address (on the cluster pass each node has its own).
      url: expect.stringMatching(new RegExp(`^http://[^/]+/api/canvases/${big.canvas.id}/files\\?path=index\\.html$`)),
    });
    const fetched = await fetch(described.url, { headers: { authorization: `Bearer ${token}` } });
    expect([fetched.status, (await fetched.text()) === large]).toEqual([200, true]);
    const logo = await call(client, 'get_canvas_file', { canvasId: id, path: 'logo.png' });
    expect([logo.encoding, Buffer.from(logo.content, 'base64').equals(png)]).toEqual(['base64', true]);

    // The staged path: begin, add what is missing, finalize.
    const files = [{ path: 'index.html', content: '<h1>v2</h1>', encoding: 'utf8' }];
    const begun = await call(client, 'begin_deploy', {
      canvasId: id,
      manifest: [{ path: 'index.html', hash: sha256Hex('<h1>v2</h1>'), size: 11 }],
    });
    expect(begun.missingHashes).toEqual([sha256Hex('<h1>v2</h1>')]);
    await call(client, 'add_files', { canvasId: id, uploadId: begun.uploadId, files });
    expect(await call(client, 'finalize_deploy', { canvasId: id, uploadId: begun.uploadId })).toMatchObject({
      outcome: 'published',
      version: 2,
    });
    // Previews (issue 40): ready versions that do not go live, on both tools.
    const liveToken = (await app.ctx.canvases.byId(id))!.publicationToken;
    const preview = await call(client, 'deploy_canvas', {
      canvasId: id,
      preview: true,
      files: [{ path: 'index.html', content: '<h1>preview</h1>', encoding: 'utf8' }],
    });
    expect(preview).toMatchObject({
      outcome: 'preview',
      version: 3,
      publicationToken: liveToken,
      previewUrl: expect.stringContaining('__easel/v/3/'),
    });
    const staged = await call(client, 'begin_deploy', {
      canvasId: id,
      manifest: [{ path: 'index.html', hash: sha256Hex('<h1>p2</h1>'), size: 11 }],
    });
    await call(client, 'add_files', {
      canvasId: id,
      uploadId: staged.uploadId,
      files: [{ path: 'index.html', content: '<h1>p2</h1>', encoding: 'utf8' }],
    });
    expect(await call(client, 'finalize_deploy', { canvasId: id, uploadId: staged.uploadId, preview: true })).toMatchObject({
      outcome: 'preview',
      version: 4,
    });
    expect((await app.ctx.canvases.byId(id))!.publicationToken).toBe(liveToken);

    const got = await call(client, 'get_canvas', { canvasId: id });
    expect(got.canvas).toMatchObject({ id, runtimePolicyRevision: null, publicationState: 'published' });
    expect(got.deploy).toEqual(created.deploy);
    const updated = await call(client, 'update_canvas', { canvasId: id, title: 'Renamed by agent', accessMode: 'whole_org' });
    expect(updated.canvas).toMatchObject({ title: 'Renamed by agent', accessMode: 'whole_org' });
    const caps = await call(client, 'set_capabilities', {
      canvasId: id,
      expectedRuntimePolicy: null,
      runtimePolicy: { collections: { notes: { preset: 'personal' } } },
      kv: false,
    });
    expect(caps.canvas.capabilities.kv).toBe(false);
    expect(caps.canvas.runtimePolicyRevision).toEqual(expect.any(String));
    // The numbers rollback_canvas takes, as the versions list answers them (the key is not needed).
    const versions = await call(client, 'list_versions', { canvasId: id });
    const http = await body(await app.request(`/v1/canvases/${id}/versions`, { headers: { authorization: `Bearer ${created.apiKey}` } }));
    expect(versions).toEqual(http);
    expect(versions.versions.map((v: { number: number; preview: boolean }) => [v.number, v.preview])).toEqual([
      [4, true],
      [3, true],
      [2, false],
      [1, false],
    ]);
    expect(await call(client, 'rollback_canvas', { canvasId: id, version: 1 })).toMatchObject({ version: 1 });
    expect((await call(client, 'list_versions', { canvasId: id })).versions.find((v: { current: boolean }) => v.current).number).toBe(1);
    expect((await call(client, 'unpublish_canvas', { canvasId: id })).publicationState).toBe('draft');
    const listed = await call(client, 'list_canvases');
    expect(listed.canvases.some((c: { id: string }) => c.id === id)).toBe(true);
    const key = await call(client, 'regenerate_deploy_key', { canvasId: id });
    expect(key.apiKey).not.toBe(created.apiKey);
    expect(key.deploy).toEqual(created.deploy);
    expect((await app.request(`/v1/canvases/${id}`, { headers: { authorization: `Bearer ${created.apiKey}` } })).status).toBe(401);
  });

  test('refusals are tool errors: CODE: message, then the current or release JSON', async () => {
    const client = await connect(token);
    const { canvas } = await call(client, 'create_canvas', { title: 'Coordinated' });
    await call(client, 'deploy_canvas', {
      canvasId: canvas.id,
      releaseId: 'a',
      files: [{ path: 'index.html', content: 'a', encoding: 'utf8' }],
    });
    await call(client, 'deploy_canvas', {
      canvasId: canvas.id,
      releaseId: 'b',
      files: [{ path: 'index.html', content: 'b', encoding: 'utf8' }],
    });

    const changed = await refusal(client, 'deploy_canvas', {
      canvasId: canvas.id,
      expectedPublicationToken: 'stale',
      files: [{ path: 'index.html', content: 'c', encoding: 'utf8' }],
    });
    const [line, json] = changed.split('\n');
    expect(line).toStartWith('PUBLICATION_CHANGED: ');
    expect(JSON.parse(json!).current).toMatchObject({ version: 2 });

    const old = await refusal(client, 'deploy_canvas', {
      canvasId: canvas.id,
      releaseId: 'a',
      files: [{ path: 'index.html', content: 'a', encoding: 'utf8' }],
    });
    expect(old.split('\n')[0]).toStartWith('RELEASE_NOT_CURRENT: ');
    expect(JSON.parse(old.split('\n')[1]!).release).toMatchObject({ version: 1 });

    expect(
      await refusal(client, 'deploy_canvas', { canvasId: canvas.id, files: [{ path: 'a.txt', content: 'x', encoding: 'latin1' }] }),
    ).toStartWith('INVALID_ENCODING: ');
    expect(
      await refusal(client, 'add_files', { canvasId: canvas.id, uploadId: 'u', files: [{ path: 'a', content: '@@', encoding: 'base64' }] }),
    ).toStartWith('INVALID_ENCODING: ');
    expect(await refusal(client, 'rollback_canvas', { canvasId: canvas.id, version: 99 })).toStartWith('INVALID_PATH: ');
    expect(await refusal(client, 'get_canvas_file', { canvasId: canvas.id, path: 'nope.html' })).toStartWith('NOT_FOUND: ');
  });

  test('the same rights as the HTTP routes: a viewer is refused as /api is, an editor may not regenerate the key', async () => {
    const viewer = await connect(viewerToken);
    expect(await refusal(viewer, 'get_canvas', { canvasId: w.canvas.id })).toStartWith('NOT_FOUND: ');
    expect(
      await refusal(viewer, 'deploy_canvas', { canvasId: w.canvas.id, files: [{ path: 'index.html', content: 'x', encoding: 'utf8' }] }),
    ).toStartWith('NOT_FOUND: ');
    const http = await app.request(`/api/canvases/${w.canvas.id}`, { cookie: w.cookie.viewer });
    expect(http.status).toBe(404);
    const editorToken = (await body(await w.request('editor', '/api/tokens', { method: 'POST', json: { name: 'e' } }))).token;
    const editor = await connect(editorToken);
    expect((await call(editor, 'get_canvas', { canvasId: w.canvas.id })).canvas.role).toBe('editor');
    expect(await refusal(editor, 'regenerate_deploy_key', { canvasId: w.canvas.id })).toStartWith('PERMISSION_DENIED: ');
  });

  test('no token, a wrong one or a revoked one: 401 before any tool runs; a session only from the dashboard', async () => {
    const post = (authorization?: string) =>
      fetch(`${app.base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const none = await post();
    expect(none.status).toBe(401);
    // The challenge MCP clients look for (RFC 6750), and the Deploy API's body.
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="easel"');
    expect(await none.json()).toEqual({ error: 'unauthorized' });
    expect((await post('Bearer easel_pat_' + '0'.repeat(40))).status).toBe(401);
    // A canvas's deploy key is the likeliest wrong credential: the answer says what to send instead.
    const canvasKey = await post(`Bearer ${w.canvas.apiKey}`);
    expect(canvasKey.status).toBe(401);
    expect(await canvasKey.json()).toEqual({
      error: 'unauthorized',
      hint: "a canvas's deploy key publishes that canvas over the Deploy API; /mcp takes a personal access token (easel_pat_…, from the dashboard's Tokens page)",
    });
    const made = await body(await w.request('owner', '/api/tokens', { method: 'POST', json: { name: 'short-lived' } }));
    expect((await post(`Bearer ${made.token}`)).status).toBe(200);
    await w.expectOk('DELETE', `/api/tokens/${made.id}`, 'owner');
    expect((await post(`Bearer ${made.token}`)).status).toBe(401);
    await expect(connect('easel_pat_' + '1'.repeat(40))).rejects.toThrow();
    // A session works from the dashboard's origin, and a page of another site cannot use it.
    // Asked of the first node with its own origin (on the cluster pass each node has its own base URL).
    const node = app.nodes[0]!;
    const withSession = (origin: string) =>
      node.request('/mcp', {
        method: 'POST',
        cookie: w.cookie.owner,
        origin,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await withSession(new URL(node.ctx.config.baseUrl).origin)).status).toBe(200);
    expect((await withSession('https://evil.example')).status).toBe(403);
  });
});

describe('MCP under the deploy rate', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_DEPLOY_PER_MIN: '2' } });
  });
  afterAll(() => limited.close());

  test('a refusal says how long to wait: a model cannot read the Retry-After an HTTP client gets', async () => {
    const lw = await new World().attach(limited);
    const bearer = (await body(await lw.request('owner', '/api/tokens', { method: 'POST', json: { name: 'agent' } }))).token as string;
    const client = new Client({ name: 'easel-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${limited.base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${bearer}` } },
      }),
    );
    clients.push(client);
    const files = [{ path: 'index.html', content: 'x', encoding: 'utf8' }];
    const deploy = () => client.callTool({ name: 'deploy_canvas', arguments: { canvasId: lw.canvas.id, files } }) as Promise<Result>;
    expect((await deploy()).isError).toBeFalsy();
    expect((await deploy()).isError).toBeFalsy();
    const refused = await deploy();
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^RATE_LIMITED: rate limited \(try again in [1-9][0-9]* s\)$/);
  });
});
