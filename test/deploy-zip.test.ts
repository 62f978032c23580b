// passes: embedded, s3, cluster
// PUT deploy: the ZIP rules and every PUT-deploy error code, with malicious
// archives built here (fflate for honest ones, rawZip for lying headers).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Zip, ZipDeflate } from 'fflate';
import { startTestApp, type TestApp } from './harness.ts';
import { ZIP_LIMITS } from '../src/deploy/zip/deploy.ts';
import { createDeployCanvas, deploy, get, rawZip, sharing, site, text, zipOf, type DeployCanvas } from './deploy-fixtures.ts';

const MiB = 1024 * 1024;
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_RATELIMIT_ENABLED: 'false' } });
});
afterAll(() => app.close());

const fresh = (): Promise<DeployCanvas> => createDeployCanvas(app);
const sha256 = (data: string | Uint8Array) => new Bun.CryptoHasher('sha256').update(data).digest('hex');
const versionCount = async (c: DeployCanvas) =>
  (await app.ctx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM versions WHERE canvas_id = ?1', c.id))!.n;
/** The blob is stored (with a remote tier, as on the cluster: in the bucket). */
const stored = async (hash: string) => (await app.ctx.blobs.sizeOf(hash)) !== null;

/** Deploys and expects the `{code, message, path?}` failure shape. */
async function refused(c: DeployCanvas, zip: BodyInit | null, status: number, code: string, path?: string) {
  const r = await deploy(app, c, zip);
  expect(r.status).toBe(status);
  expect(r.body.code).toBe(code);
  expect(typeof r.body.message).toBe('string');
  if (path !== undefined) expect(r.body.path).toBe(path);
  return r;
}

describe('a valid archive', () => {
  test('publishes with source api and a DeployResult of the exact shape', async () => {
    const c = await fresh();
    const r = await deploy(app, c, site({ 'css/site.css': 'body{}' }));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([
      'fileCount',
      'outcome',
      'publicationToken',
      'releaseId',
      'totalBytes',
      'url',
      'version',
      'versionId',
      'warnings',
    ]);
    expect(r.body).toMatchObject({
      outcome: 'published',
      version: 1,
      releaseId: null,
      fileCount: 3,
      totalBytes: 11 + 14 + 6,
      warnings: [],
    });
    expect(r.body.url).toBe(`${app.ctx.config.baseUrl}/c/${c.slug}/`);
    expect(r.body.publicationToken).toBe((await sharing(app.ctx, c.id)).publication_token);
    const versions = (await get(app, c, '/versions')).body.versions;
    expect(versions[0]).toMatchObject({ id: r.body.versionId, source: 'api', status: 'ready', createdBy: c.ownerId, current: true });
  });

  test('is read as a ZIP whatever the Content-Type', async () => {
    for (const type of ['application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded']) {
      const r = await deploy(app, await fresh(), site(), {}, { 'content-type': type });
      expect(r.status).toBe(200);
    }
  });

  test('stored and deflated entries, binary content and unicode names come back byte for byte', async () => {
    const c = await fresh();
    const png = crypto.getRandomValues(new Uint8Array(70_000));
    const r = await deploy(app, c, zipOf({ 'index.html': '<p>x</p>', 'img/logo.png': png, 'docs/ünï cödé.txt': 'hé' }, 0));
    expect(r.status).toBe(200);
    const res = await app.request(`/v1/canvases/${c.id}/files?path=${encodeURIComponent('img/logo.png')}`, {
      headers: { authorization: `Bearer ${c.key}` },
    });
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(png);
    const listing = (await get(app, c, '/files')).body;
    expect(listing.files.map((f: { path: string }) => f.path)).toEqual(['docs/ünï cödé.txt', 'img/logo.png', 'index.html']);
  });

  test('names without the UTF-8 flag: as Windows writes them (code page 437), as Info-ZIP writes them (UTF-8), or by their Unicode Path field', async () => {
    const c = await fresh();
    // Windows' "Compressed (zipped) folder" stores "café" as 63 61 66 82, unflagged: byte 0x82 is a C1 control
    // read as Latin-1, and the whole deploy was refused (INVALID_ZIP, control characters).
    const windows = new Uint8Array([...text('caf'), 0x82, ...text('.html')]);
    // Info-ZIP's zip on Linux stores the file system's UTF-8 bytes, unflagged.
    const infoZip = text('ünï/naïve.txt');
    // A legacy name with Info-ZIP's Unicode Path field (0x7075: version 1, CRC-32 of the legacy name, UTF-8 name).
    const legacy = text('resume.txt');
    const utf8Name = text('résumé.txt');
    const field = new DataView(new ArrayBuffer(9 + utf8Name.byteLength));
    field.setUint16(0, 0x7075, true);
    field.setUint16(2, 5 + utf8Name.byteLength, true);
    field.setUint8(4, 1);
    field.setUint32(5, Bun.hash.crc32(legacy), true);
    new Uint8Array(field.buffer).set(utf8Name, 9);
    // The same field with a CRC of other bytes: stale (a tool renamed the entry without knowing the field), so unread.
    const stale = new Uint8Array(field.buffer.slice(0));
    new DataView(stale.buffer).setUint32(5, Bun.hash.crc32(text('other.txt')), true);
    const zip = rawZip([
      { name: 'index.html', content: text('<p>x</p>') },
      { name: windows, flags: 0, content: text('windows') },
      { name: infoZip, flags: 0, content: text('info-zip') },
      { name: legacy, flags: 0, content: text('unicode path'), extra: new Uint8Array(field.buffer) },
      { name: text('kept.txt'), flags: 0, content: text('stale field'), extra: stale },
    ]);
    const r = await deploy(app, c, zip);
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 200, code: undefined });
    const listing = (await get(app, c, '/files')).body;
    expect(listing.files.map((f: { path: string }) => f.path).sort()).toEqual(
      ['café.html', 'index.html', 'kept.txt', 'résumé.txt', 'ünï/naïve.txt'].sort(),
    );
    const file = await app.request(`/v1/canvases/${c.id}/files?path=${encodeURIComponent('résumé.txt')}`, {
      headers: { authorization: `Bearer ${c.key}` },
    });
    expect(await file.text()).toBe('unicode path');
  });

  test('an archive made by Info-ZIP zip (unflagged UTF-8 names, Unix modes, a folder entry) deploys under its own names', async () => {
    const c = await fresh();
    const dir = mkdtempSync(join(tmpdir(), 'easel-infozip-'));
    try {
      mkdirSync(join(dir, 'site', 'ñandú'), { recursive: true });
      writeFileSync(join(dir, 'site', 'index.html'), '<a href="café.html">café</a>');
      writeFileSync(join(dir, 'site', 'café.html'), '<p>café</p>');
      writeFileSync(join(dir, 'site', 'ñandú', 'Ärger.txt'), 'ä');
      const zipped = Bun.spawnSync(['zip', '-q', '-r', join(dir, 'site.zip'), '.'], { cwd: join(dir, 'site'), env: { LC_ALL: 'C.UTF-8' } });
      expect({ code: zipped.exitCode, stderr: zipped.stderr.toString() }).toEqual({ code: 0, stderr: '' });
      const r = await deploy(app, c, Bun.file(join(dir, 'site.zip')));
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 200, code: undefined });
      const listing = (await get(app, c, '/files')).body;
      expect(listing.files.map((f: { path: string }) => f.path)).toEqual(['café.html', 'index.html', 'ñandú/Ärger.txt']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('dotfiles, dot-directories, directory entries and symlinks are dropped; counts are after stripping', async () => {
    const c = await fresh();
    const zip = rawZip([
      { name: 'assets/' },
      { name: 'index.html', content: text('<h1>x</h1>') },
      { name: '.env', content: text('SECRET=1') },
      { name: '.git/config', content: text('[core]') },
      { name: 'a/.hidden/x.js', content: text('x') },
      { name: 'a/b.js', content: text('bb') },
      { name: './c.css', content: text('ccc') },
      { name: 'link.html', content: text('/etc/passwd'), unixMode: 0o120777 },
    ]);
    const r = await deploy(app, c, zip);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ fileCount: 3, totalBytes: 10 + 2 + 3 });
    const listing = (await get(app, c, '/files')).body;
    expect(listing.files.map((f: { path: string }) => f.path)).toEqual(['a/b.js', 'c.css', 'index.html']);
    // Nothing of what was dropped reached the blob store, not even the link's target text.
    for (const dropped of ['SECRET=1', '[core]', '/etc/passwd']) expect(await stored(sha256(dropped))).toBe(false);
  });

  test('entries with data descriptors (sizes after the data, as streaming zippers write them) are read', async () => {
    const c = await fresh();
    const big = crypto.getRandomValues(new Uint8Array(300_000));
    const zip = rawZip([
      { name: 'index.html', content: text('<h1>dd</h1>'), dataDescriptor: true },
      { name: 'big.bin', content: big, method: 0, dataDescriptor: true },
      { name: 'app.js', content: text('let dd = 1;'.repeat(100)), dataDescriptor: true },
    ]);
    const r = await deploy(app, c, zip);
    expect([r.status, r.body.fileCount, r.body.totalBytes]).toEqual([200, 3, 11 + big.byteLength + 1100]);
    const back = await app.request(`/v1/canvases/${c.id}/files?path=big.bin`, { headers: { authorization: `Bearer ${c.key}` } });
    expect(Buffer.from(await back.arrayBuffer()).equals(Buffer.from(big))).toBe(true);
  });

  test("fflate's streaming zipper (data descriptors, deflate) round-trips", async () => {
    const c = await fresh();
    const chunks: Uint8Array[] = [];
    const zipper = new Zip((err, chunk) => {
      if (err) throw err;
      chunks.push(chunk);
    });
    const files: Record<string, string> = { 'index.html': '<h1>stream</h1>', 'js/app.js': 'console.log("streamed")'.repeat(50) };
    for (const [name, content] of Object.entries(files)) {
      const entry = new ZipDeflate(name, { level: 6 });
      zipper.add(entry);
      entry.push(text(content), true);
    }
    zipper.end();
    const r = await deploy(app, c, Buffer.concat(chunks));
    expect([r.status, r.body.fileCount]).toEqual([200, 2]);
    for (const [name, content] of Object.entries(files)) {
      const back = await app.request(`/v1/canvases/${c.id}/files?path=${encodeURIComponent(name)}`, {
        headers: { authorization: `Bearer ${c.key}` },
      });
      expect(await back.text()).toBe(content);
    }
  });

  test('ZIP64 archives (64-bit sizes, offsets and end record) are read', async () => {
    const c = await fresh();
    const r = await deploy(
      app,
      c,
      rawZip(
        [
          { name: 'index.html', content: text('<i>64</i>') },
          { name: 'a.js', content: text('x'.repeat(3000)), method: 0 },
        ],
        { zip64: true },
      ),
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ fileCount: 2, totalBytes: 9 + 3000 });
  });

  test('an archive with a trailing comment is read', async () => {
    const zip = site();
    const withComment = Buffer.concat([zip.subarray(0, zip.byteLength - 2), Buffer.from([5, 0]), Buffer.from('hello')]);
    expect((await deploy(app, await fresh(), withComment)).status).toBe(200);
  });

  test('mime types are decided at deploy time', async () => {
    const c = await fresh();
    await deploy(
      app,
      c,
      zipOf({
        'index.html': 'x',
        'a.css': 'x',
        'b.mjs': 'x',
        'c.svg': '<svg/>',
        'd.woff2': 'x',
        'e.wasm': 'x',
        'f.json': '{}',
        'g.PNG': 'x',
      }),
    );
    const mimes = Object.fromEntries((await get(app, c, '/files')).body.files.map((f: { path: string; mime: string }) => [f.path, f.mime]));
    expect(mimes).toEqual({
      'a.css': 'text/css; charset=utf-8',
      'b.mjs': 'text/javascript; charset=utf-8',
      'c.svg': 'image/svg+xml; charset=utf-8',
      'd.woff2': 'font/woff2',
      'e.wasm': 'application/wasm',
      'f.json': 'application/json; charset=utf-8',
      'g.PNG': 'image/png',
      'index.html': 'text/html; charset=utf-8',
    });
  });
});

describe('warnings', () => {
  test('text/plain downgrades: unknown extension, no extension, server-side scripts', async () => {
    const r = await deploy(
      app,
      await fresh(),
      site({ 'api.php': '<?php', LICENSE: 'MIT', 'data.qqq': '?', 'cgi/run.sh': 'echo', 'x.py': '', 'y.aspx': '' }),
    );
    expect(r.status).toBe(200);
    expect(r.body.warnings).toEqual([
      'LICENSE will be served as text/plain',
      'api.php will be served as text/plain',
      'cgi/run.sh will be served as text/plain',
      'data.qqq will be served as text/plain',
      'x.py will be served as text/plain',
      'y.aspx will be served as text/plain',
    ]);
  });

  test('a text file holding a key-shaped string is flagged (never the key itself), a binary one is not', async () => {
    const fake = 'easel_sk_' + 'Ab3'.repeat(13) + 'x';
    const r = await deploy(app, await fresh(), site({ 'config.js': `const k = "${fake}";`, 'img.png': `PNG${fake}` }));
    expect(r.body.warnings).toEqual(['config.js may contain a canvas API key']);
    expect(JSON.stringify(app.logs)).not.toContain(fake);
    expect(app.logs.some((l) => l.msg === 'deploy lint: files may contain a canvas API key')).toBe(true);
  });

  test('no index.html: flagged, except when the only HTML file has another name', async () => {
    const none = await deploy(app, await fresh(), zipOf({ 'a.html': 'a', 'b.html': 'b' }));
    expect(none.body.warnings).toEqual(['no index.html: the canvas root will answer 404']);
    const nested = await deploy(app, await fresh(), zipOf({ 'site/index.html': 'a', 'site/b.html': 'b' }));
    // Easel adds what the mistake was (test/deploy-warnings.test.ts); the spec's notice comes first, as written.
    expect(nested.body.warnings[0]).toBe('no index.html: the canvas root will answer 404');
    expect(nested.body.warnings[1]).toStartWith('everything is inside the folder "site/"');
    const single = await deploy(app, await fresh(), zipOf({ 'page.html': 'a', 'a.js': '' }));
    expect(single.body.warnings).toEqual([]);
    const noHtml = await deploy(app, await fresh(), zipOf({ 'a.js': '' }));
    expect(noHtml.body.warnings).toEqual(['no index.html: the canvas root will answer 404']);
  });
});

describe('EMPTY_DEPLOY', () => {
  test('an empty body', async () => refused(await fresh(), null, 400, 'EMPTY_DEPLOY'));
  test('a zero-length body', async () => refused(await fresh(), new Uint8Array(0), 400, 'EMPTY_DEPLOY'));
  test('an archive with no entries', async () => refused(await fresh(), rawZip([]), 400, 'EMPTY_DEPLOY'));
  test('an archive of dotfiles and directories only', async () =>
    refused(
      await fresh(),
      rawZip([{ name: 'dir/' }, { name: '.env', content: text('x') }, { name: '.github/ci.yml', content: text('x') }]),
      400,
      'EMPTY_DEPLOY',
    ));
});

describe('INVALID_ZIP', () => {
  test("two central records sharing one entry's bytes (overlapping entries)", async () => {
    const c = await fresh();
    const zip = rawZip([{ name: 'index.html', content: text('<h1>shared bytes</h1>') }], { extraCentral: [{ of: 0, name: 'index.html' }] });
    // The second record's name must match the local header, so it repeats it: caught as an overlap (or a duplicate path).
    const r = await deploy(app, c, zip);
    expect([r.status, r.body.code]).toEqual([400, 'INVALID_ZIP']);
    const other = rawZip([
      { name: 'a.html', content: text('<h1>a</h1>') },
      { name: 'b.html', content: text('<h1>b</h1>') },
    ]);
    // Point b.html's central record at a.html's local header: b's name then disagrees with the local one.
    const view = Buffer.from(other);
    const cd = view.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), view.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 4);
    view.writeUInt32LE(0, cd + 42);
    await refused(c, view, 400, 'INVALID_ZIP');
    expect(await versionCount(c)).toBe(0);
  });

  test('a table of contents that disagrees with a self-consistent entry (CRC or size): refused, and nothing extracted early is kept', async () => {
    for (const central of [{ crc: 0x1234567 }, { declaredSize: 3 }]) {
      const c = await fresh();
      const content = text(`honest local bytes ${JSON.stringify(central)}`);
      const zip = rawZip([
        { name: 'index.html', content: text('<h1>ok</h1>') },
        { name: 'lies.js', content, central },
      ]);
      await refused(c, zip, 400, 'INVALID_ZIP', 'lies.js');
      expect(await versionCount(c)).toBe(0);
      expect(await stored(sha256(content))).toBe(false);
    }
  });

  test('a central name that differs from the local one (the local name is never what gets deployed)', async () => {
    const c = await fresh();
    const zip = rawZip([
      { name: 'index.html', content: text('<h1>ok</h1>') },
      { name: 'innocent.js', content: text('evil()'), central: { name: 'other.js' } },
    ]);
    await refused(c, zip, 400, 'INVALID_ZIP');
    expect(await stored(sha256('evil()'))).toBe(false);
  });

  test('garbage', async () => refused(await fresh(), crypto.getRandomValues(new Uint8Array(5000)), 400, 'INVALID_ZIP'));
  test('text', async () => refused(await fresh(), 'hello, this is not a zip', 400, 'INVALID_ZIP'));
  test('a local-header magic followed by garbage', async () =>
    refused(await fresh(), Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]), 400, 'INVALID_ZIP'));

  test('a tar archive', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'easel-tar-'));
    mkdirSync(join(dir, 'site'));
    writeFileSync(join(dir, 'site', 'index.html'), '<h1>tar</h1>');
    const tar = Bun.spawnSync(['tar', '-cf', '-', '-C', dir, 'site']).stdout;
    rmSync(dir, { recursive: true, force: true });
    expect(tar.byteLength).toBeGreaterThan(512);
    await refused(await fresh(), new Uint8Array(tar), 400, 'INVALID_ZIP');
  });

  test('truncated archives: cut in the data, at the central directory, inside the end record', async () => {
    const zip = site({ 'big.js': 'x'.repeat(5000) });
    const cdStart = zip.byteLength - 22 - 3 * 46 - 'index.html'.length - 'app.js'.length - 'big.js'.length;
    for (const cut of [10, Math.floor(zip.byteLength / 2), cdStart, zip.byteLength - 30, zip.byteLength - 5]) {
      await refused(await fresh(), zip.subarray(0, cut), 400, 'INVALID_ZIP');
    }
  });

  test('a backslash in an entry name (the message names the usual archiver behind it and what to use)', async () => {
    const r = await refused(
      await fresh(),
      rawZip([
        { name: 'index.html', content: text('x') },
        { name: 'js\\app.js', content: text('x') },
      ]),
      400,
      'INVALID_ZIP',
      'js\\app.js',
    );
    expect(r.body.message).toContain('the Compress-Archive built into Windows PowerShell 5.1 writes them');
  });
  test('a control character in an entry name', async () =>
    refused(await fresh(), rawZip([{ name: 'a\u0001b.html', content: text('x') }]), 400, 'INVALID_ZIP'));
  test('a CRC that does not match the content', async () =>
    refused(await fresh(), rawZip([{ name: 'index.html', content: text('hello'), crc: 12345 }]), 400, 'INVALID_ZIP', 'index.html'));
  test('a declared size smaller than the content (under the cap)', async () =>
    refused(await fresh(), rawZip([{ name: 'a.js', content: text('x'.repeat(1000)), declaredSize: 10 }]), 400, 'INVALID_ZIP', 'a.js'));
  test('a declared size larger than the content', async () =>
    refused(await fresh(), rawZip([{ name: 'a.js', content: text('xyz'), declaredSize: 5000 }]), 400, 'INVALID_ZIP', 'a.js'));
  test('corrupt deflate data', async () => {
    const zip = rawZip([{ name: 'a.js', content: text('hello world hello world'), method: 8 }]);
    zip[30 + 4] = 0xff;
    zip[30 + 5] = 0xff;
    await refused(await fresh(), zip, 400, 'INVALID_ZIP');
  });
  test('an encrypted entry', async () =>
    refused(await fresh(), rawZip([{ name: 'a.js', content: text('x'), flags: 0x801 }]), 400, 'INVALID_ZIP', 'a.js'));
  test('an unsupported compression method', async () => {
    const zip = rawZip([{ name: 'a.js', content: text('x'), method: 0 }]);
    // Method 12 (bzip2) in both headers.
    zip[8] = 12;
    zip[30 + 4 + 1 + 10] = 12;
    await refused(await fresh(), zip, 400, 'INVALID_ZIP');
  });
  test('two entries with the same path', async () =>
    refused(
      await fresh(),
      rawZip([
        { name: 'a.js', content: text('1') },
        { name: './a.js', content: text('2') },
      ]),
      400,
      'INVALID_ZIP',
      'a.js',
    ));
  test('a central directory count that disagrees with its entries', async () =>
    refused(await fresh(), rawZip([{ name: 'a.js', content: text('1') }], { eocdCount: 3 }), 400, 'INVALID_ZIP'));
  test('a local header whose name disagrees with the central directory', async () => {
    const zip = rawZip([{ name: 'a.js', content: text('1'), method: 0 }]);
    zip[30] = 'b'.charCodeAt(0);
    await refused(await fresh(), zip, 400, 'INVALID_ZIP');
  });
});

describe('ZIP_SLIP_REJECTED', () => {
  for (const name of ['../evil.html', 'a/../../evil.html', 'a/..', '/etc/passwd', '/index.html', 'C:/Windows/x.js']) {
    test(JSON.stringify(name), async () =>
      refused(
        await fresh(),
        rawZip([
          { name: 'index.html', content: text('x') },
          { name, content: text('x') },
        ]),
        400,
        'ZIP_SLIP_REJECTED',
        name,
      ),
    );
  }
  test('fflate-built archives with a traversal name are refused too', async () =>
    refused(await fresh(), zipOf({ 'index.html': 'x', '../../etc/cron.d/x': 'x' }), 400, 'ZIP_SLIP_REJECTED'));
});

describe('ZIP_BOMB_REJECTED', () => {
  test('an entry that declares more than 25 MB (honest deflate of zeros)', async () =>
    refused(
      await fresh(),
      rawZip([
        { name: 'index.html', content: text('x') },
        { name: 'big.bin', content: new Uint8Array(25 * MiB + 1) },
      ]),
      400,
      'ZIP_BOMB_REJECTED',
      'big.bin',
    ));

  test('exactly 25 MB is allowed', async () => {
    const r = await deploy(
      app,
      await fresh(),
      rawZip([
        { name: 'index.html', content: text('x') },
        { name: 'big.bin', content: new Uint8Array(25 * MiB) },
      ]),
    );
    expect(r.status).toBe(200);
    expect(r.body.totalBytes).toBe(25 * MiB + 1);
  });

  test('a stored entry over 25 MB', async () =>
    refused(
      await fresh(),
      rawZip([{ name: 'big.bin', content: new Uint8Array(25 * MiB + 1), method: 0 }]),
      400,
      'ZIP_BOMB_REJECTED',
      'big.bin',
    ));

  test('a tiny bomb that lies about its size inflates only to the cap', async () => {
    const bomb = rawZip([
      { name: 'index.html', content: text('x') },
      { name: 'bomb.txt', content: new Uint8Array(40 * MiB), declaredSize: 1000 },
    ]);
    expect(bomb.byteLength).toBeLessThan(100 * 1024);
    await refused(await fresh(), bomb, 400, 'ZIP_BOMB_REJECTED', 'bomb.txt');
  });

  test('a stored entry whose declared size lies by more than the cap', async () =>
    refused(
      await fresh(),
      rawZip([{ name: 'big.bin', content: new Uint8Array(25 * MiB + 10), method: 0, declaredSize: 5 }]),
      400,
      'ZIP_BOMB_REJECTED',
      'big.bin',
    ));
});

describe('TOO_MANY_FILES', () => {
  const many = (n: number) => {
    const files: Record<string, string> = {};
    for (let i = 0; i < n; i++) files[`f/${i}.txt`] = 'same';
    return files;
  };
  test('2001 files', async () => refused(await fresh(), zipOf(many(2001)), 400, 'TOO_MANY_FILES'));
  // Issue 23 item 11: directory entries are dropped, but each one still costs a central-directory record to read.
  const directories = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `d${i}/`, method: 0 as const }));
  test(`more than ${ZIP_LIMITS.entries} central-directory records, directories included: refused from the end record`, async () => {
    const zip = rawZip([...directories(ZIP_LIMITS.entries), { name: 'index.html', content: text('<h1>hi</h1>') }]);
    const r = await refused(await fresh(), zip, 400, 'TOO_MANY_FILES');
    expect(r.body.message).toContain(`${ZIP_LIMITS.entries + 1} entries`);
    // An end record claiming more records than the archive holds is refused before any is read, too.
    await refused(await fresh(), rawZip([{ name: 'index.html', content: text('x') }], { eocdCount: 60_000 }), 400, 'TOO_MANY_FILES');
  });
  test(`${ZIP_LIMITS.entries} records (directories dropped) still deploy: read a window at a time`, async () => {
    const zip = rawZip([...directories(ZIP_LIMITS.entries - 1), { name: 'index.html', content: text('<h1>hi</h1>') }]);
    const r = await deploy(app, await fresh(), zip);
    expect(r.status).toBe(200);
    expect(r.body.fileCount).toBe(1);
  });
  test('2000 files (plus dropped dotfiles) are fine', async () => {
    const r = await deploy(app, await fresh(), zipOf({ ...many(2000), '.DS_Store': 'x', 'f/.keep': '' }));
    expect(r.status).toBe(200);
    expect(r.body.fileCount).toBe(2000);
  });
});

describe("the version's file rows", () => {
  test('every file gets its own row, exactly, across several multi-row statements and a partial last one', async () => {
    const c = await fresh();
    const files: Record<string, string> = {};
    for (let i = 0; i < 250; i++) files[`f/${String(i).padStart(3, '0')}.${i % 2 === 0 ? 'txt' : 'css'}`] = `file ${i} `.repeat(i + 1);
    const r = await deploy(app, c, zipOf(files));
    expect(r.status).toBe(200);
    const rows = await app.ctx.sql.all<{ path: string; hash: string; size: number; mime: string }>(
      'SELECT path, hash, size, mime FROM version_files WHERE version_id = ?1 ORDER BY path',
      r.body.versionId,
    );
    expect(rows.map((row) => ({ ...row, size: Number(row.size) }))).toEqual(
      Object.entries(files).map(([path, content]) => ({
        path,
        hash: sha256(content),
        size: content.length,
        mime: path.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'text/css; charset=utf-8',
      })),
    );
  });
});

describe('CANVAS_TOO_LARGE', () => {
  test('files inflating past 100 MB inside a small body: 400', async () => {
    const entries = Array.from({ length: 5 }, (_, i) => ({ name: `part${i}.bin`, content: new Uint8Array(21 * MiB) }));
    const zip = rawZip(entries);
    expect(zip.byteLength).toBeLessThan(1 * MiB);
    await refused(await fresh(), zip, 400, 'CANVAS_TOO_LARGE');
  });

  test('a declared Content-Length over 110 MB: 413 before reading', async () => {
    const c = await fresh();
    let pulled = 0;
    const body = new ReadableStream({
      pull(ctl) {
        pulled++;
        ctl.enqueue(new Uint8Array(1024));
        if (pulled > 3) ctl.close();
      },
    });
    const res = await app.request(`/v1/canvases/${c.id}/deploy`, {
      method: 'PUT',
      body,
      headers: { authorization: `Bearer ${c.key}`, 'content-length': String(110 * MiB + 1) },
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'CANVAS_TOO_LARGE' });
    expect(pulled).toBeLessThanOrEqual(1);
  });

  test('a body of exactly 110 MB is read (and then judged as a ZIP)', async () => {
    const c = await fresh();
    const r = await deploy(app, c, new Uint8Array(110 * MiB));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INVALID_ZIP');
  });

  test('a chunked body past 110 MB: 413 while streaming, the read cancelled', async () => {
    const c = await fresh();
    let sent = 0;
    const chunk = new Uint8Array(MiB);
    const body = new ReadableStream({
      pull(ctl) {
        if (sent > 200 * MiB) return ctl.close();
        sent += chunk.byteLength;
        ctl.enqueue(chunk);
      },
    });
    const r = await deploy(app, c, body);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('CANVAS_TOO_LARGE');
    expect(sent).toBeLessThan(115 * MiB);
    expect(await versionCount(c)).toBe(0);
  });
});

describe('a failed deploy', () => {
  test('never touches the live version, keeps the token, adds no version, and removes the blobs it wrote', async () => {
    const c = await fresh();
    const ok = await deploy(app, c, site());
    const before = await sharing(app.ctx, c.id);
    const unique = crypto.getRandomValues(new Uint8Array(4096));
    const hash = new Bun.CryptoHasher('sha256').update(unique).digest('hex');
    // The first entry is fine and gets written; the second is corrupt.
    const zip = rawZip([
      { name: 'index.html', content: unique, method: 0 },
      { name: 'b.js', content: text('hello'), crc: 1 },
    ]);
    await refused(c, zip, 400, 'INVALID_ZIP', 'b.js');
    expect(await sharing(app.ctx, c.id)).toEqual(before);
    expect(await versionCount(c)).toBe(1);
    expect(await stored(hash)).toBe(false);
    expect((await get(app, c)).body.currentVersionId).toBe(ok.body.versionId);
  });

  test('leaves nothing in the spool directory', async () => {
    const { readdirSync } = await import('node:fs');
    await deploy(app, await fresh(), crypto.getRandomValues(new Uint8Array(1000)));
    await deploy(app, await fresh(), site());
    expect(readdirSync(join(app.dataDir, 'tmp', 'deploy'))).toEqual([]);
  });
});

describe('over a real socket', () => {
  let live: TestApp;
  beforeAll(async () => {
    live = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  });
  afterAll(() => live.close());

  test('a streamed (chunked) deploy publishes', async () => {
    const c = await createDeployCanvas(live);
    const zip = site({ 'data.bin': crypto.getRandomValues(new Uint8Array(3 * MiB)) });
    let offset = 0;
    const body = new ReadableStream({
      pull(ctl) {
        if (offset >= zip.byteLength) return ctl.close();
        ctl.enqueue(zip.slice(offset, offset + 64 * 1024));
        offset += 64 * 1024;
      },
    });
    const res = await fetch(`${live.base}/v1/canvases/${c.id}/deploy`, {
      method: 'PUT',
      body,
      headers: { authorization: `Bearer ${c.key}` },
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { fileCount: number }).fileCount).toBe(3);
  });

  test('a declared Content-Length over 110 MB is answered 413 CANVAS_TOO_LARGE from the headers alone', async () => {
    const c = await createDeployCanvas(live);
    const port = Number(new URL(live.base).port);
    const reply = await new Promise<string>((resolve) => {
      let buf = '';
      void Bun.connect({
        hostname: '127.0.0.1',
        port,
        socket: {
          open(s) {
            // Only two bytes of the promised 115 MB ever go out.
            s.write(
              `PUT /v1/canvases/${c.id}/deploy HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${c.key}\r\nContent-Length: ${115 * MiB}\r\n\r\nPK`,
            );
          },
          data(s, d) {
            buf += d.toString();
            if (/\r\n\r\n[\s\S]*\}/.test(buf)) {
              s.end();
              resolve(buf);
            }
          },
          close: () => resolve(buf),
          error: () => resolve(buf),
        },
      });
    });
    expect(reply.startsWith('HTTP/1.1 413')).toBe(true);
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'CANVAS_TOO_LARGE' });
  });

  test('a chunked body past 110 MB is cut off with 413', async () => {
    const c = await createDeployCanvas(live);
    let sent = 0;
    const chunk = new Uint8Array(MiB);
    const body = new ReadableStream({
      pull(ctl) {
        if (sent >= 150 * MiB) return ctl.close();
        sent += chunk.byteLength;
        ctl.enqueue(chunk);
      },
    });
    const res = await fetch(`${live.base}/v1/canvases/${c.id}/deploy`, {
      method: 'PUT',
      body,
      headers: { authorization: `Bearer ${c.key}` },
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('CANVAS_TOO_LARGE');
  });
});
