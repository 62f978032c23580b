// passes: embedded — the documentation and its examples, against a fresh server per page
// Issue 43: the shell examples of README.md and docs/ run, in order, against
// a real server (a fresh one and a fresh data directory per page), so they
// cannot rot. curl fails on any HTTP error (the test's curl adds --fail-with-body)
// and the script stops at the first failing command. What `# →` comments
// show is not checked: ids, times and slugs differ from run to run.
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docPages } from '../src/docs/pages.ts';
import { startTestApp } from './harness.ts';

const ROOT = join(import.meta.dir, '..');
const FILES = ['README.md', ...[...docPages().keys()].map((p) => `docs/${p}.md`)];
const RUNNABLE = new Set(['sh', 'bash']);
/** Pages whose commands are for a checkout of Easel: they run in this one (the others in a fresh directory each). */
const IN_CHECKOUT = new Set(['docs/development.md']);

/** Blocks marked `no-test`, by file and first line, with why they cannot run here. Keep it short. */
const NOT_RUN: Record<string, string> = {
  'README.md: (command -v bun >/dev/null || npm install -g bun@1.4) && bun install && bun run start':
    'runs until Ctrl-C; test/process.test.ts starts `bun src/main.ts [serve]` and talks to it',
  'README.md: (command -v bun >/dev/null || npm install -g bun@1.4) && bun install && bun run ci':
    'installs packages as root (test/prereqs.sh), then is the whole CI, this test included',
  'docs/publishing.md: cd my-site && easel dev                    # http://localhost:…/c/dev/ with the SDK and runtime API, reloading on every change':
    'runs until Ctrl-C; test/browser/dev.test.ts drives easel dev in Chromium',
  'docs/operate.md: sudo install -m 0755 dist/easel /usr/local/bin/easel':
    'root and systemd; test/systemd-unit.test.ts runs systemd-analyze verify on contrib/easel.service',
  'docs/operate.md: sudo install -m 0644 contrib/easel-backup.service contrib/easel-backup.timer /etc/systemd/system/':
    'root and systemd; test/systemd-unit.test.ts verifies the backup units',
  'docs/operate.md: EASEL_URL_MODE=subdomain bun run start':
    'runs until Ctrl-C; test/browser/subdomain-localhost.test.ts drives that mode in Chromium',
  'docs/operate.md: bun run build        # → dist/easel':
    'compiles for tens of seconds; test/binary.test.ts builds the binary (build.ts) and runs it',
  'docs/operate.md: # Every request line, batched (the default):':
    'runs until Ctrl-C; test/log.test.ts checks the batched request lines, test/process.test.ts the process',
  'docs/scale-out.md: EASEL_BLOB_URL=s3://acme-easel/prod \\':
    'runs until stopped; test/blobs-s3.test.ts serves from a real S3 server (s3rver), and the s3 pass runs every suite on one',
  'docs/scale-out.md: EASEL_REDIS_URL=redis://cache.internal:6379/2 easel':
    'runs until stopped; test/realtime-cluster.test.ts runs two nodes on a real Redis',
  'docs/scale-out.md: EASEL_DATABASE_URL=postgres://easel:…@db.internal:5432/easel \\':
    'runs until stopped; test/cluster-postgres.test.ts and the cluster pass run two nodes on Postgres, S3 and Redis',
  'docs/scale-out.md: EASEL_BLOB_URL=s3://easel-blobs/prod S3_ENDPOINT=… S3_ACCESS_KEY_ID=… S3_SECRET_ACCESS_KEY=… \\':
    'your Postgres and bucket; test/copy-data.test.ts runs easel copy-data onto a real Postgres and S3 server',
  'docs/sign-in.md: EASEL_AUTH_MODE=oidc \\':
    'runs until Ctrl-C; test/oidc-provider.test.ts signs in against a real OpenID provider (oidc-provider)',
  "docs/install.md: # Put the release's files in one folder, then check them (every line must say OK):":
    'a downloaded release, then runs until Ctrl-C; test/release.test.ts checks SHA256SUMS and runs a built binary',
  'docs/install.md: bun run release                       # every platform, the two .deb files and SHA256SUMS in dist/release/':
    'minutes of building; test/release.test.ts builds one foreign platform and the amd64 package',
  'docs/install.md: sudo apt install ./easel_0.1.0_amd64.deb':
    'root and systemd; test/release.test.ts checks the package with dpkg-deb and lintian',
  "docs/notifications.md: EASEL_SMTP_URL='smtp://easel:app-password@mail.internal:587' \\":
    'runs until Ctrl-C; test/notifications-email.test.ts mails through a real SMTP server (test/smtp-fixture.ts)',
};

interface Block {
  file: string;
  code: string;
  skipped: boolean;
}

/** The shell blocks of a Markdown file, in order (` ```sh ` or ` ```bash `, `no-test` after the language to skip one). */
export function shellBlocks(file: string, markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\S+)([^\n]*)\n([\s\S]*?)^```$/gm)]
    .filter((m) => RUNNABLE.has(m[1]!))
    .map((m) => ({ file, code: m[3]!, skipped: /\bno-test\b/.test(m[2]!) }));
}

const blocks = FILES.flatMap((file) => shellBlocks(file, readFileSync(join(ROOT, file), 'utf8')));
const keyOf = (b: Block) => `${b.file}: ${b.code.split('\n')[0]}`;

test('every block marked no-test is listed with its reason, and every listed one is so marked', () => {
  const skipped = blocks.filter((b) => b.skipped).map(keyOf);
  expect(skipped.sort()).toEqual(Object.keys(NOT_RUN).sort());
  console.log(
    `docs examples: ${blocks.length - skipped.length} run, ${skipped.length} not run:\n` +
      skipped.map((k) => `  ${k.slice(0, 70)}: ${NOT_RUN[k]}`).join('\n'),
  );
});

test('the extraction finds runnable blocks and honours no-test', () => {
  const found = shellBlocks('x.md', '```sh\necho a\n```\n\n```sh no-test\nrm -rf /\n```\n\n```js\n1\n```\n');
  expect(found).toEqual([
    { file: 'x.md', code: 'echo a\n', skipped: false },
    { file: 'x.md', code: 'rm -rf /\n', skipped: true },
  ]);
});

/**
 * curl with --fail-with-body and --show-error, unless the example says --fail
 * itself (curl refuses both) or reads the status (`-w '%{http_code}'`, to
 * show a refusal; it checks the status itself).
 */
const CURL = `#!/bin/bash
for arg in "$@"; do
  if [[ $arg == --fail || $arg =~ ^-[A-Za-z]*f[A-Za-z]*$ ]]; then exec '${Bun.which('curl')}' --show-error "$@"; fi
  if [[ $arg == *'%{http_code}'* ]]; then exec '${Bun.which('curl')}' --show-error "$@"; fi
done
exec '${Bun.which('curl')}' --fail-with-body --show-error "$@"
`;

/**
 * Runs `script` with bash in a fresh directory, curl failing on HTTP errors (CURL);
 * resolves to its exit code and output. `easel` on its PATH is this checkout's
 * CLI (`bun src/main.ts`), and `xdg-open`, which the CLI opens URLs with, is
 * test/support/docs-browser.ts: a browser signed in as me@example.com that
 * clicks Allow on `easel login`'s approval page.
 */
async function runShell(script: string, env: Record<string, string> = {}, cwd?: string): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'easel-doc-example-'));
  try {
    const bin = join(dir, '.bin');
    mkdirSync(bin);
    const tool = (name: string, file: string) =>
      writeFileSync(join(bin, name), `#!/bin/sh\nexec '${process.execPath}' '${join(ROOT, file)}' "$@"\n`, { mode: 0o755 });
    tool('easel', 'src/main.ts');
    writeFileSync(join(bin, 'curl'), CURL, { mode: 0o755 });
    tool('xdg-open', 'test/support/docs-browser.ts');
    const proc = Bun.spawn(['bash', '-euo', 'pipefail', '-c', script], {
      cwd: cwd ?? dir,
      env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: dir, TMPDIR: dir, ...env },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const browser = existsSync(join(dir, 'browser.log')) ? `\n[browser]\n${readFileSync(join(dir, 'browser.log'), 'utf8')}` : '';
    return { code, output: out + err + browser };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a failing command or an HTTP error stops the example', async () => {
  expect((await runShell('false; echo after')).code).not.toBe(0);
  const server = Bun.serve({ port: 0, fetch: () => new Response('{"error":"not here"}', { status: 404 }) });
  try {
    // Without -f as a person would type it, and with -fsS as the CI recipes do: curl exits 22 either way.
    for (const curl of ['curl -s', 'curl -fsS']) {
      const { code, output } = await runShell(`${curl} ${server.url.href} >/dev/null; echo after`);
      expect({ curl, code, after: output.includes('after') }).toEqual({ curl, code: 22, after: false });
    }
    // An example that reads the status shows the refusal, and checks it itself.
    const shown = await runShell(`curl -s -w ' %{http_code}' ${server.url.href}`);
    expect(shown).toEqual({ code: 0, output: '{"error":"not here"} 404' });
  } finally {
    void server.stop(true);
  }
});

for (const file of FILES) {
  const runnable = blocks.filter((b) => b.file === file && !b.skipped);
  if (runnable.length === 0) continue;
  describe(file, () => {
    test(`its ${runnable.length} shell example(s) run in order against a fresh server`, async () => {
      // The pages' admin examples sign in as admin@example.com; Connections' protected headers need a secret key.
      const app = await startTestApp({
        listen: true,
        env: { EASEL_ADMIN_EMAILS: 'admin@example.com', EASEL_SECRET_KEY: 'A'.repeat(43) + '=' },
      });
      try {
        // The examples address the Quick start server through BASE (`BASE=${BASE:-http://localhost:8080}`);
        // this one listens on a free port. The operator pages back up its data directory.
        const script = runnable.map((b) => b.code).join('\n');
        const env = {
          BASE: new URL(app.ctx.config.baseUrl).origin,
          EASEL_DATA_DIR: app.ctx.config.dataDir,
          BACKUPS: 'backups', // in the example's own directory
        };
        const { code, output } = await runShell(script, env, IN_CHECKOUT.has(file) ? ROOT : undefined);
        expect({ code, output }).toEqual({ code: 0, output: expect.any(String) });
      } finally {
        await app.close();
      }
      // A page that signs the CLI in and deploys a dozen times takes seconds on a loaded machine.
    }, 30_000);
  });
}
