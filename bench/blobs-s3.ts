// Blobs on S3 next to the embedded store, against real server processes
// (`bun src/main.ts`), the S3 side on s3rver (an S3-compatible server from
// npm, run by Node, on loopback; a real S3 adds its network round trips):
//   1. a ZIP deploy of 200 files of 100 KB (20 MB, incompressible): MB/s,
//   2. a cached page (10 KB asset) fetched 2,000 times, 16 at a time: req/s,
//   3. the first read of a blob this node holds no copy of (its copy dropped,
//      as a node that never had it): median and p99 ms over the 200 files.
//
//   bun bench/blobs-s3.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobPathUnder } from '../src/blobs/layout.ts';
import { zipSync, type Zippable } from 'fflate';
import { startS3Server } from '../test/support/s3-server.ts';
import { startEasel, stopEasel, type Easel } from '../test/spawn.ts';

const FILES = 200;
const FILE_BYTES = 100 * 1024;
const PAGE_FETCHES = 2000;
const PARALLEL = 16;

const work = mkdtempSync(join(tmpdir(), 'easel-bench-s3-'));
const asset = new TextEncoder().encode(`// asset\n${'export const x = 1;\n'.repeat(520)}`.slice(0, 10 * 1024));

function site(): Uint8Array<ArrayBuffer> {
  const input: Zippable = { 'index.html': [new TextEncoder().encode('<h1>bench</h1>'), { level: 6 }], 'app.js': [asset, { level: 6 }] };
  for (let i = 0; i < FILES; i++) {
    const bytes = new Uint8Array(FILE_BYTES);
    crypto.getRandomValues(bytes.subarray(0, 65536));
    crypto.getRandomValues(bytes.subarray(65536));
    input[`f/${i}.bin`] = [bytes, { level: 0 }];
  }
  return zipSync(input) as Uint8Array<ArrayBuffer>;
}

async function prepare(easel: Easel): Promise<{ cookie: string; slug: string; id: string; key: string }> {
  const origin = easel.url.replace('127.0.0.1', 'localhost');
  const login = await fetch(`${easel.url}/auth/dev/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email: 'bench@example.com' }),
  });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const made = await fetch(`${easel.url}/api/canvases`, {
    method: 'POST',
    headers: { cookie, origin, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'bench' }),
  });
  const canvas = (await made.json()) as { id: string; slug: string; apiKey: string };
  return { cookie, slug: canvas.slug, id: canvas.id, key: canvas.apiKey };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function run(label: string, env: Record<string, string>, dropCopies: ((hashes: string[]) => Promise<void>) | null) {
  const dataDir = join(work, label);
  const easel = await startEasel({ env: { EASEL_DATA_DIR: dataDir, EASEL_RATELIMIT_ENABLED: 'false', EASEL_LOG_LEVEL: 'warn', ...env } });
  try {
    const c = await prepare(easel);
    const zip = site();
    const started = performance.now();
    const res = await fetch(`${easel.url}/v1/canvases/${c.id}/deploy`, {
      method: 'PUT',
      body: zip,
      headers: { authorization: `Bearer ${c.key}` },
    });
    if (res.status !== 200) throw new Error(`deploy: ${res.status} ${await res.text()}`);
    const deploySeconds = (performance.now() - started) / 1000;

    const page = `${easel.url}/c/${c.slug}/app.js`;
    let next = 0;
    const pageStarted = performance.now();
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next++ < PAGE_FETCHES) await (await fetch(page, { headers: { cookie: c.cookie } })).arrayBuffer();
      }),
    );
    const reqPerSecond = PAGE_FETCHES / ((performance.now() - pageStarted) / 1000);

    let cold = '';
    if (dropCopies) {
      const files = (await (
        await fetch(`${easel.url}/v1/canvases/${c.id}/files`, { headers: { authorization: `Bearer ${c.key}` } })
      ).json()) as {
        files: Array<{ path: string; hash: string }>;
      };
      const blobs = files.files.filter((f) => f.path.startsWith('f/'));
      await dropCopies(blobs.map((f) => f.hash));
      const times: number[] = [];
      for (const f of blobs) {
        const t = performance.now();
        const answer = await fetch(`${easel.url}/c/${c.slug}/${f.path}`, { headers: { cookie: c.cookie } });
        await answer.arrayBuffer();
        if (answer.status !== 200) throw new Error(`cold read: ${answer.status}`);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      cold = `; first read without a local copy: median ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms`;
    }
    process.stdout.write(
      `${label}: deploy ${(zip.byteLength / 1024 / 1024 / deploySeconds).toFixed(0)} MB/s (${FILES} files); cached page ${reqPerSecond.toFixed(0)} req/s${cold}\n`,
    );
  } finally {
    await stopEasel(easel);
  }
}

const s3 = await startS3Server('easel-bench');
try {
  await run('embedded', {}, null);
  await run('s3', s3.env('bench/'), async (hashes) => {
    // A node that never had these copies: the blobs folder without them (the server keeps no other record of a copy).
    for (const hash of hashes) rmSync(blobPathUnder(join(work, 's3', 'blobs'), hash), { force: true });
  });
} finally {
  await s3.stop();
  rmSync(work, { recursive: true, force: true });
}
