// passes: embedded, s3, cluster
import { adminSettings } from './admin-actions.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { utcDay } from '../src/runtime/usage.ts';
import { body, ON_CLUSTER, startTestApp, type TestApp } from './harness.ts';
import { expectCode } from './expect-code.ts';
import { ADMIN_EMAIL, apiCanvas, makeWorld, type Who, type World } from './runtime-fixtures.ts';

const BOUNDARY = 'easel-test-boundary-7d3f';

interface RawPart {
  headers: string[];
  data: string | Uint8Array;
}

/** A multipart body written by hand, so odd parts (no filename, no type) can be sent. */
function multipart(parts: RawPart[]): Uint8Array<ArrayBuffer> {
  const chunks: Uint8Array[] = [];
  const enc = new TextEncoder();
  for (const p of parts) {
    chunks.push(enc.encode(`--${BOUNDARY}\r\n${p.headers.join('\r\n')}\r\n\r\n`));
    chunks.push(typeof p.data === 'string' ? enc.encode(p.data) : p.data);
    chunks.push(enc.encode('\r\n'));
  }
  chunks.push(enc.encode(`--${BOUNDARY}--\r\n`));
  return new Uint8Array(Buffer.concat(chunks));
}

const filePart = (data: string | Uint8Array, filename: string | null = 'a.txt', type: string | null = 'text/plain'): RawPart => ({
  headers: [
    `Content-Disposition: form-data; name="file"${filename === null ? '' : `; filename="${filename}"`}`,
    ...(type ? [`Content-Type: ${type}`] : []),
  ],
  data,
});
const field = (name: string, value: string): RawPart => ({ headers: [`Content-Disposition: form-data; name="${name}"`], data: value });

describe('runtime files', () => {
  let app: TestApp;
  let w: World;
  beforeAll(async () => {
    app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
    w = await makeWorld(app);
  });
  afterAll(() => app.close());

  const files = (path: string, init: RequestInit & { cookie?: string; json?: unknown } = {}, slug = w.slug) =>
    app.request(`/v1/c/${slug}/files${path}`, init);
  const upload = (parts: RawPart[], cookie = w.cookie.editor, slug = w.slug) =>
    files(
      '',
      { method: 'POST', cookie, body: multipart(parts), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } },
      slug,
    );
  const uploadOk = async (parts: RawPart[], cookie = w.cookie.editor) => {
    const res = await upload(parts, cookie);
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    return body(res);
  };
  const list = async (cookie: string) => (await body(await files('', { cookie }))).files as any[];

  test('upload answers 201 {id, name, size, url}; the list holds the file record; the content comes back byte for byte', async () => {
    const res = await upload([filePart('hello, files')]);
    expect(res.status).toBe(201);
    const up = await body(res);
    expect(up).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{20}$/),
      name: 'a.txt',
      size: 12,
      url: `/v1/c/${w.slug}/files/${up.id}/content`,
    });
    const record = (await list(w.cookie.viewer)).find((f) => f.id === up.id);
    expect(record).toEqual({
      id: up.id,
      name: 'a.txt',
      size: 12,
      mime: 'text/plain',
      createdAt: expect.any(Number),
      scope: 'shared',
      uploadedBy: w.ids.editor,
    });
    const content = await app.request(up.url, { cookie: w.cookie.viewer });
    expect(content.status).toBe(200);
    expect(await content.text()).toBe('hello, files');
    expect(content.headers.get('content-type')).toBe('text/plain');
    expect(content.headers.get('x-content-type-options')).toBe('nosniff');
    expect(content.headers.get('content-disposition')).toBe(`attachment; filename="a.txt"; filename*=UTF-8''a.txt`);
  });

  test('FormData from a real client works too (binary bytes intact)', async () => {
    const bytes = crypto.getRandomValues(new Uint8Array(300_000));
    const form = new FormData();
    form.append('scope', 'shared');
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'pic.png');
    const res = await files('', { method: 'POST', cookie: w.cookie.owner, body: form });
    expect(res.status).toBe(201);
    const up = await body(res);
    const content = await app.request(up.url, { cookie: w.cookie.viewer });
    expect(new Uint8Array(await content.arrayBuffer())).toEqual(bytes);
    expect(content.headers.get('content-type')).toBe('image/png');
    expect(content.headers.get('content-disposition')).toStartWith('inline; ');
  });

  test('a part without filename or type gets `upload` and application/octet-stream; paths and control characters are dropped', async () => {
    const noName = await uploadOk([filePart('x', null, null)]);
    expect(noName.name).toBe('upload');
    const empty = await uploadOk([filePart('x', '', null)]);
    expect(empty.name).toBe('upload');
    const record = (await list(w.cookie.owner)).find((f) => f.id === empty.id);
    expect(record.mime).toBe('application/octet-stream');
    expect((await uploadOk([filePart('x', '../../etc/passwd')])).name).toBe('passwd');
    expect((await uploadOk([filePart('x', 'C:\\Users\\me\\report.pdf', 'application/pdf')])).name).toBe('report.pdf');
    expect((await uploadOk([filePart('x', 'bad type', 'not a mime')])).name).toBe('bad type');
  });

  // Browsers send a UTF-8 filename raw inside the quotes; the multipart libraries we tried lost the
  // whole part on it (multipasta) or could not tell a missing Content-Type from text/plain (busboy).
  test('a raw UTF-8 filename and an explicit text/plain type are kept; a malformed filename* falls back to filename', async () => {
    const euro = await uploadOk([filePart('x', 'résumé €.pdf', 'text/plain')]);
    expect(euro.name).toBe('résumé €.pdf');
    expect((await list(w.cookie.owner)).find((f) => f.id === euro.id).mime).toBe('text/plain');
    const broken = await uploadOk([
      { headers: [`Content-Disposition: form-data; name="file"; filename="plain.txt"; filename*=UTF-8''%E2%82%ZZ.txt`], data: 'x' },
    ]);
    expect(broken.name).toBe('plain.txt');
  });

  test('only png, jpeg, gif, webp and avif render inline; SVG and HTML are attachments with a sanitized filename', async () => {
    const cases: Array<[string, string]> = [
      ['image/png', 'inline'],
      ['image/jpeg', 'inline'],
      ['image/gif', 'inline'],
      ['image/webp', 'inline'],
      ['image/avif', 'inline'],
      ['image/svg+xml', 'attachment'],
      ['text/html', 'attachment'],
      ['application/javascript', 'attachment'],
    ];
    for (const [type, kind] of cases) {
      const up = await uploadOk([filePart('<svg onload=alert(1)>', 'f', type)]);
      const res = await app.request(up.url, { cookie: w.cookie.viewer });
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('content-disposition')!.split(';')[0]).toBe(kind);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const weird = await uploadOk([filePart('x', 'r\u00e9sum\u00e9 %22final%22;.html', 'text/html')]);
    const res = await app.request(weird.url, { cookie: w.cookie.viewer });
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="r_sum_ _final__.html"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22%3B.html`,
    );
  });

  test('content carries an ETag and answers 304 to If-None-Match', async () => {
    const up = await uploadOk([filePart('etag me')]);
    const first = await app.request(up.url, { cookie: w.cookie.viewer });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const again = await app.request(up.url, { cookie: w.cookie.viewer, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  test('If-None-Match matches as for pages: weak tags, lists and * answer 304; other tags 200', async () => {
    const up = await uploadOk([filePart('etag variants')]);
    const etag = (await app.request(up.url, { cookie: w.cookie.viewer })).headers.get('etag')!;
    const other = `"${'0'.repeat(64)}"`;
    const status = async (ifNoneMatch: string) =>
      (await app.request(up.url, { cookie: w.cookie.viewer, headers: { 'if-none-match': ifNoneMatch } })).status;
    for (const inm of [`W/${etag}`, `${other}, ${etag}`, `W/${other}, W/${etag}`, `${other},${etag}`, '*'])
      expect({ inm, status: await status(inm) }).toEqual({ inm, status: 304 });
    for (const inm of [other, `W/${other}`, `${other}, W/"nope"`]) expect({ inm, status: await status(inm) }).toEqual({ inm, status: 200 });
    const res = await app.request(up.url, { cookie: w.cookie.viewer, headers: { 'if-none-match': `W/${etag}` } });
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
  });

  test('the streaming parser survives any chunking, delimiters split included', async () => {
    const data = 'line one\r\n--not-the-boundary\r\n' + '\r\n--' + BOUNDARY.slice(0, 10) + ' tail';
    const whole = multipart([field('scope', 'shared'), filePart(data, 'chunky.txt'), field('ignored', 'x')]);
    for (const size of [1, 3, 7, 64]) {
      let offset = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= whole.length) return controller.close();
          controller.enqueue(whole.slice(offset, offset + size));
          offset += size;
        },
      });
      const res = await files('', {
        method: 'POST',
        cookie: w.cookie.editor,
        body: stream,
        headers: { 'content-type': `multipart/form-data; boundary="${BOUNDARY}"` },
      });
      expect(res.status).toBe(201);
      const up = await body(res);
      expect(up.name).toBe('chunky.txt');
      expect(await (await app.request(up.url, { cookie: w.cookie.viewer })).text()).toBe(data);
    }
  });

  test('a missing or non-multipart body, or no file part, is 400 INVALID_BODY', async () => {
    await expectCode(await files('', { method: 'POST', cookie: w.cookie.editor }), 400, 'INVALID_BODY');
    await expectCode(await files('', { method: 'POST', cookie: w.cookie.editor, json: { file: 'x' } }), 400, 'INVALID_BODY');
    await expectCode(
      await files('', { method: 'POST', cookie: w.cookie.editor, body: 'x', headers: { 'content-type': 'multipart/form-data' } }),
      400,
      'INVALID_BODY',
    );
    await expectCode(await upload([field('scope', 'shared')]), 400, 'INVALID_BODY');
    await expectCode(await upload([filePart('a'), filePart('b')]), 400, 'INVALID_BODY');
    const truncated = multipart([filePart('abc')]).slice(0, 80);
    await expectCode(
      await files('', {
        method: 'POST',
        cookie: w.cookie.editor,
        body: truncated,
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      }),
      400,
      'INVALID_BODY',
    );
    await expectCode(
      await files('', {
        method: 'POST',
        cookie: w.cookie.editor,
        body: 'no boundary here',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      }),
      400,
      'INVALID_BODY',
    );
  });

  test('scope: omitted is shared (owners and editors); submission for viewers; unknown or combined with group/collection is 400', async () => {
    await expectCode(await upload([filePart('x')], w.cookie.viewer), 403, 'PERMISSION_DENIED');
    await expectCode(await upload([field('scope', 'shared'), filePart('x')], w.cookie.viewer), 403, 'PERMISSION_DENIED');
    const sub = await uploadOk([field('scope', 'submission'), filePart('mine')], w.cookie.viewer);
    expect((await list(w.cookie.viewer)).find((f) => f.id === sub.id).scope).toBe('submission');
    const after = await uploadOk([filePart('late scope'), field('scope', 'submission')], w.cookie.viewer);
    expect(after.size).toBe(10);
    for (const parts of [
      [field('scope', 'bogus'), filePart('x')],
      [field('scope', ''), filePart('x')],
      [field('scope', 'shared'), field('group', 'photos'), filePart('x')],
      [filePart('x'), field('scope', 'submission'), field('collection', 'notes'), field('recordId', 'r1')],
      [field('collection', 'notes'), filePart('x')],
      [field('recordId', 'r1'), filePart('x')],
    ]) {
      await expectCode(await upload(parts), 400, 'INVALID_BODY');
    }
    // A group or collection the policy does not configure (test/file-groups.test.ts has the configured ones).
    await expectCode(await upload([field('group', 'photos'), filePart('x')]), 404, 'COLLECTION_NOT_CONFIGURED');
    await expectCode(
      await upload([field('collection', 'notes'), field('recordId', 'r1'), filePart('x')]),
      404,
      'COLLECTION_NOT_CONFIGURED',
    );
  });

  test("visibility: viewers list shared files plus their own submissions; another person's private file is 404 everywhere", async () => {
    const mine = await uploadOk([field('scope', 'submission'), filePart('v1 private')], w.cookie.viewer);
    const theirs = await uploadOk([field('scope', 'submission'), filePart('v2 private')], w.cookie.viewer2);
    const shared = await uploadOk([filePart('for all')], w.cookie.owner);
    const v1 = (await list(w.cookie.viewer)).map((f) => f.id);
    expect(v1).toContain(mine.id);
    expect(v1).toContain(shared.id);
    expect(v1).not.toContain(theirs.id);
    for (const who of ['owner', 'editor'] as const) {
      const ids = (await list(w.cookie[who])).map((f) => f.id);
      expect(ids).toEqual(expect.arrayContaining([mine.id, theirs.id, shared.id]));
    }
    await expectCode(await app.request(theirs.url, { cookie: w.cookie.viewer }), 404, 'NOT_FOUND');
    await expectCode(await files(`/${theirs.id}`, { method: 'PATCH', cookie: w.cookie.viewer, json: { name: 'x' } }), 404, 'NOT_FOUND');
    await expectCode(await files(`/${theirs.id}`, { method: 'DELETE', cookie: w.cookie.viewer }), 404, 'NOT_FOUND');
    await expectCode(await app.request(theirs.url, { cookie: w.cookie.guest }), 404, 'NOT_FOUND');
    expect((await app.request(theirs.url, { cookie: w.cookie.editor })).status).toBe(200);
    const list1 = await list(w.cookie.viewer);
    expect(list1.map((f) => f.createdAt)).toEqual([...list1.map((f) => f.createdAt)].sort((a, b) => a - b));
  });

  test("another canvas's file is 404 NOT_FOUND; a malformed id is 400 INVALID_BODY", async () => {
    const other = await apiCanvas(app, w.cookie.owner);
    const up = await body(await upload([filePart('elsewhere')], w.cookie.owner, other.slug));
    await expectCode(await files(`/${up.id}/content`, { cookie: w.cookie.owner }), 404, 'NOT_FOUND');
    await expectCode(await files(`/${up.id}`, { method: 'DELETE', cookie: w.cookie.owner }), 404, 'NOT_FOUND');
    await expectCode(await files(`/${'z'.repeat(20)}/content`, { cookie: w.cookie.owner }), 404, 'NOT_FOUND');
    await expectCode(await files('/not-an-id/content', { cookie: w.cookie.owner }), 400, 'INVALID_BODY');
    await expectCode(await files('/NOT_AN_ID_AT_ALL_XYZ', { method: 'DELETE', cookie: w.cookie.owner }), 400, 'INVALID_BODY');
  });

  test('rename: 1 to 255 characters, answers the file record; needs read and update rights', async () => {
    const up = await uploadOk([filePart('r')]);
    const rename = (name: unknown, cookie = w.cookie.editor, id = up.id) => files(`/${id}`, { method: 'PATCH', cookie, json: { name } });
    const res = await rename('  new name.txt ');
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({
      id: up.id,
      name: 'new name.txt',
      size: 1,
      mime: 'text/plain',
      createdAt: expect.any(Number),
      scope: 'shared',
      uploadedBy: w.ids.editor,
    });
    expect((await rename('€'.repeat(255))).status).toBe(200);
    for (const bad of ['', '   ', 'x'.repeat(256), 'tab\there', 5, null]) await expectCode(await rename(bad), 400, 'INVALID_BODY');
    await expectCode(await files(`/${up.id}`, { method: 'PATCH', cookie: w.cookie.editor, body: '{oops' }), 400, 'INVALID_BODY');
    await expectCode(await files(`/${up.id}`, { method: 'PATCH', cookie: w.cookie.editor }), 400, 'INVALID_BODY');
    await expectCode(await rename('mine now', w.cookie.viewer), 403, 'PERMISSION_DENIED');
    const sub = await uploadOk([field('scope', 'submission'), filePart('s')], w.cookie.viewer);
    expect((await body(await rename('renamed by author', w.cookie.viewer, sub.id))).name).toBe('renamed by author');
    expect((await body(await rename('renamed by owner', w.cookie.owner, sub.id))).name).toBe('renamed by owner');
    const content = await app.request(up.url, { cookie: w.cookie.viewer });
    expect(content.headers.get('content-disposition')).toContain("filename*=UTF-8''" + '%E2%82%AC'.repeat(255));
  });

  test('delete: {ok: true}, then 404; viewers may delete only their own submissions', async () => {
    const shared = await uploadOk([filePart('d')]);
    await expectCode(await files(`/${shared.id}`, { method: 'DELETE', cookie: w.cookie.viewer }), 403, 'PERMISSION_DENIED');
    const res = await files(`/${shared.id}`, { method: 'DELETE', cookie: w.cookie.editor });
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({ ok: true });
    await expectCode(await files(`/${shared.id}`, { method: 'DELETE', cookie: w.cookie.editor }), 404, 'NOT_FOUND');
    await expectCode(await app.request(shared.url, { cookie: w.cookie.editor }), 404, 'NOT_FOUND');
    const sub = await uploadOk([field('scope', 'submission'), filePart('s')], w.cookie.guest);
    expect((await files(`/${sub.id}`, { method: 'DELETE', cookie: w.cookie.guest })).status).toBe(200);
  });

  test('blobs of runtime files are reported to the blob garbage collection', async () => {
    const up = await uploadOk([filePart('gc-protected-' + crypto.randomUUID())]);
    const hash = (await app.ctx.sql.get<{ hash: string }>('SELECT hash FROM files WHERE id = ?1', up.id))!.hash;
    expect(await app.ctx.blobs.sizeOf(hash)).not.toBeNull();
    expect(await app.ctx.blobGc.isReferenced(hash)).toBe(true);
    await files(`/${up.id}`, { method: 'DELETE', cookie: w.cookie.editor });
    expect(await app.ctx.blobGc.isReferenced(hash)).toBe(false);
  });

  // Usage is counted in each node's memory until its own flush: app.features.usage flushes node A's only.
  test.skipIf(ON_CLUSTER)('usage counts file bytes in and out', async () => {
    const usage = app.features.usage;
    await usage.flush();
    const day = utcDay(Date.now());
    const before = (await usage.read(w.canvas.id, day))!;
    const up = await uploadOk([filePart('0123456789', 'secret-plan.txt')]);
    await app.request(up.url, { cookie: w.cookie.viewer });
    await usage.flush();
    const after = (await usage.read(w.canvas.id, day))!;
    expect(after.fileBytesIn - before.fileBytesIn).toBe(10);
    expect(after.fileBytesOut - before.fileBytesOut).toBe(10);
  });

  test('audit records of uploads carry metadata, never names or contents', async () => {
    const up = await uploadOk([filePart('0123456789', 'secret-plan.txt')]);
    const audit = (await app.ctx.audit.forCanvas(w.canvas.id)).find(
      (e) => e.action === 'file.uploaded' && (e.detail as any).fileId === up.id,
    );
    expect(audit?.detail).toEqual({ fileId: up.id, size: 10, scope: 'shared' });
    expect(JSON.stringify(await app.ctx.audit.forCanvas(w.canvas.id, 1000))).not.toContain('secret-plan');
  });

  test("a legacy guest's uploads, renames and deletes are audited with actorKind guest; a member's with user", async () => {
    const sub = await uploadOk([field('scope', 'submission'), filePart('from a guest')], w.cookie.guest);
    expect((await files(`/${sub.id}`, { method: 'PATCH', cookie: w.cookie.guest, json: { name: 'renamed' } })).status).toBe(200);
    expect((await files(`/${sub.id}`, { method: 'DELETE', cookie: w.cookie.guest })).status).toBe(200);
    const events = (await app.ctx.audit.forCanvas(w.canvas.id, 1000)).filter((e) => (e.detail as any)?.fileId === sub.id);
    expect(events.map((e) => [e.action, e.actorKind, e.actorId]).sort()).toEqual([
      ['file.deleted', 'guest', w.ids.guest],
      ['file.renamed', 'guest', w.ids.guest],
      ['file.uploaded', 'guest', w.ids.guest],
    ]);
    const mine = await uploadOk([field('scope', 'submission'), filePart('from a viewer')], w.cookie.viewer);
    const member = (await app.ctx.audit.forCanvas(w.canvas.id, 1000)).find(
      (e) => e.action === 'file.uploaded' && (e.detail as any)?.fileId === mine.id,
    );
    expect([member?.actorKind, member?.actorId]).toEqual(['user', w.ids.viewer]);
  });

  describe('role matrix', () => {
    const want: Record<Who, { read: number; shared: number; submit: number }> = {
      anonymous: { read: 401, shared: 401, submit: 401 },
      stranger: { read: 404, shared: 404, submit: 404 },
      admin: { read: 404, shared: 404, submit: 404 },
      viewer: { read: 200, shared: 403, submit: 201 },
      guest: { read: 200, shared: 403, submit: 201 },
      editor: { read: 200, shared: 201, submit: 201 },
      owner: { read: 200, shared: 201, submit: 201 },
    };
    for (const [who, exp] of Object.entries(want) as Array<[Who, (typeof want)[Who]]>) {
      test(`${who}: list/content ${exp.read}, shared upload ${exp.shared}, submission ${exp.submit}, shared rename/delete`, async () => {
        const target = await uploadOk([filePart('matrix')], w.cookie.owner);
        const c = w.cookie[who];
        const changeShared = exp.shared === 201 ? 200 : exp.shared;
        const checks: Array<[string, () => Promise<Response>, number]> = [
          ['list', () => files('', { cookie: c }), exp.read],
          ['content', () => files(`/${target.id}/content`, { cookie: c }), exp.read],
          ['upload shared', () => upload([filePart('s')], c), exp.shared],
          ['upload submission', () => upload([field('scope', 'submission'), filePart('s')], c), exp.submit],
          ['rename shared', () => files(`/${target.id}`, { method: 'PATCH', cookie: c, json: { name: 'n' } }), changeShared],
          ['delete shared', () => files(`/${target.id}`, { method: 'DELETE', cookie: c }), changeShared],
        ];
        for (const [what, send, status] of checks) {
          const res = await send();
          const b = await body(res);
          expect({ what, status: res.status }).toEqual({ what, status });
          if (status === 403) expect(b.code).toBe('PERMISSION_DENIED');
          if (status === 404) expect(b.code).toBe('OWNER_ONLY');
          if (status === 401) expect(b).toEqual({ error: 'unauthorized' });
        }
      });
    }
  });
});

describe('runtime file quotas', () => {
  let app: TestApp;
  let w: World;
  beforeAll(async () => {
    app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' } });
    w = await makeWorld(app);
  });
  afterAll(() => app.close());
  const fileCount = async () => (await app.ctx.sql.get<{ n: number }>('SELECT count(*) AS n FROM files'))!.n;
  beforeEach(async () => {
    await adminSettings(app, w.cookie.admin, { filesBytesFile: null, filesBytesCanvas: null });
    await app.ctx.sql.run('DELETE FROM files');
  });

  const upload = (data: Uint8Array | string, cookie = w.cookie.editor) =>
    app.request(`/v1/c/${w.slug}/files`, {
      method: 'POST',
      cookie,
      body: multipart([filePart(data)]),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });

  test('the per-file cap (admin-tunable): at the cap 201, one byte over 413 FILE_TOO_LARGE', async () => {
    await adminSettings(app, w.cookie.admin, { filesBytesFile: 1000 });
    expect((await upload(new Uint8Array(1000))).status).toBe(201);
    const b = await expectCode(await upload(new Uint8Array(1001)), 413, 'FILE_TOO_LARGE');
    expect(b.message).toContain('1000');
    await adminSettings(app, w.cookie.admin, { filesBytesFile: null });
  });

  test('the canvas total (admin-tunable filesBytesCanvas): reaching it exactly is fine, one byte more is 409 QUOTA_EXCEEDED', async () => {
    await app.ctx.sql.run('DELETE FROM files');
    await adminSettings(app, w.cookie.admin, { filesBytesCanvas: 3000 });
    for (let i = 0; i < 3; i++) expect((await upload(new Uint8Array(1000).fill(i))).status).toBe(201);
    await expectCode(await upload('x'), 409, 'QUOTA_EXCEEDED');
    expect((await upload('')).status).toBe(201);
    const id = (await app.ctx.sql.get<{ id: string }>('SELECT id FROM files ORDER BY size DESC LIMIT 1'))!.id;
    await app.request(`/v1/c/${w.slug}/files/${id}`, { method: 'DELETE', cookie: w.cookie.editor });
    expect((await upload(new Uint8Array(1000))).status).toBe(201);
    await expectCode(await upload('x'), 409, 'QUOTA_EXCEEDED');
    await adminSettings(app, w.cookie.admin, { filesBytesCanvas: null });
    await app.ctx.sql.run('DELETE FROM files');
  });

  test('caps are enforced while streaming: an endless chunked body is cut off early, nothing is stored', async () => {
    await adminSettings(app, w.cookie.admin, { filesBytesFile: 64 * 1024 });
    let pulled = 0;
    const head = new TextEncoder().encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`);
    const chunk = new Uint8Array(16 * 1024).fill(7);
    let sentHead = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sentHead) {
          sentHead = true;
          controller.enqueue(head);
          return;
        }
        pulled += chunk.byteLength;
        if (pulled > 200 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const before = await fileCount();
    const res = await app.request(`/v1/c/${w.slug}/files`, {
      method: 'POST',
      cookie: w.cookie.editor,
      body: stream,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    await expectCode(res, 413, 'FILE_TOO_LARGE');
    expect(pulled).toBeLessThan(1024 * 1024);
    expect(await fileCount()).toBe(before);
    await adminSettings(app, w.cookie.admin, { filesBytesFile: null });
  });

  test('every byte of a chunked body counts: a junk part after a small file is cut off at the cap (413 FILE_TOO_LARGE), nothing is stored', async () => {
    await adminSettings(app, w.cookie.admin, { filesBytesFile: 64 * 1024 });
    const enc = new TextEncoder();
    const head = enc.encode(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="small.txt"\r\n\r\nsmall\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="junk"\r\n\r\n`,
    );
    const tail = enc.encode(`\r\n--${BOUNDARY}--\r\n`);
    const chunk = new Uint8Array(16 * 1024).fill(0x6a);
    const junkBytes = 32 * 1024 * 1024;
    let pulled = 0;
    let stage: 'head' | 'junk' | 'tail' | 'done' = 'head';
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (stage === 'head') {
          stage = 'junk';
          controller.enqueue(head);
        } else if (stage === 'junk') {
          pulled += chunk.byteLength;
          controller.enqueue(chunk);
          if (pulled >= junkBytes) stage = 'tail';
        } else if (stage === 'tail') {
          stage = 'done';
          controller.enqueue(tail);
        } else controller.close();
      },
    });
    const before = await fileCount();
    const res = await app.request(`/v1/c/${w.slug}/files`, {
      method: 'POST',
      cookie: w.cookie.editor,
      body: stream,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    const b = await expectCode(res, 413, 'FILE_TOO_LARGE');
    expect(b.quota).toBe('files.bytes.file');
    expect(pulled).toBeLessThan(1024 * 1024);
    expect(await fileCount()).toBe(before);
    await adminSettings(app, w.cookie.admin, { filesBytesFile: null });
  });

  test('a declared Content-Length far over the file cap is refused before reading', async () => {
    await adminSettings(app, w.cookie.admin, { filesBytesFile: 1000 });
    const res = await app.request(`/v1/c/${w.slug}/files`, {
      method: 'POST',
      cookie: w.cookie.editor,
      body: multipart([filePart(new Uint8Array(200 * 1024))]),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    await expectCode(res, 413, 'FILE_TOO_LARGE');
    await adminSettings(app, w.cookie.admin, { filesBytesFile: null });
  });
});
