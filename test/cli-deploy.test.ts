// passes: embedded — the CLI's side; the routes it calls run in the s3 and cluster passes
// `easel deploy` end to end against a listening server: the real process
// (`bun src/main.ts deploy …`) for the main flows, the command in process
// where the test needs to steer time (429 retries) or see the TTY output.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { zipSync } from 'fflate';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployCommand, type CliIO } from '../src/cli/deploy.ts';
import { sha256Hex } from '../src/ids.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { runToExit } from './spawn.ts';
import { blobPuts, createKeyedCanvas, tokenOf, type KeyedCanvas } from './upload-fixtures.ts';

let clock = Date.now();
let app: TestApp;
let work: string;

beforeAll(async () => {
  app = await startTestApp({ listen: true, now: () => clock, env: { EASEL_RATELIMIT_DEPLOY_PER_MIN: '100000' } });
  work = mkdtempSync(join(tmpdir(), 'easel-cli-deploy-'));
});
afterAll(async () => {
  await app.close();
  rmSync(work, { recursive: true, force: true });
});

function writeSite(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

function cli(c: KeyedCanvas, args: string[], key = c.key) {
  return runToExit({ args: ['deploy', ...args, '--canvas', c.id, '--api', app.base], env: { EASEL_CANVAS_KEY: key } });
}

/** deployCommand in this process, with captured output. */
async function inProcess(
  args: string[],
  env: Record<string, string>,
  options: { isTTY?: boolean; sleep?: (ms: number) => Promise<void> } = {},
) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTTY: options.isTTY ?? false };
  const code = await deployCommand(args, env, io, { sleep: options.sleep });
  return { code, stdout, stderr };
}

describe('easel deploy <dir>', () => {
  test('first deploy sends every file; a redeploy with one change sends only that blob', async () => {
    const c = await createKeyedCanvas(app);
    const dir = writeSite('site1', {
      'index.html': '<!doctype html><h1>v1</h1>',
      'app.js': 'console.log(1)',
      'css/site.css': 'body{margin:0}',
      'css/copy.css': 'body{margin:0}',
      '.env': 'SECRET=1',
      '.git/HEAD': 'ref: main',
    });
    const before = blobPuts(app).length;
    const first = await cli(c, [dir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('published version 1 at ');
    expect(first.stdout).toContain(`/c/${c.slug}/`);
    expect(first.stdout).toMatch(/files\s+4 \(/);
    // Three distinct contents (the two CSS files are identical); dotfiles never leave the machine.
    expect(blobPuts(app).length - before).toBe(3);

    writeFileSync(join(dir, 'app.js'), 'console.log(2)');
    const mid = blobPuts(app).length;
    const second = await cli(c, [dir]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('published version 2');
    const puts = blobPuts(app).slice(mid);
    expect(puts).toHaveLength(1);
    expect(String(puts[0]!.path)).toEndWith(`/blobs/${sha256Hex('console.log(2)')}`);
    const files = app.ctx
      .db!.query<{ path: string }, [string]>('SELECT path FROM version_files WHERE version_id = ? ORDER BY path')
      .all((await app.ctx.canvases.byId(c.id))!.currentVersionId!)
      .map((r) => r.path);
    expect(files).toEqual(['app.js', 'css/copy.css', 'css/site.css', 'index.html']);
  });

  test('--json prints the DeployResult; --release-id makes a rerun already_current without uploads', async () => {
    const c = await createKeyedCanvas(app);
    const dir = writeSite('site2', { 'index.html': '<h1>json</h1>', 'page.qqq': 'odd' });
    const first = await cli(c, [dir, '--json', '--release-id', 'build-7']);
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result).toEqual({
      outcome: 'published',
      url: expect.stringContaining(`/c/${c.slug}/`),
      version: 1,
      versionId: expect.any(String),
      releaseId: 'build-7',
      publicationToken: await tokenOf(app.ctx, c.id),
      fileCount: 2,
      totalBytes: '<h1>json</h1>'.length + 3,
      warnings: ['page.qqq will be served as text/plain'],
    });
    const before = blobPuts(app).length;
    const rerun = await cli(c, [dir, '--json', '--release-id', 'build-7']);
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ outcome: 'already_current', versionId: result.versionId, releaseId: 'build-7' });
    expect(blobPuts(app).length).toBe(before);
    const human = await cli(c, [dir, '--release-id', 'build-7']);
    expect(human.stdout).toContain('already current: version 1 (release build-7) is live at');
  });

  test('the same folder again: "nothing changed", no version; --force deploys it anyway', async () => {
    const c = await createKeyedCanvas(app);
    const dir = writeSite('same', { 'index.html': '<h1>same</h1>', 'a.js': 'a' });
    expect((await cli(c, [dir])).code).toBe(0);
    const token = await tokenOf(app.ctx, c.id);
    const again = await cli(c, [dir]);
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toStartWith('nothing changed: the files equal live version 1 at ');
    const asJson = await cli(c, [dir, '--json']);
    expect(JSON.parse(asJson.stdout)).toEqual({
      outcome: 'unchanged',
      url: expect.stringContaining(`/c/${c.slug}/`),
      version: 1,
      publicationToken: token,
    });
    const versions = () => app.ctx.sql.all('SELECT number FROM versions WHERE canvas_id = ?1', c.id);
    expect(await versions()).toHaveLength(1);
    const forced = await cli(c, [dir, '--force']);
    expect(forced.stdout).toContain('published version 2');
    writeFileSync(join(dir, 'a.js'), 'b');
    expect((await cli(c, [dir])).stdout).toContain('published version 3');
  });

  test('--preview: a version that is not live, its address printed; --json carries previewUrl', async () => {
    const c = await createKeyedCanvas(app);
    const dir = writeSite('prev', { 'index.html': '<h1>live</h1>' });
    expect((await cli(c, [dir])).code).toBe(0);
    const token = await tokenOf(app.ctx, c.id);
    writeFileSync(join(dir, 'index.html'), '<h1>next</h1>');
    const human = await cli(c, [dir, '--preview']);
    expect(human.stdout).toMatch(/^preview version 2 at http:\/\/\S+__easel\/v\/2\/ \(not live; easel rollback 2 makes it live\)/);
    writeFileSync(join(dir, 'index.html'), '<h1>next2</h1>');
    const asJson = JSON.parse((await cli(c, [dir, '--preview', '--json', '--release-id', 'sha-1'])).stdout);
    expect(asJson).toMatchObject({ outcome: 'preview', version: 3, releaseId: 'sha-1', publicationToken: token });
    expect(asJson.previewUrl).toEndWith(`/c/${c.slug}/__easel/v/3/`);
    const zip = join(work, 'prev.zip');
    writeFileSync(zip, zipSync({ 'index.html': new TextEncoder().encode('<h1>zip</h1>') }));
    expect(JSON.parse((await cli(c, [zip, '--preview', '--json'])).stdout)).toMatchObject({ outcome: 'preview', version: 4 });
    expect(await tokenOf(app.ctx, c.id)).toBe(token);
    expect(await (await fetch(`${app.base}/c/${c.slug}/__easel/v/3/`, { redirect: 'manual' })).status).toBe(302);
  });

  test('--expect-token: a fresh token publishes; a stale one fails with the code and exit 1', async () => {
    const c = await createKeyedCanvas(app);
    const dir = writeSite('site3', { 'index.html': '<h1>tok</h1>' });
    const ok = await cli(c, [dir, '--expect-token', await tokenOf(app.ctx, c.id)]);
    expect(ok.code).toBe(0);
    const stale = await cli(c, [dir, '--expect-token', 'stale-token']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^easel deploy: PUBLICATION_CHANGED: /m);
    expect(stale.stderr).toContain(`publicationToken ${await tokenOf(app.ctx, c.id)}`);
    const asJson = await cli(c, [dir, '--expect-token', 'stale-token', '--json']);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      code: 'PUBLICATION_CHANGED',
      current: { publicationToken: await tokenOf(app.ctx, c.id) },
    });
  });

  test('a refused key: exit 1 with the code; the key is never printed', async () => {
    const c = await createKeyedCanvas(app);
    const dir = writeSite('site4', { 'index.html': 'x' });
    const wrongKey = 'easel_sk_' + 'Z'.repeat(40);
    const r = await cli(c, [dir], wrongKey);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^easel deploy: unauthorized: /m);
    expect(r.stdout + r.stderr).not.toContain(wrongKey);
    // --json errors are always {code, message}, the Deploy API's short {error} form too.
    const asJson = await cli(c, [dir, '--json'], wrongKey);
    expect(JSON.parse(asJson.stdout)).toEqual({ code: 'unauthorized', message: expect.stringContaining('the credential was refused') });
    expect(JSON.stringify(app.logs)).not.toContain(wrongKey);
  });

  test('a server-side refusal names the code: ZIP_SLIP-free folders, but too big a file', async () => {
    const c = await createKeyedCanvas(app);
    const dir = join(work, 'site-big');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'index.html'), 'x');
    writeFileSync(join(dir, 'big.bin'), new Uint8Array(25 * 1024 * 1024 + 1));
    const r = await cli(c, [dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('easel deploy: FILE_TOO_LARGE: ');
    expect(r.stderr).toContain('big.bin');
  });

  test('a Node project folder (package.json, node_modules/) is refused before a file is read, naming where its built site is', async () => {
    const c = await createKeyedCanvas(app);
    const project = writeSite('project', {
      'package.json': '{"name":"app","scripts":{"build":"vite build"}}',
      'index.html': '<script type="module" src="/src/main.js"></script>',
      'src/main.js': 'import "./style.css"',
      'node_modules/vite/package.json': '{}',
      'dist/index.html': '<script src="./assets/index.js"></script>',
      'dist/assets/index.js': '1',
    });
    const asked = app.logs.filter((l) => l.msg === 'request').length;
    const r = await cli(c, [project]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `easel deploy: NOT_A_SITE: this folder is a Node project (package.json and node_modules/), not a built site; its site is built into dist/: use that folder (${join(project, 'dist')}), or make it the default with easel link <canvas> --dir dist`,
    );
    // Refused on the spot: not a request reached the server.
    expect(app.logs.filter((l) => l.msg === 'request').length).toBe(asked);
    // Not built yet: how to build it, and where the site usually lands.
    rmSync(join(project, 'dist'), { recursive: true });
    const unbuilt = await cli(c, [project]);
    expect(unbuilt.code).toBe(1);
    expect(unbuilt.stderr).toContain('build it first (npm run build), then use the folder the build writes (often dist/ or build/)');
    // A site that has a package.json of its own but no installed dependencies deploys as usual.
    rmSync(join(project, 'node_modules'), { recursive: true });
    const site = await cli(c, [project]);
    expect(site.code).toBe(0);
    expect(site.stdout).toContain('published version 1');
  });

  test('usage errors exit 2 and show the usage', async () => {
    const c = await createKeyedCanvas(app);
    const dir = writeSite('site5', { 'index.html': 'x' });
    const noCanvas = await runToExit({ args: ['deploy', dir], env: { EASEL_CANVAS_KEY: c.key } });
    expect([noCanvas.code, noCanvas.stderr]).toEqual([2, expect.stringContaining('missing --canvas <id>')]);
    const noKey = await runToExit({ args: ['deploy', dir, '--canvas', c.id] });
    expect([noKey.code, noKey.stderr]).toEqual([2, expect.stringContaining('EASEL_CANVAS_KEY')]);
    const noPath = await cli(c, [join(work, 'does-not-exist')]);
    expect([noPath.code, noPath.stderr]).toEqual([2, expect.stringContaining('no such file or folder')]);
    const notZip = join(work, 'notes.txt');
    writeFileSync(notZip, 'hello');
    expect((await cli(c, [notZip])).code).toBe(2);
    const help = await runToExit({ args: ['deploy', '--help'] });
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('Usage: easel deploy [<dir or .zip>] [--canvas <id>]')]);
  });

  test('easel help names the deploy command', async () => {
    const r = await runToExit({ args: ['help'] });
    expect(r.stdout).toContain('easel deploy [<dir or .zip>] [--canvas <id>]');
  });
});

describe('symbolic links in the site folder (issue 23 item 5)', () => {
  const LEAKED = 'easel_sk_' + 'Q1w2E3r4T5'.repeat(4);
  /** A folder whose links point out of it (the environment, a secret file), within it, at a folder, and nowhere. */
  function linkedSite(name: string): { dir: string; secret: string } {
    const dir = writeSite(name, { 'index.html': '<h1>links</h1>', 'assets/logo.txt': 'logo' });
    const secret = join(work, `${name}-outside.txt`);
    writeFileSync(secret, `EASEL_CANVAS_KEY=${LEAKED}\n`);
    symlinkSync('/proc/self/environ', join(dir, 'env.txt'));
    symlinkSync(secret, join(dir, 'secret.txt'));
    symlinkSync('../assets/logo.txt', join(dir, 'assets', 'inner-up.txt'));
    symlinkSync('assets/logo.txt', join(dir, 'logo-link.txt'));
    symlinkSync('assets', join(dir, 'assets-link'));
    symlinkSync('missing.txt', join(dir, 'broken.txt'));
    return { dir, secret };
  }
  const livePaths = (c: KeyedCanvas) =>
    app.ctx
      .db!.query<{ path: string }, [string]>(
        'SELECT f.path FROM version_files f JOIN canvases c ON c.current_version_id = f.version_id WHERE c.id = ? ORDER BY f.path',
      )
      .all(c.id)
      .map((r) => r.path);

  test('are skipped by default, each one listed on stderr; nothing outside the folder is read', async () => {
    const c = await createKeyedCanvas(app);
    const { dir } = linkedSite('links-default');
    const run = await cli(c, [dir], c.key);
    expect(run.code).toBe(0);
    expect(livePaths(c)).toEqual(['assets/logo.txt', 'index.html']);
    for (const path of ['env.txt', 'secret.txt', 'assets/inner-up.txt', 'logo-link.txt', 'assets-link', 'broken.txt'])
      expect(run.stderr).toContain(`skipping ${path} -> `);
    expect(run.stderr).toContain('skipping env.txt -> /proc/self/environ: a symbolic link');
    expect(run.stderr).toContain('skipped 6 symbolic link(s)');
    expect(run.stdout + run.stderr).not.toContain(LEAKED);
  });

  test('--follow-symlinks follows only links to files inside the folder', async () => {
    const c = await createKeyedCanvas(app);
    const { dir } = linkedSite('links-follow');
    const run = await cli(c, [dir, '--follow-symlinks'], c.key);
    expect(run.code).toBe(0);
    expect(livePaths(c)).toEqual(['assets/inner-up.txt', 'assets/logo.txt', 'index.html', 'logo-link.txt']);
    expect(run.stderr).toContain('skipping env.txt -> /proc/self/environ: a link out of the folder');
    expect(run.stderr).toMatch(/skipping secret\.txt -> \S+: a link out of the folder/);
    expect(run.stderr).toContain('skipping assets-link -> assets: a link to a folder');
    expect(run.stderr).toContain('skipping broken.txt -> missing.txt: a broken link');
    expect(run.stderr).toContain('skipped 4 symbolic link(s)');
  });

  test('a key in a deployed file comes back as a warning in the answer, printed by the CLI', async () => {
    const c = await createKeyedCanvas(app);
    const dir = writeSite('links-key', { 'index.html': '<h1>k</h1>', 'config.js': `const key = "${LEAKED}";` });
    const run = await cli(c, [dir], c.key);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('warning: config.js may contain a canvas API key');
    const json = await cli(c, [dir, '--json', '--release-id', 'again-with-key'], c.key);
    expect(JSON.parse(json.stdout).warnings).toEqual(['config.js may contain a canvas API key']);
  });
});

describe('easel deploy <file.zip>', () => {
  test('streams the archive to PUT /deploy', async () => {
    const c = await createKeyedCanvas(app);
    const zip = join(work, 'site.zip');
    writeFileSync(zip, zipSync({ 'index.html': new TextEncoder().encode('<h1>zip</h1>'), 'a.js': new TextEncoder().encode('1') }));
    const r = await cli(c, [zip, '--release-id', 'zip-1', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'published', version: 1, releaseId: 'zip-1', fileCount: 2 });
    const deploys = app.logs.filter((l) => l.msg === 'request' && l.method === 'PUT' && l.path === `/v1/canvases/${c.id}/deploy`);
    expect(deploys).toHaveLength(1);
    const v = app.ctx.db!.query<{ source: string }, [string]>('SELECT source FROM versions WHERE canvas_id = ?').get(c.id)!;
    expect(v.source).toBe('api');
  });
});

describe('retries and progress (in process)', () => {
  test('429 on begin: waits Retry-After, then succeeds', async () => {
    const limited = await startTestApp({ listen: true, now: () => clock, env: { EASEL_RATELIMIT_DEPLOY_PER_MIN: '2' } });
    try {
      const c = await createKeyedCanvas(limited);
      const dir = writeSite('site-429', { 'index.html': '<h1>429</h1>' });
      const env = { EASEL_CANVAS_KEY: c.key };
      const args = [dir, '--canvas', c.id, '--api', limited.base];
      expect((await inProcess(args, env)).code).toBe(0); // begin + finalize: the window is full
      const waits: number[] = [];
      const r = await inProcess([...args, '--json', '--force'], env, {
        sleep: async (ms) => {
          waits.push(ms);
          clock += ms; // the server's clock moves on while the CLI waits
        },
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/begin: 429 rate_limited; retrying in \d+\.\d s/);
      expect(waits[0]! % 1000).toBe(0); // whole seconds from Retry-After, not a backoff step
      expect(JSON.parse(r.stdout).version).toBe(2);
    } finally {
      await limited.close();
    }
  });

  test('an unreachable server: five tries with backoff, then NETWORK_ERROR and exit 1', async () => {
    const c = await createKeyedCanvas(app);
    const dir = writeSite('site-net', { 'index.html': 'x' });
    const probe = Bun.serve({ port: 0, fetch: () => new Response('') });
    const deadBase = `http://127.0.0.1:${probe.port}`;
    await probe.stop(true);
    const waits: number[] = [];
    const r = await inProcess(
      [dir, '--canvas', c.id, '--api', deadBase],
      { EASEL_CANVAS_KEY: c.key },
      { sleep: async (ms) => void waits.push(ms) },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('easel deploy: NETWORK_ERROR: cannot reach');
    expect(waits).toHaveLength(4);
    for (let i = 1; i < waits.length; i++) expect(waits[i]!).toBeGreaterThan(waits[i - 1]!);
  });

  test('on a terminal: a redrawn progress bar on stderr; otherwise plain lines', async () => {
    const c = await createKeyedCanvas(app);
    const files: Record<string, string> = { 'index.html': '<h1>bar</h1>' };
    for (let i = 0; i < 30; i++) files[`f${i}.txt`] = `file ${i}`;
    const dir = writeSite('site-tty', files);
    const env = { EASEL_CANVAS_KEY: c.key };
    const tty = await inProcess([dir, '--canvas', c.id, '--api', app.base], env, { isTTY: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toContain('\r\x1b[2Kuploading [########################] 31/31 files');
    expect(tty.stdout).not.toContain('\r');
    for (const f of Object.keys(files)) writeFileSync(join(dir, f), `changed ${f}`);
    const plain = await inProcess([dir, '--canvas', c.id, '--api', app.base], env, { isTTY: false });
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toContain('\r');
    expect(plain.stderr).toContain('uploading 31/31');
    expect(plain.stderr.split('\n').length).toBeLessThan(30);
  });
});
