// `bun run lint:openapi`: the live /openapi.json, as a fresh app serves it,
// linted by Redocly's recommended rules (redocly.yaml; the exceptions, each
// with why, in .redocly.lint-ignore.yaml). Offline: no telemetry, no update check.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp } from './harness.ts';

const repo = join(import.meta.dir, '..');
// A public address, as an instance has (the test default, localhost, is what Redocly warns of).
const app = await startTestApp({ env: { EASEL_BASE_URL: 'https://easel.example.org' } });
const dir = mkdtempSync(join(tmpdir(), 'easel-openapi-'));
let code = 1;
try {
  const res = await app.request('/openapi.json');
  if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
  const file = join(dir, 'openapi.json');
  // Redocly reads the ignore file beside its config, keyed by paths relative to it.
  for (const name of ['redocly.yaml', '.redocly.lint-ignore.yaml']) copyFileSync(join(repo, name), join(dir, name));
  // Pretty-printed so a warning's line points at one field.
  writeFileSync(file, JSON.stringify(await res.json(), null, 2));
  // The installed CLI, run by Bun (bunx outside the repo would fetch an unrelated package named redocly).
  const cli = join(repo, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  const lint = Bun.spawn([process.execPath, cli, 'lint', '--format', 'stylish', '--config', join(dir, 'redocly.yaml'), file], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' },
    stdout: 'inherit',
    stderr: 'inherit',
  });
  code = await lint.exited;
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
