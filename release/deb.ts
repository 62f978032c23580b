// A Debian package of a Linux build, made with dpkg-deb alone: the binary in
// /usr/bin, the systemd units of contrib/ in /lib/systemd/system (pointed at
// /usr/bin/easel), /etc/easel/easel.env as a conffile, the copyright and
// changelog Debian wants. Nothing is started or enabled on install; removal
// stops the units and keeps /var/lib/easel (purge keeps it too: the data is
// the operator's, and systemd's DynamicUser needs no account to remove).
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';

const ROOT = join(import.meta.dir, '..');

/** The Debian architecture of each platform packaged. */
export const DEB_ARCH: Partial<Record<string, 'amd64' | 'arm64'>> = { 'linux-x64': 'amd64', 'linux-arm64': 'arm64' };

const UNITS = ['easel.service', 'easel-backup.service', 'easel-backup.timer'];
const MAINTAINER = 'Easel maintainers <easel@example.com>';

export interface DebOptions {
  binary: string;
  version: string;
  arch: 'amd64' | 'arm64';
  out: string;
}

export async function buildDeb(o: DebOptions): Promise<string> {
  const stage = mkdtempSync(join(tmpdir(), 'easel-deb-'));
  try {
    const put = (path: string, content: string | Buffer, mode = 0o644) => {
      const file = join(stage, path);
      mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
      writeFileSync(file, content);
      chmodSync(file, mode);
    };
    mkdirSync(join(stage, 'usr/bin'), { recursive: true, mode: 0o755 });
    copyFileSync(o.binary, join(stage, 'usr/bin/easel'));
    chmodSync(join(stage, 'usr/bin/easel'), 0o755);
    for (const unit of UNITS)
      put(
        `lib/systemd/system/${unit}`,
        readFileSync(join(ROOT, 'contrib', unit), 'utf8').replaceAll('/usr/local/bin/easel', '/usr/bin/easel'),
      );
    put('etc/easel/easel.env', readFileSync(join(ROOT, 'contrib/easel.env'), 'utf8'), 0o640);
    put('usr/share/doc/easel/copyright', COPYRIGHT);
    put('usr/share/doc/easel/changelog.gz', gzipSync(changelog(o.version), { level: 9 }));
    put('usr/share/lintian/overrides/easel', LINTIAN_OVERRIDES);

    const installedKiB = Math.ceil(sizeOf(stage) / 1024);
    put('DEBIAN/control', control(o.version, o.arch, installedKiB));
    put('DEBIAN/conffiles', '/etc/easel/easel.env\n');
    put('DEBIAN/postinst', POSTINST, 0o755);
    put('DEBIAN/prerm', PRERM, 0o755);
    put('DEBIAN/postrm', POSTRM, 0o755);
    put('DEBIAN/md5sums', md5sums(stage));
    for (const dir of walkDirs(stage)) chmodSync(dir, 0o755);

    const file = join(o.out, `easel_${o.version}_${o.arch}.deb`);
    const proc = Bun.spawn(['dpkg-deb', '--root-owner-group', '-Zgzip', '--build', stage, file], { stdout: 'pipe', stderr: 'pipe' });
    if ((await proc.exited) !== 0) throw new Error(`dpkg-deb failed: ${await new Response(proc.stderr).text()}`);
    return file;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function control(version: string, arch: string, installedKiB: number): string {
  return `Package: easel
Version: ${version}
Architecture: ${arch}
Maintainer: ${MAINTAINER}
Installed-Size: ${installedKiB}
Depends: libc6 (>= 2.27)
Section: web
Priority: optional
Homepage: https://github.com/easel/easel
Description: self-hosted canvas publishing service
 Easel publishes static sites ("canvases") behind your company's sign-in,
 from a dashboard, a CLI, CI or an AI agent, and gives their pages a browser
 API: identity, storage, files, AI, realtime and more. One executable; data
 in /var/lib/easel. Configure /etc/easel/easel.env, then
 systemctl enable --now easel.
`;
}

function changelog(version: string): string {
  const date = new Date().toUTCString().replace('GMT', '+0000');
  return `easel (${version}) unstable; urgency=medium\n\n  * Release ${version}.\n\n -- ${MAINTAINER}  ${date}\n`;
}

const COPYRIGHT = `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: easel
Source: https://github.com/easel/easel

Files: *
Copyright: 2025-2026 Easel maintainers
License: proprietary
 All rights reserved by the Easel maintainers. The executable embeds the Bun
 runtime (MIT) and the npm packages it is built from, each under its own
 license.
`;

// What lintian says of a Bun single-file executable, and of the settings file's mode.
const LINTIAN_OVERRIDES = `# A Bun single-file executable: the program is appended to the runtime, so it cannot be stripped.
easel: unstripped-binary-or-object [usr/bin/easel]
# The Bun runtime is linked as upstream builds it (its own libjpeg among its libraries; no PIE or RELRO).
easel: embedded-library libjpeg [usr/bin/easel]
easel: hardening-no-pie [usr/bin/easel]
easel: hardening-no-relro [usr/bin/easel]
# It holds secrets (EASEL_SECRET_KEY, the OIDC client secret): readable by root only; systemd reads it as root.
easel: non-standard-file-perm 0640 != 0644 [etc/easel/easel.env]
# The manual is \`easel help\` and the docs the server serves at /docs.
easel: no-manual-page [usr/bin/easel]
`;

const POSTINST = `#!/bin/sh
set -e
# Nothing is started or enabled: set /etc/easel/easel.env, then systemctl enable --now easel.
if [ "$1" = "configure" ] && [ -d /run/systemd/system ]; then
  systemctl --system daemon-reload >/dev/null || true
fi
`;

const PRERM = `#!/bin/sh
set -e
if [ "$1" = "remove" ] && [ -d /run/systemd/system ] && command -v deb-systemd-invoke >/dev/null; then
  deb-systemd-invoke stop easel-backup.timer easel-backup.service easel.service >/dev/null || true
fi
`;

const POSTRM = `#!/bin/sh
set -e
# The data in /var/lib/easel is kept, on purge too: it is the operator's to remove.
if [ -d /run/systemd/system ]; then
  systemctl --system daemon-reload >/dev/null || true
fi
`;

function md5sums(stage: string): string {
  return walkFiles(stage)
    .filter((f) => !relative(stage, f).startsWith('DEBIAN/') && !relative(stage, f).startsWith('etc/'))
    .map((f) => `${createHash('md5').update(readFileSync(f)).digest('hex')}  ${relative(stage, f)}\n`)
    .join('');
}

function walkFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walkFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

function walkDirs(dir: string): string[] {
  return [dir, ...readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walkDirs(join(dir, e.name)) : []))];
}

function sizeOf(dir: string): number {
  return walkFiles(dir).reduce((n, f) => n + statSync(f).size, 0);
}
