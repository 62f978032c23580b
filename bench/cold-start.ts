// Cold start: time from spawn to the first 200 on /healthz, for the compiled
// binary and for `bun src/main.ts`. Run `bun run build` first.
//   bun bench/cold-start.ts [runs=10]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dir, '..');
const runs = Number(process.argv[2] ?? 10);

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

async function once(command: string[]): Promise<number> {
  const cwd = mkdtempSync(join(tmpdir(), 'easel-bench-'));
  const port = await freePort();
  const t0 = performance.now();
  const proc = Bun.spawn(command, {
    cwd,
    env: { PATH: process.env.PATH!, EASEL_PORT: String(port), EASEL_LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'ignore',
  });
  let ms = -1;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) {
      ms = performance.now() - t0;
      break;
    }
    if (performance.now() - t0 > 10_000) break;
    await Bun.sleep(2);
  }
  proc.kill('SIGTERM');
  await proc.exited;
  rmSync(cwd, { recursive: true, force: true });
  return ms;
}

function stats(label: string, xs: number[]): void {
  const s = [...xs].sort((a, b) => a - b);
  console.log(
    `${label}: median ${s[Math.floor(s.length / 2)]!.toFixed(0)} ms, min ${s[0]!.toFixed(0)} ms, max ${s.at(-1)!.toFixed(0)} ms (${runs} runs)`,
  );
}

const binary = join(root, 'dist/easel');
console.log(`dist/easel: ${(statSync(binary).size / 1024 / 1024).toFixed(1)} MiB`);
const b: number[] = [];
const src: number[] = [];
for (let i = 0; i < runs; i++) {
  b.push(await once([binary]));
  src.push(await once([process.execPath, join(root, 'src/main.ts')]));
}
stats('binary      spawn → 200 /healthz', b);
stats('from source spawn → 200 /healthz', src);
