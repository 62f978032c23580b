// passes: embedded, s3, cluster
// PUT deploy extracts entries from the request's chunks as they arrive
// (src/deploy/zip/follow.ts) and spools only what it did not extract. However
// the body is cut into chunks (a byte at a time, across headers and names,
// one piece), every file comes back byte for byte, a bad entry is refused
// with its own code, and the spool holds no extracted byte.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from './harness.ts';
import { createDeployCanvas, deploy, rawZip, text, type DeployCanvas, type RawEntry } from './deploy-fixtures.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_RATELIMIT_ENABLED: 'false' } });
});
afterAll(() => app.close());

const sha256 = (data: string | Uint8Array) => new Bun.CryptoHasher('sha256').update(data).digest('hex');
const stored = async (hash: string) => (await app.ctx.blobs.sizeOf(hash)) !== null;

/** A body that hands `bytes` on in pieces of the sizes `next` picks (each piece its own copy). */
function chunked(bytes: Uint8Array, next: () => number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(ctl) {
      if (offset >= bytes.byteLength) return ctl.close();
      const n = Math.max(1, next());
      ctl.enqueue(bytes.slice(offset, offset + n));
      offset += n;
    },
  });
}

/** Sizes from a small seeded generator, so a failure can be replayed. */
function seeded(seed: number, max: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return 1 + (s % max);
  };
}

/** Where the central directory begins, from the end record. */
const cdOffset = (zip: Uint8Array) => Buffer.from(zip).readUInt32LE(zip.byteLength - 22 + 16);

async function fileBack(c: DeployCanvas, path: string): Promise<Uint8Array> {
  const res = await app.request(`/v1/canvases/${c.id}/files?path=${encodeURIComponent(path)}`, {
    headers: { authorization: `Bearer ${c.key}` },
  });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

const random = (n: number) => {
  const out = new Uint8Array(n);
  for (let off = 0; off < n; off += 65536) crypto.getRandomValues(out.subarray(off, Math.min(off + 65536, n)));
  return out;
};

/** Stored and deflated files of many sizes (empty, one byte, larger than any chunk), with entries that are dropped between them. */
function mixedSite(): { entries: RawEntry[]; files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>([
    ['index.html', text('<h1>chunks</h1>')],
    ['empty.txt', new Uint8Array(0)],
    ['one.txt', text('1')],
    ['big-stored.bin', random(300_000)],
    ['big-deflated.bin', random(200_000)],
    ['app.js', text('console.log("chunk");'.repeat(500))],
  ]);
  for (let i = 0; i < 40; i++) files.set(`assets/${i}.bin`, random(1 + ((i * 7919) % 5000)));
  const entries: RawEntry[] = [];
  let i = 0;
  for (const [name, content] of files) {
    entries.push({ name, content, method: i++ % 2 === 0 ? 0 : 8 });
    // Dropped entries between files: a directory and a large dotfile (never held whole, never stored).
    if (i === 3) entries.push({ name: 'assets/' }, { name: '.secret', content: random(150_000), method: 0 });
  }
  return { entries, files };
}

/** The deploy's own log line, from whichever node answered it (on the cluster pass requests alternate between two). */
const deployedLine = (canvasId: string) =>
  Promise.any(app.nodes.map((node) => node.nextLog((l) => l.msg === 'zip deployed' && l.canvasId === canvasId)));

describe('a body in any chunks', () => {
  const patterns: Array<[string, () => (() => number) | null]> = [
    ['one piece', () => null],
    ['1 to 13 bytes at a time', () => seeded(42, 13)],
    ['up to 70 KB at a time', () => seeded(7, 70_000)],
    ['64 KiB at a time', () => () => 65536],
  ];
  for (const [label, pattern] of patterns) {
    test(`${label}: every file byte for byte, all extracted while arriving, only the table of contents spooled`, async () => {
      const c = await createDeployCanvas(app);
      const { entries, files } = mixedSite();
      const zip = rawZip(entries);
      const sizes = pattern();
      const r = await deploy(app, c, sizes ? chunked(zip, sizes) : zip);
      expect([r.status, r.body.fileCount]).toEqual([200, files.size]);
      for (const [path, content] of files) expect(Buffer.from(await fileBack(c, path)).equals(Buffer.from(content))).toBe(true);
      const line = await deployedLine(c.id);
      expect(line.extractedWhileReceiving).toBe(files.size);
      expect(line.spooledBytes).toBe(zip.byteLength - cdOffset(zip));
      expect(await stored(sha256(entries.find((e) => e.name === '.secret')!.content!))).toBe(false);
    });
  }

  test('following stops at a data descriptor: what comes after is spooled from there and still read byte for byte', async () => {
    const c = await createDeployCanvas(app);
    const late = random(120_000);
    const entries: RawEntry[] = [
      { name: 'index.html', content: text('<h1>dd</h1>') },
      { name: 'early.bin', content: random(90_000), method: 0 },
      { name: 'streamed.js', content: text('let x = 1;'.repeat(300)), dataDescriptor: true },
      { name: 'late.bin', content: late, method: 0 },
    ];
    const zip = rawZip(entries);
    const streamedAt = Buffer.from(zip).indexOf(Buffer.from('streamed.js')) - 30;
    const r = await deploy(app, c, chunked(zip, seeded(3, 9000)));
    expect([r.status, r.body.fileCount]).toEqual([200, 4]);
    expect(Buffer.from(await fileBack(c, 'late.bin')).equals(Buffer.from(late))).toBe(true);
    expect(new TextDecoder().decode(await fileBack(c, 'streamed.js'))).toBe('let x = 1;'.repeat(300));
    const line = await deployedLine(c.id);
    expect(line.extractedWhileReceiving).toBe(2);
    expect(line.spooledBytes).toBe(zip.byteLength - streamedAt);
  });

  test('a bad CRC in the middle, a few bytes at a time: INVALID_ZIP naming the entry, nothing of it stored, no version', async () => {
    const c = await createDeployCanvas(app);
    const bad = random(40_000);
    const zip = rawZip([
      { name: 'index.html', content: text('<h1>ok</h1>') },
      { name: 'fine.bin', content: random(30_000), method: 0 },
      { name: 'bad.bin', content: bad, method: 0, crc: 0xdeadbeef },
      { name: 'after.js', content: text('after()') },
    ]);
    const r = await deploy(app, c, chunked(zip, seeded(11, 333)));
    expect([r.status, r.body.code, r.body.path]).toEqual([400, 'INVALID_ZIP', 'bad.bin']);
    expect(await stored(sha256(bad))).toBe(false);
    const versions = await app.ctx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM versions WHERE canvas_id = ?1', c.id);
    expect(versions!.n).toBe(0);
  });

  test('following stops inside an entry assembled from many chunks: its header and bytes are spooled, and it is read from there', async () => {
    // The local header's CRC is wrong, the central record's right: the follower gives up on it once it is whole, the regular path takes it.
    const c = await createDeployCanvas(app);
    const big = random(700_000);
    const after = random(50_000);
    const entries: RawEntry[] = [
      { name: 'index.html', content: text('<h1>ok</h1>') },
      { name: 'big.bin', content: big, method: 0, crc: 0x1234, central: { crc: Bun.hash.crc32(big) } },
      { name: 'after.bin', content: after, method: 8 },
    ];
    const zip = rawZip(entries);
    const r = await deploy(app, c, chunked(zip, seeded(5, 4000)));
    expect([r.status, r.body.fileCount]).toEqual([200, 3]);
    expect(Buffer.from(await fileBack(c, 'big.bin')).equals(Buffer.from(big))).toBe(true);
    expect(Buffer.from(await fileBack(c, 'after.bin')).equals(Buffer.from(after))).toBe(true);
    const line = await deployedLine(c.id);
    expect(line.extractedWhileReceiving).toBe(1);
    expect(line.spooledBytes).toBe(zip.byteLength - Buffer.from(zip).indexOf(Buffer.from('big.bin')) + 30);
  });

  test('a truncated body, cut inside an entry a byte at a time: INVALID_ZIP', async () => {
    const c = await createDeployCanvas(app);
    const zip = rawZip([
      { name: 'index.html', content: text('<h1>ok</h1>') },
      { name: 'cut.bin', content: random(5000), method: 0 },
    ]);
    const r = await deploy(
      app,
      c,
      chunked(zip.slice(0, 2500), () => 1),
    );
    expect([r.status, r.body.code]).toEqual([400, 'INVALID_ZIP']);
  });
});
