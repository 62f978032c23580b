// passes: embedded — restarts the app on its own data directory
// The hourly digest survives restarts: submissions counted before a restart
// are in the digest after it (nothing lost), and a digest recorded before a
// restart is not recorded again after it (nothing repeated).
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { startRelay } from './smtp-fixture.ts';
import { ADMIN_EMAIL, World } from './world.ts';

const HOUR = 3600_000;
const dataDir = mkdtempSync(join(tmpdir(), 'easel-digest-restart-'));
const relay = await startRelay({ plain: true });
const clock = new ManualClock(Date.UTC(2026, 0, 5, 9, 30, 0));
let app: TestApp | null = null;
afterAll(async () => {
  await app?.close();
  await relay.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = () =>
  startTestApp({
    dataDir,
    now: clock.now,
    scheduler: clock.scheduler,
    env: { EASEL_SMTP_URL: relay.url, EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_RATELIMIT_ENABLED: 'false' },
  });

async function restart(w: World): Promise<void> {
  await app!.close();
  app = await start();
  w.app = app;
}

/** The next hour's scan on the one node: how many digests it recorded. */
async function nextScan(): Promise<number> {
  const done = new Promise<number>((resolve) => {
    const off = app!.onEvent('notifications.digest-scan', (e) => {
      off();
      resolve(e.recorded);
    });
  });
  clock.advance(HOUR);
  return done;
}

test('counts kept across a restart are digested once, and never again after another restart', async () => {
  app = await start();
  const w = await new World({ canvas: { capabilities: { backend: true, kv: true }, guest: false } }).attach(app);
  const mine = (collection: string) => `/v1/c/${w.canvas.slug}/submissions/${collection}/mine`;
  await w.expectOk('PUT', '/api/me/notifications', 'owner', { submissions: { [w.canvas.id]: 'hourly' } });
  await w.expectOk('PUT', mine('signups'), 'viewer', { a: 1 });
  await w.expectOk('PUT', mine('signups'), 'viewer2', { a: 2 });

  await restart(w);
  const arrived = relay.find((m) => m.subject === `2 new submissions on "${w.canvas.view.title}"`);
  expect(await nextScan()).toBe(1);
  expect((await arrived).text).toContain('"signups": 2');

  await restart(w);
  expect(await nextScan()).toBe(0);
  // One message, delivered once.
  expect(relay.messages.filter((m) => m.subject?.includes('new submission'))).toHaveLength(1);
  const sent = await app.features.notifications.outbox.recent(100, null);
  expect(sent.filter((d) => d.subject.includes('new submission')).map((d) => d.state)).toEqual(['sent']);
});
