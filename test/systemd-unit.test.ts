// contrib/easel.service as systemd reads it (issue 20 item 1): `systemd-analyze
// verify` accepts it without a warning. The binary it starts is not installed
// here, so a copy points ExecStart at an executable that exists; every other
// line is verified as shipped.
import { expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..');

test('contrib/easel.service verifies cleanly and has what a server install needs', async () => {
  const unit = readFileSync(join(ROOT, 'contrib/easel.service'), 'utf8');
  for (const line of [
    'ExecStart=/usr/local/bin/easel serve',
    'DynamicUser=yes',
    'StateDirectory=easel',
    'EnvironmentFile=/etc/easel/easel.env',
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
    'CapabilityBoundingSet=',
    'LimitNOFILE=65536',
    'RestartPreventExitStatus=2',
    // A start refused because a dependency does not answer yet (exit 1) is retried for as long as it takes.
    'RestartSec=5',
    'StartLimitIntervalSec=0',
  ]) {
    expect(unit.split('\n')).toContain(line);
  }
  const dir = mkdtempSync(join(tmpdir(), 'easel-unit-'));
  try {
    const copy = join(dir, 'easel.service');
    writeFileSync(copy, unit.replace('ExecStart=/usr/local/bin/easel serve', `ExecStart=${process.execPath} --version`));
    const run = Bun.spawnSync(['systemd-analyze', 'verify', '--man=no', copy], { stderr: 'pipe', stdout: 'pipe' });
    expect({ code: run.exitCode, stderr: run.stderr.toString() }).toEqual({ code: 0, stderr: '' });
    // The check can fail: a misspelled key is reported.
    writeFileSync(
      copy,
      `${unit}\n[Service]\nProtectSytem=strict\n`.replace(
        'ExecStart=/usr/local/bin/easel serve',
        `ExecStart=${process.execPath} --version`,
      ),
    );
    const bad = Bun.spawnSync(['systemd-analyze', 'verify', '--man=no', copy], { stderr: 'pipe', stdout: 'pipe' });
    expect(bad.stderr.toString()).toContain("Unknown key 'ProtectSytem'");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('contrib/easel-backup.service and its timer verify cleanly and run as the service user', () => {
  const service = readFileSync(join(ROOT, 'contrib/easel-backup.service'), 'utf8');
  const timer = readFileSync(join(ROOT, 'contrib/easel-backup.timer'), 'utf8');
  const main = readFileSync(join(ROOT, 'contrib/easel.service'), 'utf8');
  // DynamicUser units share a user by name: both must say the same one.
  for (const unit of [service, main]) expect(unit.split('\n')).toContain('User=easel');
  expect(service).toContain('/usr/local/bin/easel backup "/var/lib/easel-backups/easel-');
  expect(service).toContain('Environment=EASEL_DATA_DIR=/var/lib/easel');
  // The server's own settings, and a network: an instance whose blobs are in a bucket is backed up from it.
  expect(service.split('\n')).toContain('EnvironmentFile=/etc/easel/easel.env');
  expect(service).not.toContain('PrivateNetwork=yes');
  expect(timer).toContain('Persistent=true');
  const dir = mkdtempSync(join(tmpdir(), 'easel-unit-'));
  try {
    writeFileSync(join(dir, 'easel-backup.service'), service);
    writeFileSync(join(dir, 'easel-backup.timer'), timer);
    const run = Bun.spawnSync(
      ['systemd-analyze', 'verify', '--man=no', join(dir, 'easel-backup.service'), join(dir, 'easel-backup.timer')],
      {
        stderr: 'pipe',
        stdout: 'pipe',
      },
    );
    expect({ code: run.exitCode, stderr: run.stderr.toString() }).toEqual({ code: 0, stderr: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the example environment file sets only settings Easel knows', async () => {
  const { loadConfig, unknownVariables } = await import('../src/config.ts');
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(ROOT, 'contrib/easel.env'), 'utf8').split('\n')) {
    const m = /^(EASEL_[A-Z_]+)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!;
  }
  expect(Object.keys(env).length).toBeGreaterThan(5);
  expect(loadConfig({ ...env, EASEL_DATA_DIR: '/var/lib/easel' })).toMatchObject({ authMode: 'oidc', urlMode: 'subdomain' });
  expect(unknownVariables(env)).toEqual([]);
});
