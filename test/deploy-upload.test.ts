// passes: embedded, s3, cluster
// The staged upload (spec "Staged upload session" table and "Staged upload"
// errors) against the real app: begin, stage, finalize, expiry through the
// injected clock, the finalize lease, restarts, and cleanup.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../src/ids.ts';
import { adminUser } from './admin-actions.ts';
import { startTestApp, type TestApp } from './harness.ts';
import {
  begin,
  blobPuts,
  createKeyedCanvas,
  fakeHash,
  finalize,
  site,
  stage,
  stagedDeploy,
  tokenOf,
  type KeyedCanvas,
} from './upload-fixtures.ts';

const MiB = 1024 * 1024;
const HTML = '<!doctype html><title>hi</title>';

let clock = Date.parse('2030-01-01T00:00:00Z');
let app: TestApp;
const keys: string[] = [];

async function canvas(email?: string): Promise<KeyedCanvas> {
  const c = await createKeyedCanvas(app, email);
  keys.push(c.key);
  return c;
}

beforeAll(async () => {
  app = await startTestApp({
    now: () => clock,
    env: { EASEL_RATELIMIT_DEPLOY_PER_MIN: '100000', EASEL_ADMIN_EMAILS: 'admin@example.test' },
  });
});
afterAll(async () => {
  // No key, in any form, ever reaches the log.
  const logged = JSON.stringify(app.logs);
  for (const key of keys) expect(logged).not.toContain(key);
  await app.close();
});

describe('begin', () => {
  test('opens a session and lists each missing hash once', async () => {
    const c = await canvas();
    const s = site({ 'index.html': HTML, 'a.css': 'body{}', 'copy.css': 'body{}' });
    const r = await begin(app, c, { manifest: s.manifest });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['missingHashes', 'uploadId']);
    expect(r.body.uploadId).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(r.body.missingHashes).toEqual([sha256Hex(HTML), sha256Hex('body{}')]);
  });

  test("only this canvas's blobs count as stored", async () => {
    const a = await canvas();
    const b = await canvas('other@example.test');
    const files = { 'index.html': HTML + 'shared' };
    expect((await stagedDeploy(app, a, files)).status).toBe(200);
    // The blob store holds the bytes (for A), yet B must send them: begin reveals nothing about A.
    const forB = await begin(app, b, { manifest: site(files).manifest });
    expect(forB.body.missingHashes).toEqual([sha256Hex(HTML + 'shared')]);
    const forA = await begin(app, a, { manifest: site(files).manifest });
    expect(forA.body.missingHashes).toEqual([]);
    // B's upload of bytes the store already has is an ordinary 204.
    expect((await stage(app, b, forB.body.uploadId, sha256Hex(HTML + 'shared'), HTML + 'shared')).status).toBe(204);
  });

  test('a blob staged in an earlier session of the same canvas is not asked for again', async () => {
    const c = await canvas();
    const s = site({ 'index.html': HTML + 'staged-once' });
    const first = await begin(app, c, { manifest: s.manifest });
    await stage(app, c, first.body.uploadId, s.files[0]!.hash, s.files[0]!.bytes);
    const second = await begin(app, c, { manifest: s.manifest });
    expect(second.body.missingHashes).toEqual([]);
  });

  test('a hash the canvas holds with another size is asked for again', async () => {
    const c = await canvas();
    const files = { 'index.html': HTML + 'sized' };
    await stagedDeploy(app, c, files);
    const wrong = site(files).manifest.map((e) => ({ ...e, size: e.size + 1 }));
    const r = await begin(app, c, { manifest: wrong });
    expect(r.body.missingHashes).toEqual([sha256Hex(HTML + 'sized')]);
    // The bytes cannot match the declared size.
    const st = await stage(app, c, r.body.uploadId, wrong[0]!.hash, HTML + 'sized');
    expect(st.status).toBe(400);
    expect(st.body.code).toBe('BLOB_HASH_MISMATCH');
  });

  test('paths: one leading ./ or / stripped, empty and "." segments dropped; dotfiles, dot-directories and directory entries skipped', async () => {
    const c = await canvas();
    const s = site({
      './index.html': HTML,
      '/app.js': 'let a=1',
      'assets//x.svg': '<svg/>',
      'css/./y.css': 'y{}',
      '.env': 'SECRET=1',
      '.git/config': '[core]',
      'a/.hidden/b.txt': 'h',
    });
    const manifest = [...s.manifest, { path: 'assets/', hash: '', size: 0 }, { path: '/', hash: 'x', size: -1 }];
    const r = await begin(app, c, { manifest });
    expect(r.status).toBe(200);
    expect(r.body.missingHashes.sort()).toEqual([sha256Hex(HTML), sha256Hex('let a=1'), sha256Hex('<svg/>'), sha256Hex('y{}')].sort());
    for (const h of r.body.missingHashes) await stage(app, c, r.body.uploadId, h, s.byHash.get(h)!);
    const f = await finalize(app, c, r.body.uploadId);
    expect(f.status).toBe(200);
    expect(f.body.fileCount).toBe(4);
    const paths = await app.ctx.sql.all<{ path: string; mime: string }>(
      'SELECT path, mime FROM version_files WHERE version_id = ?1 ORDER BY path',
      f.body.versionId,
    );
    expect(paths.map((p) => p.path)).toEqual(['app.js', 'assets/x.svg', 'css/y.css', 'index.html']);
    expect(paths.find((p) => p.path === 'index.html')!.mime).toContain('text/html');
  });

  test('release already live: 200 already_current and no session', async () => {
    const c = await canvas();
    const files = { 'index.html': HTML + 'r1' };
    const first = await stagedDeploy(app, c, files, { releaseId: 'r1' });
    expect(first.body.outcome).toBe('published');
    const sessions = await countSessions(c.id);
    // The release check precedes the token check: a stale token does not matter.
    const r = await begin(app, c, { manifest: site(files).manifest, releaseId: 'r1', expectedPublicationToken: 'stale' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...first.body, outcome: 'already_current', warnings: expect.any(Array) });
    expect(r.body.uploadId).toBeUndefined();
    expect(await countSessions(c.id)).toBe(sessions);
  });

  test('release only in history: 409 RELEASE_NOT_CURRENT', async () => {
    const c = await canvas();
    await stagedDeploy(app, c, { 'index.html': HTML + 'h1' }, { releaseId: 'h1' });
    await stagedDeploy(app, c, { 'index.html': HTML + 'h2' }, { releaseId: 'h2' });
    const r = await begin(app, c, { manifest: site({ 'index.html': 'x' }).manifest, releaseId: 'h1' });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('RELEASE_NOT_CURRENT');
    expect(r.body.release.version).toBe(1);
    expect(r.body.current.version).toBe(2);
  });

  test('token already stale: 409 PUBLICATION_CHANGED with the current state, no session', async () => {
    const c = await canvas();
    const sessions = await countSessions(c.id);
    const r = await begin(app, c, { manifest: site({ 'index.html': HTML }).manifest, expectedPublicationToken: 'not-the-token' });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('PUBLICATION_CHANGED');
    expect(r.body.current).toEqual({ publicationToken: await tokenOf(app.ctx, c.id), versionId: null, version: null, releaseId: null });
    expect(await countSessions(c.id)).toBe(sessions);
  });

  test('a fresh token is accepted', async () => {
    const c = await canvas();
    const r = await begin(app, c, {
      manifest: site({ 'index.html': HTML }).manifest,
      expectedPublicationToken: await tokenOf(app.ctx, c.id),
    });
    expect(r.status).toBe(200);
  });

  const h = fakeHash('x');
  const invalidManifests: Array<[string, unknown]> = [
    ['manifest missing', {}],
    ['manifest not an array', { manifest: { path: 'a', hash: h, size: 1 } }],
    ['manifest empty', { manifest: [] }],
    [
      'only skipped entries',
      {
        manifest: [
          { path: '.env', hash: h, size: 1 },
          { path: 'dir/', hash: h, size: 0 },
        ],
      },
    ],
    ['entry not an object', { manifest: ['index.html'] }],
    ['path not a string', { manifest: [{ path: 5, hash: h, size: 1 }] }],
    ['hash uppercase', { manifest: [{ path: 'a.html', hash: h.toUpperCase(), size: 1 }] }],
    ['hash too short', { manifest: [{ path: 'a.html', hash: h.slice(1), size: 1 }] }],
    ['hash missing', { manifest: [{ path: 'a.html', size: 1 }] }],
    ['size negative', { manifest: [{ path: 'a.html', hash: h, size: -1 }] }],
    ['size fractional', { manifest: [{ path: 'a.html', hash: h, size: 1.5 }] }],
    ['size a string', { manifest: [{ path: 'a.html', hash: h, size: '1' }] }],
    [
      'one hash, two sizes',
      {
        manifest: [
          { path: 'a.html', hash: h, size: 1 },
          { path: 'b.html', hash: h, size: 2 },
        ],
      },
    ],
    [
      'same path twice',
      {
        manifest: [
          { path: 'a.html', hash: h, size: 1 },
          { path: './a.html', hash: fakeHash('y'), size: 1 },
        ],
      },
    ],
    [
      'same path twice after cleaning',
      {
        manifest: [
          { path: 'd/a.html', hash: h, size: 1 },
          { path: 'd//a.html', hash: h, size: 1 },
        ],
      },
    ],
    ['body an array', [{ path: 'a.html', hash: h, size: 1 }]],
  ];
  for (const [name, json] of invalidManifests) {
    test(`400 INVALID_MANIFEST: ${name}`, async () => {
      const r = await begin(app, await canvas(), json);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('INVALID_MANIFEST');
      expect(typeof r.body.message).toBe('string');
    });
  }

  test('400 INVALID_MANIFEST: body not JSON', async () => {
    const c = await canvas();
    for (const raw of ['{"manifest": [', 'not json', '']) {
      const res = await app.request(`/v1/canvases/${c.id}/uploads`, {
        method: 'POST',
        body: raw,
        headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe('INVALID_MANIFEST');
    }
  });

  test('413 INVALID_MANIFEST: a body over 4 MB', async () => {
    const c = await canvas();
    const res = await app.request(`/v1/canvases/${c.id}/uploads`, {
      method: 'POST',
      body: '{"manifest":[' + ' '.repeat(4 * MiB) + ']}',
      headers: { authorization: `Bearer ${c.key}` },
    });
    expect(res.status).toBe(413);
    expect((await res.json()).code).toBe('INVALID_MANIFEST');
  });

  const badPaths: Array<[string, string, number]> = [
    ['a/../b.html', 'ZIP_SLIP_REJECTED', 400],
    ['../b.html', 'ZIP_SLIP_REJECTED', 400],
    ['/../b.html', 'ZIP_SLIP_REJECTED', 400],
    ['a/..', 'ZIP_SLIP_REJECTED', 400],
    ['..\\b.html', 'ZIP_SLIP_REJECTED', 400],
    ['//etc/passwd', 'INVALID_PATH', 400],
    ['.//x.html', 'INVALID_PATH', 400],
    ['C:/x.html', 'INVALID_PATH', 400],
    ['.', 'INVALID_PATH', 400],
    ['a\\b.html', 'INVALID_PATH', 400],
    ['a\u0001b.html', 'INVALID_PATH', 400],
    ['a\u0085b.html', 'INVALID_PATH', 400],
    ['', 'INVALID_PATH', 400],
  ];
  for (const [path, code, status] of badPaths) {
    test(`${status} ${code}: ${JSON.stringify(path)}`, async () => {
      const r = await begin(app, await canvas(), {
        manifest: [
          { path: 'index.html', hash: fakeHash('i'), size: 1 },
          { path, hash: fakeHash('p'), size: 1 },
        ],
      });
      expect(r.status).toBe(status);
      expect(r.body.code).toBe(code);
      expect(r.body.path).toBe(path);
    });
  }

  test('413 FILE_TOO_LARGE: an entry declared over 25 MB (exactly 25 MB is fine)', async () => {
    const ok = await begin(app, await canvas(), { manifest: [{ path: 'big.bin', hash: fakeHash('b'), size: 25 * MiB }] });
    expect(ok.status).toBe(200);
    const r = await begin(app, await canvas(), {
      manifest: [
        { path: 'index.html', hash: fakeHash('i'), size: 1 },
        { path: 'big.bin', hash: fakeHash('b'), size: 25 * MiB + 1 },
      ],
    });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ code: 'FILE_TOO_LARGE', message: expect.any(String), path: 'big.bin' });
  });

  test('413 TOO_MANY_FILES: more than 2000 entries (dotfiles do not count)', async () => {
    const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `f${i}.txt`, hash: fakeHash(String(i)), size: 1 }));
    const ok = await begin(app, await canvas(), { manifest: [...entries(2000), { path: '.x', hash: fakeHash('dot'), size: 1 }] });
    expect(ok.status).toBe(200);
    const r = await begin(app, await canvas(), { manifest: entries(2001) });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('TOO_MANY_FILES');
  });

  test('413 CANVAS_TOO_LARGE: declared sizes over 100 MB in total', async () => {
    const r = await begin(app, await canvas(), {
      manifest: Array.from({ length: 5 }, (_, i) => ({ path: `p${i}.bin`, hash: fakeHash(`big${i}`), size: 20 * MiB + 1 })),
    });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('CANVAS_TOO_LARGE');
  });

  test('coordination fields: INVALID_RELEASE_ID, INVALID_REQUEST, unknown fields refused', async () => {
    const manifest = site({ 'index.html': HTML }).manifest;
    const cases: Array<[unknown, number, string]> = [
      [{ manifest, releaseId: '' }, 400, 'INVALID_RELEASE_ID'],
      [{ manifest, releaseId: 'x'.repeat(201) }, 400, 'INVALID_RELEASE_ID'],
      [{ manifest, releaseId: 'a\nb' }, 400, 'INVALID_RELEASE_ID'],
      // A lone surrogate cannot be stored verbatim (it came back as U+FFFD, and finalize then refused a mismatch).
      [{ manifest, releaseId: 'v\ud800' }, 400, 'INVALID_RELEASE_ID'],
      [{ manifest, releaseId: 7 }, 400, 'INVALID_REQUEST'],
      [{ manifest, expectedPublicationToken: 7 }, 400, 'INVALID_REQUEST'],
      [{ manifest, expectedPublicatonToken: 'typo' }, 400, 'INVALID_REQUEST'],
    ];
    for (const [json, status, code] of cases) {
      const r = await begin(app, await canvas(), json);
      expect([r.status, r.body.code]).toEqual([status, code]);
    }
    expect((await begin(app, await canvas(), { manifest, releaseId: 'x'.repeat(200) })).status).toBe(200);
    expect((await begin(app, await canvas(), { manifest, releaseId: 'v1 \ud83d\ude80' })).status).toBe(200); // a pair is fine
  });

  test("auth: no key 401, unknown key 401, another canvas's key 403 — before the body is read", async () => {
    const c = await canvas();
    const other = await canvas('other@example.test');
    const noKey = await app.request(`/v1/canvases/${c.id}/uploads`, { method: 'POST', body: 'garbage' });
    expect([noKey.status, await noKey.json()]).toEqual([401, { error: 'unauthorized' }]);
    expect(await begin(app, c, 'garbage', 'easel_sk_' + 'x'.repeat(40))).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect(await begin(app, c, 'garbage', other.key)).toMatchObject({ status: 403, body: { error: 'unauthorized' } });
  });
});

describe('stage', () => {
  async function opened(files: Record<string, string | Uint8Array<ArrayBuffer>> = { 'index.html': HTML + 'stage' }) {
    const c = await canvas();
    const s = site(files);
    const b = await begin(app, c, { manifest: s.manifest });
    expect(b.status).toBe(200);
    return { c, s, uploadId: b.body.uploadId as string };
  }

  test('204 for the right bytes (streamed without a length too)', async () => {
    const { c, s, uploadId } = await opened({ 'index.html': HTML + 'one', 'b.js': 'let b' });
    expect(await stage(app, c, uploadId, s.files[0]!.hash, s.files[0]!.bytes)).toEqual({ status: 204, body: '' });
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(s.files[1]!.bytes.slice(0, 2));
        controller.enqueue(s.files[1]!.bytes.slice(2));
        controller.close();
      },
    });
    expect((await stage(app, c, uploadId, s.files[1]!.hash, chunked)).status).toBe(204);
  });

  test('an empty file stages with an empty body', async () => {
    const { c, s, uploadId } = await opened({ 'index.html': HTML, 'empty.txt': '' });
    expect((await stage(app, c, uploadId, sha256Hex(''), null)).status).toBe(204);
    expect((await stage(app, c, uploadId, s.files[0]!.hash, s.files[0]!.bytes)).status).toBe(204);
    expect((await finalize(app, c, uploadId)).status).toBe(200);
  });

  test('404 UPLOAD_HANDLE_INVALID: unknown handle, or a handle of another canvas', async () => {
    const { c, s, uploadId } = await opened();
    const unknown = await stage(app, c, 'nope', s.files[0]!.hash, s.files[0]!.bytes);
    expect(unknown).toEqual({ status: 404, body: { code: 'UPLOAD_HANDLE_INVALID', message: expect.any(String) } });
    const other = await canvas('other@example.test');
    const cross = await stage(app, other, uploadId, s.files[0]!.hash, s.files[0]!.bytes);
    expect([cross.status, cross.body.code]).toEqual([404, 'UPLOAD_HANDLE_INVALID']);
    // And the key check comes first: the other canvas's key on this canvas's path.
    expect((await stage(app, c, uploadId, s.files[0]!.hash, s.files[0]!.bytes, other.key)).status).toBe(403);
  });

  test("400 UPLOAD_UNEXPECTED_BLOB: a hash not in the manifest, a malformed hash, a skipped dotfile's hash", async () => {
    const { c, uploadId } = await opened({ 'index.html': HTML + 'u', '.env': 'SECRET' });
    for (const hash of [sha256Hex('other'), 'abc', sha256Hex('SECRET')]) {
      const r = await stage(app, c, uploadId, hash, 'other');
      expect([r.status, r.body.code]).toEqual([400, 'UPLOAD_UNEXPECTED_BLOB']);
    }
  });

  test('400 BLOB_HASH_MISMATCH: other bytes of the same length, or another byte count', async () => {
    const { c, s, uploadId } = await opened({ 'index.html': 'abcdef' });
    const wrong = await stage(app, c, uploadId, s.files[0]!.hash, 'abcdeX');
    expect(wrong).toEqual({ status: 400, body: { code: 'BLOB_HASH_MISMATCH', message: expect.any(String) } });
    const short = await stage(app, c, uploadId, s.files[0]!.hash, 'abc');
    expect([short.status, short.body.code]).toEqual([400, 'BLOB_HASH_MISMATCH']);
    const long = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('abcdefgh'));
        controller.close();
      },
    });
    const streamed = await stage(app, c, uploadId, s.files[0]!.hash, long);
    expect([streamed.status, streamed.body.code]).toEqual([400, 'BLOB_HASH_MISMATCH']);
    // Nothing was staged: finalize still misses it.
    expect((await finalize(app, c, uploadId)).body.code).toBe('UPLOAD_MISSING_BLOB');
  });

  test('413 FILE_TOO_LARGE: over 25 MB by Content-Length, and while streaming a body without one', async () => {
    const { c, s, uploadId } = await opened({ 'index.html': 'small' });
    const declared = await stage(app, c, uploadId, s.files[0]!.hash, 'small', c.key, { 'content-length': String(25 * MiB + 1) });
    expect(declared).toEqual({ status: 413, body: { code: 'FILE_TOO_LARGE', message: expect.any(String) } });
    const chunk = new Uint8Array(MiB);
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 30) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const streamed = await stage(app, c, uploadId, s.files[0]!.hash, endless);
    expect([streamed.status, streamed.body.code]).toEqual([413, 'FILE_TOO_LARGE']);
    expect(sent).toBeLessThan(30);
  });

  test('400 UPLOAD_EXPIRED after 15 minutes from begin (not at exactly 15)', async () => {
    const { c, s, uploadId } = await opened();
    const start = clock;
    try {
      clock = start + 15 * 60 * 1000;
      expect((await stage(app, c, uploadId, s.files[0]!.hash, s.files[0]!.bytes)).status).toBe(204);
      clock = start + 15 * 60 * 1000 + 1;
      const r = await stage(app, c, uploadId, s.files[0]!.hash, s.files[0]!.bytes);
      expect(r).toEqual({ status: 400, body: { code: 'UPLOAD_EXPIRED', message: expect.any(String) } });
    } finally {
      clock = start;
    }
  });

  test('409 UPLOAD_ALREADY_FINALIZED once consumed', async () => {
    const { c, s, uploadId } = await opened();
    await stage(app, c, uploadId, s.files[0]!.hash, s.files[0]!.bytes);
    expect((await finalize(app, c, uploadId)).status).toBe(200);
    const r = await stage(app, c, uploadId, s.files[0]!.hash, s.files[0]!.bytes);
    expect(r).toEqual({ status: 409, body: { code: 'UPLOAD_ALREADY_FINALIZED', message: expect.any(String) } });
  });

  test('a key-shaped text is accepted; the lint names the path in the server log and in the answer (issue 23 item 5)', async () => {
    const leaked = 'easel_sk_' + 'A1b2C3d4E5'.repeat(4);
    keys.push(leaked);
    const { c, s, uploadId } = await opened({ 'index.html': HTML, 'config.js': `const k = "${leaked}";` });
    for (const f of s.files) expect((await stage(app, c, uploadId, f.hash, f.bytes)).status).toBe(204);
    const lint = app.logs.filter((l) => l.msg === 'deploy lint: staged file may contain a canvas API key' && l.canvasId === c.id);
    expect(lint).toHaveLength(1);
    expect(lint[0]!.paths).toEqual(['config.js']);
    const f = await finalize(app, c, uploadId);
    expect(f.status).toBe(200);
    expect(f.body.warnings).toEqual(['config.js may contain a canvas API key']);
    expect(JSON.stringify(f.body)).not.toContain(leaked);
  });

  test('a key-shaped file the canvas already holds (not staged again) still warns, under every path naming it', async () => {
    const leaked = 'easel_sk_' + 'Z9y8X7w6V5'.repeat(4);
    keys.push(leaked);
    const c = await canvas();
    const first = await stagedDeploy(app, c, { 'index.html': HTML + 'held', 'env.txt': `KEY=${leaked}\n` });
    expect(first.body.warnings).toEqual(['env.txt may contain a canvas API key']);
    const s = site({
      'index.html': HTML + 'held again',
      'env.txt': `KEY=${leaked}\n`,
      'copy.json': `KEY=${leaked}\n`,
      'img.png': `KEY=${leaked}\n`,
    });
    const b = await begin(app, c, { manifest: s.manifest });
    const held = s.files.find((f) => f.path === 'env.txt')!.hash;
    expect(b.body.missingHashes).not.toContain(held);
    for (const hash of b.body.missingHashes as string[])
      expect((await stage(app, c, b.body.uploadId, hash, s.byHash.get(hash)!)).status).toBe(204);
    const f = await finalize(app, c, b.body.uploadId);
    expect(f.status).toBe(200);
    // img.png is not a text type: never linted (as on the ZIP path).
    expect(f.body.warnings).toEqual(['copy.json may contain a canvas API key', 'env.txt may contain a canvas API key']);
  });

  test('staging is not rate-limited', async () => {
    const limited = await startTestApp({ now: () => clock, env: { EASEL_RATELIMIT_DEPLOY_PER_MIN: '1' } });
    try {
      const c = await createKeyedCanvas(limited);
      const s = site({ 'index.html': HTML });
      const b = await begin(limited, c, { manifest: s.manifest });
      for (let i = 0; i < 5; i++) expect((await stage(limited, c, b.body.uploadId, s.files[0]!.hash, s.files[0]!.bytes)).status).toBe(204);
    } finally {
      await limited.close();
    }
  });
});

describe('finalize', () => {
  async function ready(
    files: Record<string, string | Uint8Array<ArrayBuffer>> = { 'index.html': HTML + 'fin' },
    coordination: Record<string, string> = {},
    given?: KeyedCanvas,
  ) {
    const c = given ?? (await canvas());
    const s = site(files);
    const b = await begin(app, c, { manifest: s.manifest, ...coordination });
    expect(b.status).toBe(200);
    for (const h of b.body.missingHashes) expect((await stage(app, c, b.body.uploadId, h, s.byHash.get(h)!)).status).toBe(204);
    return { c, s, uploadId: b.body.uploadId as string };
  }

  test('publishes the manifest as a version with source upload', async () => {
    const { c, uploadId } = await ready({ 'index.html': HTML, 'app.js': 'let x = 1', 'notes.qqq': 'unknown type' }, { releaseId: 'rel-1' });
    const tokenBefore = await tokenOf(app.ctx, c.id);
    const r = await finalize(app, c, uploadId);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      outcome: 'published',
      url: expect.stringContaining(`/c/${c.slug}/`),
      version: 1,
      versionId: expect.any(String),
      releaseId: 'rel-1',
      publicationToken: await tokenOf(app.ctx, c.id),
      fileCount: 3,
      totalBytes: HTML.length + 'let x = 1'.length + 'unknown type'.length,
      warnings: ['notes.qqq will be served as text/plain'],
    });
    expect(r.body.publicationToken).not.toBe(tokenBefore);
    const v = await app.ctx.sql.get<{ source: string; created_by: string; status: string }>(
      'SELECT source, created_by, status FROM versions WHERE id = ?1',
      r.body.versionId,
    );
    expect(v).toEqual({ source: 'upload', created_by: c.ownerId, status: 'ready' });
    expect((await app.ctx.canvases.byId(c.id))!.currentVersionId).toBe(r.body.versionId);
    const audit = await app.ctx.sql.all<{ actor_id: string; actor_kind: string; detail: string }>(
      "SELECT actor_id, actor_kind, detail FROM audit_log WHERE canvas_id = ?1 AND action = 'canvas.deploy'",
      c.id,
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_id: c.ownerId, actor_kind: 'key' });
    expect(JSON.parse(audit[0]!.detail)).toMatchObject({ source: 'upload', versionId: r.body.versionId });
  });

  test('the missing-index warning', async () => {
    const { c, uploadId } = await ready({ 'about.html': HTML, 'more.html': HTML + '2' });
    const r = await finalize(app, c, uploadId);
    expect(r.body.warnings).toContain('no index.html: the canvas root will answer 404');
  });

  test('400 UPLOAD_MISSING_BLOB names the hashes; the session stays open', async () => {
    const c = await canvas();
    const s = site({ 'index.html': HTML + 'm', 'b.css': 'b{}' });
    const b = await begin(app, c, { manifest: s.manifest });
    await stage(app, c, b.body.uploadId, s.files[0]!.hash, s.files[0]!.bytes);
    const r = await finalize(app, c, b.body.uploadId);
    expect(r).toEqual({
      status: 400,
      headers: expect.anything(),
      body: { code: 'UPLOAD_MISSING_BLOB', message: expect.any(String), missingHashes: [s.files[1]!.hash] },
    });
    expect((await app.ctx.canvases.byId(c.id))!.currentVersionId).toBeNull();
    await stage(app, c, b.body.uploadId, s.files[1]!.hash, s.files[1]!.bytes);
    expect((await finalize(app, c, b.body.uploadId)).status).toBe(200);
  });

  test('a blob that vanished from the store after begin is missing again', async () => {
    const c = await canvas();
    await stagedDeploy(app, c, { 'index.html': HTML + 'gone' });
    const { uploadId } = await ready({ 'index.html': HTML + 'gone', 'x.css': 'x{}' }, {}, c);
    app.ctx.blobs.delete(sha256Hex(HTML + 'gone'));
    const r = await finalize(app, c, uploadId);
    expect([r.status, r.body.code, r.body.missingHashes]).toEqual([400, 'UPLOAD_MISSING_BLOB', [sha256Hex(HTML + 'gone')]]);
    expect((await stage(app, c, uploadId, sha256Hex(HTML + 'gone'), HTML + 'gone')).status).toBe(204);
    expect((await finalize(app, c, uploadId)).status).toBe(200);
  });

  test('409 PUBLICATION_CHANGED keeps the handle usable; the body token refreshes the captured one', async () => {
    const c = await canvas();
    const { uploadId } = await ready({ 'index.html': HTML + 'pc' }, { expectedPublicationToken: await tokenOf(app.ctx, c.id) }, c);
    await stagedDeploy(app, c, { 'index.html': HTML + 'someone else' });
    const stale = await finalize(app, c, uploadId);
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({
      code: 'PUBLICATION_CHANGED',
      message: expect.any(String),
      current: { publicationToken: await tokenOf(app.ctx, c.id), versionId: expect.any(String), version: 1, releaseId: null },
    });
    // Retried as is: still stale. With the current token: published.
    expect((await finalize(app, c, uploadId)).body.code).toBe('PUBLICATION_CHANGED');
    const ok = await finalize(app, c, uploadId, { expectedPublicationToken: stale.body.current.publicationToken });
    expect([ok.status, ok.body.version]).toEqual([200, 2]);
  });

  test('a stale token in the finalize body replaces a fresh one from begin', async () => {
    const c = await canvas();
    const { uploadId } = await ready(undefined, { expectedPublicationToken: await tokenOf(app.ctx, c.id) }, c);
    const r = await finalize(app, c, uploadId, { expectedPublicationToken: 'old' });
    expect([r.status, r.body.code]).toEqual([409, 'PUBLICATION_CHANGED']);
  });

  test("releaseId: must equal begin's; validity is checked before the mismatch", async () => {
    const c = await canvas();
    const withRelease = await ready({ 'index.html': HTML + 'rm' }, { releaseId: 'r-a' }, c);
    const mismatch = await finalize(app, c, withRelease.uploadId, { releaseId: 'r-b' });
    expect(mismatch).toMatchObject({ status: 400, body: { code: 'RELEASE_ID_MISMATCH' } });
    const without = await ready({ 'index.html': HTML + 'rm2' }, {}, c);
    expect((await finalize(app, c, without.uploadId, { releaseId: 'r-a' })).body.code).toBe('RELEASE_ID_MISMATCH');
    expect((await finalize(app, c, without.uploadId, { releaseId: '' })).body.code).toBe('INVALID_RELEASE_ID');
    const same = await finalize(app, c, withRelease.uploadId, { releaseId: 'r-a' });
    expect([same.status, same.body.releaseId]).toEqual([200, 'r-a']);
  });

  test('body: optional JSON object, 16 KB at most, no unknown fields', async () => {
    const { c, uploadId } = await ready();
    const cases: Array<[BodyInit, number, string]> = [
      ['[]', 400, 'INVALID_REQUEST'],
      ['"x"', 400, 'INVALID_REQUEST'],
      ['null', 400, 'INVALID_REQUEST'],
      ['{not json', 400, 'INVALID_REQUEST'],
      ['{"expectedPublicationToken": 5}', 400, 'INVALID_REQUEST'],
      ['{"releaseId": false}', 400, 'INVALID_REQUEST'],
      ['{"force": true}', 400, 'INVALID_REQUEST'],
      [JSON.stringify({ expectedPublicationToken: 'x'.repeat(16 * 1024) }), 413, 'INVALID_REQUEST'],
    ];
    for (const [raw, status, code] of cases) {
      const r = await finalize(app, c, uploadId, undefined, { body: raw });
      expect([r.status, r.body.code]).toEqual([status, code]);
    }
    expect((await finalize(app, c, uploadId, undefined, { body: '' })).status).toBe(200);
  });

  test('409 UPLOAD_ALREADY_FINALIZED; a replay whose release is live answers already_current', async () => {
    const c = await canvas();
    const plain = await ready({ 'index.html': HTML + 'p' }, {}, c);
    expect((await finalize(app, c, plain.uploadId)).status).toBe(200);
    const again = await finalize(app, c, plain.uploadId);
    expect(again).toMatchObject({ status: 409, body: { code: 'UPLOAD_ALREADY_FINALIZED' } });

    const released = await ready({ 'index.html': HTML + 'q' }, { releaseId: 'rq' }, c);
    const first = await finalize(app, c, released.uploadId);
    // Said first, so a failure shows the first answer (once, on the S3 pass, the replay published instead).
    expect({ status: first.status, body: first.body }).toMatchObject({ status: 200, body: { outcome: 'published', releaseId: 'rq' } });
    const replay = await finalize(app, c, released.uploadId);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({
      outcome: 'already_current',
      versionId: first.body.versionId,
      releaseId: 'rq',
      publicationToken: first.body.publicationToken,
    });
    // Once another release is live, the consumed handle is just consumed.
    await stagedDeploy(app, c, { 'index.html': HTML + 'later' }, { releaseId: 'later' });
    expect((await finalize(app, c, released.uploadId)).body.code).toBe('UPLOAD_ALREADY_FINALIZED');
  });

  test('finalize when the release went live through another session: 200 already_current; release in history: RELEASE_NOT_CURRENT', async () => {
    const c = await canvas();
    const a = await ready({ 'index.html': HTML + 'ra' }, { releaseId: 'shared' }, c);
    const b = await ready({ 'index.html': HTML + 'ra' }, { releaseId: 'shared' }, c);
    const late = await ready({ 'index.html': HTML + 'ra' }, { releaseId: 'shared' }, c);
    const published = await finalize(app, c, a.uploadId);
    const current = await finalize(app, c, b.uploadId);
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({
      outcome: 'already_current',
      versionId: published.body.versionId,
      publicationToken: published.body.publicationToken,
    });
    await stagedDeploy(app, c, { 'index.html': HTML + 'next' }, { releaseId: 'next' });
    const history = await finalize(app, c, late.uploadId);
    expect([history.status, history.body.code, history.body.release?.versionId]).toEqual([
      409,
      'RELEASE_NOT_CURRENT',
      published.body.versionId,
    ]);
  });

  test('400 UPLOAD_EXPIRED after 15 minutes', async () => {
    const { c, uploadId } = await ready();
    const start = clock;
    try {
      clock = start + 15 * 60 * 1000 + 1;
      const r = await finalize(app, c, uploadId);
      expect(r).toMatchObject({ status: 400, body: { code: 'UPLOAD_EXPIRED' } });
    } finally {
      clock = start;
    }
  });

  test('409 UPLOAD_IN_PROGRESS while another finalize holds the 60-second lease', async () => {
    const { c, uploadId } = await ready();
    // Another process's finalize took the lease a moment ago.
    await app.ctx.sql.run('UPDATE upload_sessions SET lease_until = ?1 WHERE id = ?2', clock + 60_000, uploadId);
    const start = clock;
    try {
      const busy = await finalize(app, c, uploadId);
      expect(busy).toMatchObject({ status: 409, body: { code: 'UPLOAD_IN_PROGRESS' } });
      clock = start + 59_999;
      expect((await finalize(app, c, uploadId)).body.code).toBe('UPLOAD_IN_PROGRESS');
      // A lease holder that died lets go when its 60 seconds are up.
      clock = start + 60_000;
      expect((await finalize(app, c, uploadId)).status).toBe(200);
    } finally {
      clock = start;
    }
  });

  test('two parallel finalizes of one handle: one publishes, the other answers 409 UPLOAD_IN_PROGRESS', async () => {
    const { c, uploadId } = await ready({ 'index.html': HTML + 'par', 'a.css': 'a{}', 'b.js': 'let b' });
    const results = await Promise.all([finalize(app, c, uploadId), finalize(app, c, uploadId)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)!.body).toEqual({ code: 'UPLOAD_IN_PROGRESS', message: expect.any(String) });
    expect(await versionCount(app, c.id)).toBe(1);
    // Once the winner is done, a late retry hears that the handle was used.
    expect((await finalize(app, c, uploadId)).body.code).toBe('UPLOAD_ALREADY_FINALIZED');
  });

  test('N parallel finalizes of one handle over real sockets: exactly one publishes, the rest are refused', async () => {
    const live = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    try {
      const c = await createKeyedCanvas(live);
      const s = site({ 'index.html': HTML + 'sockets', 'x.js': 'let x' });
      const b = await begin(live, c, { manifest: s.manifest });
      for (const h of b.body.missingHashes) await stage(live, c, b.body.uploadId, h, s.byHash.get(h)!);
      const results = await Promise.all(Array.from({ length: 6 }, () => finalize(live, c, b.body.uploadId)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      const refused = results.filter((r) => r.status !== 200);
      expect(refused).toHaveLength(5);
      for (const r of refused) expect(['UPLOAD_IN_PROGRESS', 'UPLOAD_ALREADY_FINALIZED']).toContain(r.body.code);
      expect(await versionCount(live, c.id)).toBe(1);
    } finally {
      await live.close();
    }
  });

  test('a refused finalize (missing blob) lets go of the lease at once', async () => {
    const c = await canvas();
    const s = site({ 'index.html': HTML + 'lease', 'late.css': 'late{}' });
    const b = await begin(app, c, { manifest: s.manifest });
    await stage(app, c, b.body.uploadId, s.files[0]!.hash, s.files[0]!.bytes);
    expect((await finalize(app, c, b.body.uploadId)).body.code).toBe('UPLOAD_MISSING_BLOB');
    await stage(app, c, b.body.uploadId, s.files[1]!.hash, s.files[1]!.bytes);
    // No 60-second wait: the clock has not moved.
    expect((await finalize(app, c, b.body.uploadId)).status).toBe(200);
  });

  test('404 UPLOAD_HANDLE_INVALID when the beginning owner is no longer active or no longer the owner', async () => {
    const c = await canvas('leaving@example.test');
    const { uploadId } = await ready(undefined, {}, c);
    const admin = await app.signIn('admin@example.test');
    await adminUser(app, admin, c.ownerId, { active: false });
    expect(await finalize(app, c, uploadId)).toMatchObject({ status: 404, body: { code: 'UPLOAD_HANDLE_INVALID' } });
    await adminUser(app, admin, c.ownerId, { active: true });
    // No API moves ownership yet; the store is the only way to reach that state.
    const newOwner = await app.ctx.users.ensure('heir@example.test');
    await app.ctx.sql.run('UPDATE canvases SET owner_id = ?1 WHERE id = ?2', newOwner.id, c.id);
    expect(await finalize(app, c, uploadId)).toMatchObject({ status: 404, body: { code: 'UPLOAD_HANDLE_INVALID' } });
  });

  test('404 UPLOAD_HANDLE_INVALID for an unknown handle; 401/403 for keys', async () => {
    const c = await canvas();
    expect(await finalize(app, c, 'unknown')).toMatchObject({ status: 404, body: { code: 'UPLOAD_HANDLE_INVALID' } });
    const other = await canvas('other@example.test');
    const { uploadId } = await ready(undefined, {}, c);
    expect(await finalize(app, other, uploadId)).toMatchObject({ status: 404, body: { code: 'UPLOAD_HANDLE_INVALID' } });
    expect(await finalize(app, c, uploadId, undefined, { key: other.key })).toMatchObject({ status: 403, body: { error: 'unauthorized' } });
    expect(await finalize(app, c, uploadId, undefined, { key: 'easel_sk_nope' })).toMatchObject({
      status: 401,
      body: { error: 'unauthorized' },
    });
  });

  test('413 CANVAS_TOO_LARGE: the manifest sum is checked again at finalize', async () => {
    const { c, uploadId } = await ready();
    // As if the caps had been lowered since begin: the recorded manifest now sums past 100 MB.
    const row = (await app.ctx.sql.get<{ manifest: string }>('SELECT manifest FROM upload_sessions WHERE id = ?1', uploadId))!;
    const files = JSON.parse(row.manifest);
    files.push({ path: 'huge.bin', hash: files[0].hash, size: 101 * MiB });
    await app.ctx.sql.run('UPDATE upload_sessions SET manifest = ?1 WHERE id = ?2', JSON.stringify(files), uploadId);
    expect(await finalize(app, c, uploadId)).toMatchObject({ status: 413, body: { code: 'CANVAS_TOO_LARGE' } });
  });
});

describe('rate limit (deploy class)', () => {
  test('begin and finalize count; over the limit: 429 {error: rate_limited} with Retry-After', async () => {
    const limited = await startTestApp({ now: () => clock, env: { EASEL_RATELIMIT_DEPLOY_PER_MIN: '2' } });
    try {
      const c = await createKeyedCanvas(limited);
      const s = site({ 'index.html': HTML });
      const b = await begin(limited, c, { manifest: s.manifest });
      await stage(limited, c, b.body.uploadId, s.files[0]!.hash, s.files[0]!.bytes);
      expect((await finalize(limited, c, b.body.uploadId)).status).toBe(200);
      const third = await begin(limited, c, { manifest: s.manifest });
      expect([third.status, third.body]).toEqual([429, { error: 'rate_limited' }]);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      const fin = await finalize(limited, c, b.body.uploadId);
      expect([fin.status, fin.body]).toEqual([429, { error: 'rate_limited' }]);
    } finally {
      await limited.close();
    }
  });
});

describe('lifetime', () => {
  test('a restart keeps open sessions and their staged blobs', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'easel-upload-restart-'));
    try {
      const first = await startTestApp({ dataDir, now: () => clock });
      const c = await createKeyedCanvas(first);
      const s = site({ 'index.html': HTML + 'restart', 'b.js': 'let b = 2' });
      const b = await begin(first, c, { manifest: s.manifest });
      await stage(first, c, b.body.uploadId, s.files[0]!.hash, s.files[0]!.bytes);
      await first.close();
      const second = await startTestApp({ dataDir, now: () => clock });
      try {
        expect((await finalize(second, c, b.body.uploadId)).body.missingHashes).toEqual([s.files[1]!.hash]);
        await stage(second, c, b.body.uploadId, s.files[1]!.hash, s.files[1]!.bytes);
        expect((await finalize(second, c, b.body.uploadId)).status).toBe(200);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('open sessions protect their blobs from garbage collection; finished ones are deleted after an hour', async () => {
    const c = await canvas();
    const s = site({ 'index.html': HTML + 'gc' });
    const hash = s.files[0]!.hash;
    const b = await begin(app, c, { manifest: s.manifest });
    expect(await app.ctx.blobGc.isReferenced(hash)).toBe(true);
    await stage(app, c, b.body.uploadId, hash, s.files[0]!.bytes);
    const done = await finalize(app, c, b.body.uploadId);
    expect(done.status).toBe(200);
    const abandonedSite = site({ 'index.html': HTML + 'abandoned' });

    const abandoned = await begin(app, c, { manifest: abandonedSite.manifest });
    expect(await app.ctx.blobGc.isReferenced(abandonedSite.files[0]!.hash)).toBe(true);
    const start = clock;
    try {
      clock = start + 15 * 60 * 1000 + 60 * 60 * 1000 + 1;
      // Any begin sweeps (at most once a minute).
      await begin(app, await canvas(), { manifest: s.manifest });
      for (const id of [b.body.uploadId, abandoned.body.uploadId]) {
        expect(await app.ctx.sql.get('SELECT 1 AS one FROM upload_sessions WHERE id = ?1', id)).toBeUndefined();
        expect(await app.ctx.sql.get('SELECT 1 AS one FROM upload_blobs WHERE upload_id = ?1', id)).toBeUndefined();
      }
      expect((await finalize(app, c, abandoned.body.uploadId)).body.code).toBe('UPLOAD_HANDLE_INVALID');
      // Nothing names the abandoned manifest's blob any more: a sweep may take it.
      expect(await app.ctx.blobGc.isReferenced(abandonedSite.files[0]!.hash)).toBe(false);
    } finally {
      clock = start;
    }
  });

  test('blob staging requests are logged without the key', () => {
    expect(blobPuts(app).length).toBeGreaterThan(0);
  });
});

async function countSessions(canvasId: string): Promise<number> {
  return (await app.ctx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM upload_sessions WHERE canvas_id = ?1', canvasId))!.n;
}

async function versionCount(on: TestApp, canvasId: string): Promise<number> {
  return (await on.ctx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM versions WHERE canvas_id = ?1', canvasId))!.n;
}
