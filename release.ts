#!/usr/bin/env bun
// `bun run release`: from this one machine, the executables people download
// and the Debian packages intranet hosts install, in dist/release/:
//   easel-<version>-<os>-<arch>[.exe]   for every platform below (Bun's --target;
//                                       the runtimes come from the npm registry)
//   easel_<version>_<amd64|arm64>.deb   the Linux builds as packages (release/deb.ts)
//   SHA256SUMS                          `sha256sum -c SHA256SUMS` checks them all
// `--only linux-arm64,linux-x64` builds a subset; `--no-deb` skips the packages.
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { bakedNow, compile, prepareEntries } from './build.ts';
import { VERSION } from './src/build-info.ts';
import { buildDeb, DEB_ARCH } from './release/deb.ts';
import { sha256File } from './release/checksums.ts';

export const PLATFORMS = ['linux-x64', 'linux-x64-musl', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'windows-x64'] as const;
export type Platform = (typeof PLATFORMS)[number];

export function binaryName(version: string, platform: Platform): string {
  return `easel-${version}-${platform}${platform.startsWith('windows') ? '.exe' : ''}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, 'no-deb': { type: 'boolean' }, out: { type: 'string' } } });
  const only = values.only?.split(',').map((p) => p.trim()) ?? [...PLATFORMS];
  const unknown = only.filter((p) => !(PLATFORMS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new Error(`unknown platform ${unknown.join(', ')} (known: ${PLATFORMS.join(', ')})`);
  const out = values.out ?? join(import.meta.dir, 'dist', 'release');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  const started = performance.now();
  const { entryFor } = await prepareEntries(bakedNow());
  const made: string[] = [];
  for (const platform of only as Platform[]) {
    const file = join(out, binaryName(VERSION, platform));
    await compile(await entryFor(platform), file, `bun-${platform}`);
    made.push(file);
    const arch = DEB_ARCH[platform];
    if (arch && !values['no-deb']) made.push(await buildDeb({ binary: file, version: VERSION, arch, out }));
  }
  const sums = await Promise.all(made.map(async (file) => `${await sha256File(file)}  ${basename(file)}\n`));
  await Bun.write(join(out, 'SHA256SUMS'), sums.join(''));
  for (const file of made) console.log(`release: ${basename(file)} (${(Bun.file(file).size / 1024 / 1024).toFixed(1)} MiB)`);
  console.log(`release: ${made.length} files and SHA256SUMS in ${out} in ${Math.round(performance.now() - started)} ms`);
}

if (import.meta.main)
  await main().catch((err: Error) => {
    process.stderr.write(`release: ${err.message}\n`);
    process.exit(1);
  });
