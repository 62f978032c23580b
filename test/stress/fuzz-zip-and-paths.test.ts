// passes: embedded, s3, cluster
// Hostile archives and addresses (issue 19 item 1, continued): valid ZIPs
// mutated byte by byte (headers, sizes, CRCs, names, truncation, splices) sent
// to PUT deploy, and random path segments and query strings on every route
// family. Invariants: no 5xx; a coded answer; a refused deploy leaves the live
// version, the versions and the blob store as they were. EASEL_FUZZ_RUNS sets
// the inputs per property (default 150); the seed is printed for replay.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { isCoded } from './listed-routes.ts';
import { StatusTally } from './tally.ts';
import { zipSync } from 'fflate';
import type { TestApp } from '../harness.ts';
import { World, type WorldCanvas } from '../world.ts';

const RUNS = Number(process.env.EASEL_FUZZ_RUNS ?? 150);
const SEED = Number(process.env.EASEL_FUZZ_SEED ?? Date.now() % 2 ** 31);

let w: World;
let app: TestApp;
let canvas: WorldCanvas;
const enc = new TextEncoder();
const CONTENTS = [enc.encode('<h1>fuzz</h1>'.repeat(50)), enc.encode('console.log(1);'.repeat(80)), enc.encode('名前')];
const VALID = zipSync({
  'index.html': [CONTENTS[0]!, { level: 6 }],
  'assets/app.js': [CONTENTS[1]!, { level: 0 }],
  'dir/': new Uint8Array(0),
  'ünïcode/名前.txt': [CONTENTS[2]!, { level: 6 }],
});
/** What an accepted archive may publish: the original bytes (a mutation may rename, never alter, a file: CRCs are checked). */
const ORIGINAL_HASHES = new Set(CONTENTS.map((c) => new Bun.CryptoHasher('sha256').update(c).digest('hex')));

beforeAll(async () => {
  w = await new World({ reset: 'none' }).start();
  app = w.app;
  canvas = await w.newCanvas({ files: { 'index.html': '<h1>live</h1>' } });
  process.stdout.write(`fuzz seed ${SEED} (replay with EASEL_FUZZ_SEED=${SEED}), ${RUNS} inputs per property\n`);
});
afterAll(() => w.close());

/** Objects in the bucket when blobs are on S3 (`bun run test:s3`); 0 otherwise. */
async function bucketCount(): Promise<number> {
  let n = 0;
  for await (const _ of app.ctx.blobs.remote?.list() ?? []) n++;
  return n;
}

function blobCount(): number {
  let n = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (e.name !== 'tmp') walk(join(dir, e.name));
      } else n++;
    }
  };
  walk(app.ctx.blobs.root);
  return n;
}

async function liveState(): Promise<string> {
  const row = await app.ctx.sql.get('SELECT current_version_id, publication_token FROM canvases WHERE id = ?1', canvas.id);
  const versions = await app.ctx.sql.get<{ n: number | bigint }>('SELECT count(*) AS n FROM versions WHERE canvas_id = ?1', canvas.id);
  return JSON.stringify({ row, versions: Number(versions!.n) });
}

/** A valid archive with a few mutations: bytes overwritten, a cut, a splice, or a slice repeated. */
const mutated = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 40 }) }),
      fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 60 }) }),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((edits) => {
    let bytes = VALID.slice();
    for (const e of edits) {
      const at = e.at % Math.max(bytes.length, 1);
      if (e.kind === 'set') bytes[at] = e.byte;
      else if (e.kind === 'cut') bytes = bytes.slice(0, at);
      else if (e.kind === 'splice') bytes = new Uint8Array([...bytes.slice(0, at), ...e.bytes, ...bytes.slice(at)]);
      else bytes = new Uint8Array([...bytes.slice(0, at + e.len), ...bytes.slice(at, at + e.len), ...bytes.slice(at + e.len)]);
    }
    return bytes;
  });

describe('hostile archives', () => {
  test('mutated ZIPs: never a 5xx; a refusal leaves the live version, the versions and the blobs as they were', async () => {
    const statuses = new StatusTally();
    await fc.assert(
      fc.asyncProperty(mutated, async (zip) => {
        const before = await liveState();
        const blobs = blobCount();
        const objects = await bucketCount();
        const res = await app.request(`/v1/canvases/${canvas.id}/deploy`, {
          method: 'PUT',
          body: zip as Uint8Array<ArrayBuffer>,
          headers: { authorization: `Bearer ${canvas.apiKey}` },
        });
        const text = await res.text();
        statuses.add(res.status);
        if (res.status >= 500) throw new Error(`${res.status}: ${text}`);
        if (res.status === 200) {
          const listing = (await (
            await app.request(`/v1/canvases/${canvas.id}/files`, { headers: { authorization: `Bearer ${canvas.apiKey}` } })
          ).json()) as {
            files: Array<{ path: string; hash: string }>;
          };
          const altered = listing.files.filter((f) => !ORIGINAL_HASHES.has(f.hash));
          if (altered.length > 0) throw new Error(`an accepted archive published altered bytes: ${JSON.stringify(altered)}`);
        }
        if (res.status >= 400) {
          const parsed = JSON.parse(text);
          if (typeof parsed.code !== 'string' && typeof parsed.error !== 'string') throw new Error(`no code in ${text}`);
          if ((await liveState()) !== before) throw new Error(`a refused deploy (${text}) changed the live state`);
          // Blobs a refused deploy wrote are gone again (collected at once, or never renamed into the store).
          if (blobCount() > blobs) throw new Error(`a refused deploy (${text}) left blobs behind`);
          if ((await bucketCount()) > objects) throw new Error(`a refused deploy (${text}) left objects in the bucket`);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    process.stdout.write(`mutated ZIPs: ${statuses}\n`);
    // The unmutated archive still publishes (the refusals above were the mutations', not a broken route's).
    const valid = await app.request(`/v1/canvases/${canvas.id}/deploy`, {
      method: 'PUT',
      body: VALID as Uint8Array<ArrayBuffer>,
      headers: { authorization: `Bearer ${canvas.apiKey}` },
    });
    expect(valid.status).toBe(200);
  }, 300_000);
});

describe('hostile addresses', () => {
  const segment = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom('..', '.', '%2e%2e', '%2F', '%00', '%ff', '%c0%af', '%', '%%', '~', '\\', '//', '?', '#', ';'),
    fc.string({ unit: 'binary', maxLength: 10 }).map((s) => encodeURIComponent(s)),
    fc.string({ minLength: 300, maxLength: 2000 }),
  );
  const prefixes = [
    '/api/canvases/',
    '/api/admin/users/',
    '/v1/canvases/',
    '/v1/c/',
    '/c/',
    '/sdk/',
    '/assets/',
    '/auth/',
    '/api/gallery/',
    '/mcp/',
  ];

  test('random path segments and query strings on every route family: no 5xx, and a coded answer where one is JSON', async () => {
    const statuses = new StatusTally();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...prefixes),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.string({ maxLength: 100 }),
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        async (prefix, segments, query, method) => {
          let path = prefix + segments.join('/');
          if (query) path += `?${query}`;
          let res: Response;
          try {
            res = await app.request(path, { method, cookie: w.cookie.owner, headers: { authorization: `Bearer ${canvas.apiKey}` } });
          } catch {
            // A string no URL parser takes never becomes a request: nothing to test.
            return;
          }
          statuses.add(res.status);
          const text = await res.text();
          if (res.status >= 500) throw new Error(`${res.status} on ${method} ${path}: ${text}`);
          // Easel's shapes, or JSON-RPC's for what reaches /mcp (dot segments resolve there too).
          if ((res.headers.get('content-type') ?? '').startsWith('application/json') && res.status >= 400 && !isCoded(text))
            throw new Error(`no code in ${text}`);
        },
      ),
      { numRuns: RUNS * 4, seed: SEED },
    );
    process.stdout.write(`hostile addresses: ${statuses}\n`);
    expect((await app.request('/healthz')).status).toBe(200);
  }, 300_000);
});
