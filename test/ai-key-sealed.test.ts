// passes: embedded, cluster
// Issue 23 item 14: the AI provider key an admin sets is stored sealed under
// EASEL_SECRET_KEY like Connection protected headers: never in plaintext in
// the database, refused without the key, and a plaintext key an older
// release stored is sealed at the next start.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRET_KEY_HEX } from './connections-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, World } from './world.ts';

const KEY = 'sk-ant-admin-secret-0123456789';
const OTHER_SECRET = 'b2'.repeat(32);
const rawRow = async (w: { app: TestApp }) =>
  (await w.app.ctx.sql.get<{ value: string }>("SELECT value FROM settings WHERE key = 'aiApiKey'")) ?? null;

describe('an admin-set provider key', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'easel-aikey-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('is stored sealed: the database never holds it, the settings read it, admins see only that it is set', async () => {
    const w = await new World({ env: { EASEL_SECRET_KEY: SECRET_KEY_HEX } }).start();
    try {
      const view = await w.adminSettings({ aiApiKey: KEY });
      expect(view.aiApiKeySet).toBe(true);
      expect(JSON.stringify(view)).not.toContain(KEY);
      const row = (await rawRow(w))!;
      expect(row.value).not.toContain(KEY);
      expect(JSON.parse(row.value)).toEqual({
        sealed: { keyId: expect.any(String), nonce: expect.any(String), ciphertext: expect.any(String) },
      });
      // On a cluster the change may have gone to the other node: this node reads it once it has heard of it.
      await w.app.caughtUp();
      expect(w.app.ctx.settings.get().aiApiKey).toBe(KEY);
    } finally {
      await w.close();
    }
  });

  test('without EASEL_SECRET_KEY: 409 SECRET_KEY_MISSING, nothing stored', async () => {
    const w = await new World().start();
    try {
      const res = await w.request('admin', '/api/admin/settings', { method: 'PATCH', json: { aiApiKey: KEY } });
      await expectCode(res, 409, 'SECRET_KEY_MISSING');
      expect(await rawRow(w)).toBeNull();
    } finally {
      await w.close();
    }
  });

  test('a plaintext key left by an older release is sealed at the next start with the key, and reported until then', async () => {
    const dataDir = dir();
    const env = { EASEL_ADMIN_EMAILS: ADMIN_EMAIL };
    const old = await startTestApp({ dataDir, env });
    // What an older release wrote: the key as a JSON string.
    await old.ctx.sql.run("INSERT INTO settings (key, value, updated_at) VALUES ('aiApiKey', ?1, 0)", JSON.stringify(KEY));
    await old.close();

    const unkeyed = await startTestApp({ dataDir, env });
    expect(unkeyed.logs.some((l) => l.level === 'warn' && String(l.msg).includes('stored unencrypted'))).toBe(true);
    expect(unkeyed.ctx.settings.get().aiApiKey).toBe(KEY);
    await unkeyed.close();

    const keyed = await startTestApp({ dataDir, env: { ...env, EASEL_SECRET_KEY: SECRET_KEY_HEX } });
    try {
      expect(keyed.logs.some((l) => String(l.msg).includes('now encrypted'))).toBe(true);
      const row = (await rawRow({ app: keyed }))!;
      expect(row.value).not.toContain(KEY);
      expect(keyed.ctx.settings.get().aiApiKey).toBe(KEY);
      expect(keyed.logs.some((l) => JSON.stringify(l).includes(KEY))).toBe(false);
    } finally {
      await keyed.close();
    }
  });

  test('sealed under another EASEL_SECRET_KEY: not usable (the ai capability is off) until an admin enters it again', async () => {
    const dataDir = dir();
    const env = { EASEL_ADMIN_EMAILS: ADMIN_EMAIL };
    const first = await new World({ dataDir, env: { ...env, EASEL_SECRET_KEY: SECRET_KEY_HEX } }).start();
    await first.adminSettings({ aiApiKey: KEY });
    await first.close();

    const w = await new World({ dataDir, env: { ...env, EASEL_SECRET_KEY: OTHER_SECRET } }).start();
    try {
      expect(w.app.ctx.settings.get().aiApiKey).toBeNull();
      expect(w.app.ctx.settings.publicView().aiApiKeySet).toBe(false);
      expect((await w.adminSettings({ aiApiKey: KEY })).aiApiKeySet).toBe(true);
      // On a cluster the change may have gone to the other node: this node reads it once it has heard of it.
      await w.app.caughtUp();
      expect(w.app.ctx.settings.get().aiApiKey).toBe(KEY);
    } finally {
      await w.close();
    }
  });
});
