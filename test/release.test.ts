// passes: embedded — the release build and the packages, run as processes; no storage involved
// `bun run release` as built (issue 44 item 3): the full six-platform build
// takes minutes on this machine, so this builds one foreign target
// (linux-arm64, started under qemu-aarch64 with Debian's arm64 loader) and
// the amd64 Debian package, checks the checksums with sha256sum, the package
// with dpkg-deb and lintian, and the arm64 binary serving a deployed canvas.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { VERSION } from '../src/build-info.ts';
import { ROOT, runToExit, startEasel, stopEasel } from './spawn.ts';

const out = mkdtempSync(join(tmpdir(), 'easel-release-'));
const arm64 = join(out, `easel-${VERSION}-linux-arm64`);
const deb = join(out, `easel_${VERSION}_amd64.deb`);
const QEMU = ['qemu-aarch64'];
const QEMU_ENV = { QEMU_LD_PREFIX: '/usr/aarch64-linux-gnu' };
const run = (cmd: string[], cwd = out) => {
  const r = Bun.spawnSync(cmd, { cwd, stdout: 'pipe', stderr: 'pipe' });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

beforeAll(async () => {
  const build = Bun.spawn([process.execPath, join(ROOT, 'release.ts'), '--only', 'linux-arm64,linux-x64', '--out', out], {
    cwd: ROOT,
    env: { ...process.env, EASEL_BUILD_COMMIT: 'c0ffee123456' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
  if (code !== 0) throw new Error(`release failed (${code}): ${stdout}\n${stderr}`);
}, 600_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('bun run release', () => {
  test('names each file by version and platform, and SHA256SUMS checks every one', () => {
    const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8').trim().split('\n');
    expect(sums.map((l) => l.split('  ')[1]).sort()).toEqual(
      [`easel-${VERSION}-linux-arm64`, `easel-${VERSION}-linux-x64`, `easel_${VERSION}_amd64.deb`, `easel_${VERSION}_arm64.deb`].sort(),
    );
    for (const line of sums) expect(line).toMatch(/^[0-9a-f]{64} {2}\S+$/);
    const check = run(['sha256sum', '-c', 'SHA256SUMS']);
    expect(check.code).toBe(0);
    expect(
      check.stdout
        .trim()
        .split('\n')
        .every((l) => l.endsWith(': OK')),
    ).toBe(true);
  });

  test('the linux-arm64 binary is for aarch64 and, under qemu, says what it is and serves a deployed canvas', async () => {
    expect(run(['file', '-b', arm64]).stdout).toContain('ARM aarch64');
    const version = await runToExit({ command: [...QEMU, arm64], args: ['version', '--json'], env: QEMU_ENV });
    expect(version.code).toBe(0);
    expect(JSON.parse(version.stdout)).toMatchObject({ version: VERSION, commit: 'c0ffee123456', target: 'linux-arm64' });
    expect(JSON.parse(version.stdout).buildDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const cwd = mkdtempSync(join(tmpdir(), 'easel-arm64-'));
    const easel = await startEasel({ command: [...QEMU, arm64], cwd, env: QEMU_ENV }, 120_000);
    try {
      expect((await fetch(`${easel.url}/healthz`)).status).toBe(200);
      const origin = easel.url;
      const login = await fetch(`${origin}/auth/dev/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: '{"email":"arm@example.com","name":"Arm"}',
      });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const created = await fetch(`${origin}/api/canvases`, {
        method: 'POST',
        headers: { cookie, origin, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'On arm64', slug: 'on-arm64' }),
      });
      const canvas = (await created.json()) as { id: string; apiKey: string };
      const zip = zipSync({ 'index.html': new TextEncoder().encode('<h1>served by aarch64</h1>') });
      const deployed = await fetch(`${origin}/v1/canvases/${canvas.id}/deploy`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${canvas.apiKey}` },
        body: zip,
      });
      expect(deployed.status).toBe(200);
      const page = await fetch(`${origin}/c/on-arm64/`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toBe('<h1>served by aarch64</h1>');
    } finally {
      expect(await stopEasel(easel)).toBe(0);
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 240_000);

  test('the Debian package: binary, units, a conffile, nothing started; lintian finds nothing', () => {
    const info = run(['dpkg-deb', '-f', deb, 'Package', 'Version', 'Architecture', 'Depends']);
    expect(info.stdout).toBe(`Package: easel\nVersion: ${VERSION}\nArchitecture: amd64\nDepends: libc6 (>= 2.27)\n`);
    const files = run(['dpkg-deb', '-c', deb]).stdout;
    for (const path of [
      './usr/bin/easel',
      './lib/systemd/system/easel.service',
      './lib/systemd/system/easel-backup.service',
      './lib/systemd/system/easel-backup.timer',
      './etc/easel/easel.env',
      './usr/share/doc/easel/copyright',
    ])
      expect(files).toContain(path);
    expect(files).toMatch(/-rwxr-xr-x root\/root +\d+ [\d-]+ [\d:]+ \.\/usr\/bin\/easel/);
    const control = mkdtempSync(join(tmpdir(), 'easel-deb-control-'));
    try {
      expect(run(['dpkg-deb', '-e', deb, control]).code).toBe(0);
      expect(readFileSync(join(control, 'conffiles'), 'utf8')).toBe('/etc/easel/easel.env\n');
      // The unit runs the packaged binary; no maintainer script starts or enables anything.
      const scripts = ['postinst', 'prerm', 'postrm']
        .flatMap((s) => readFileSync(join(control, s), 'utf8').split('\n'))
        .filter((line) => !line.trimStart().startsWith('#'))
        .join('\n');
      expect(scripts).not.toMatch(/\b(start|enable)\b/);
      expect(scripts).not.toContain('/var/lib/easel');
    } finally {
      rmSync(control, { recursive: true, force: true });
    }
    const unit = run(['dpkg-deb', '--fsys-tarfile', deb]);
    expect(unit.code).toBe(0);
    const extracted = mkdtempSync(join(tmpdir(), 'easel-deb-root-'));
    try {
      expect(run(['dpkg-deb', '-x', deb, extracted]).code).toBe(0);
      const service = readFileSync(join(extracted, 'lib/systemd/system/easel.service'), 'utf8');
      expect(service).toContain('ExecStart=/usr/bin/easel serve');
      expect(service).toContain('StateDirectory=easel');
    } finally {
      rmSync(extracted, { recursive: true, force: true });
    }
    const lint = run(['lintian', '--tag-display-limit', '0', deb]);
    const findings = `${lint.stdout}${lint.stderr}`.split('\n').filter((l) => /^[EW]: /.test(l));
    expect(findings).toEqual([]);
  }, 120_000);
});
