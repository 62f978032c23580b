// passes: embedded, cluster
// "A share you own expires in three days": the hourly scan (driven by a
// manual clock) mails the owner once per canvas and expiry, not before the
// three days, and not at all when they turned share_expiring off.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { startRelay, type Relay } from './smtp-fixture.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
let relay: Relay;
let app: TestApp;
const clock = new ManualClock(Date.UTC(2026, 0, 5, 9, 30, 0));
beforeAll(async () => {
  relay = await startRelay({ plain: true });
  app = await startTestApp({ env: { EASEL_SMTP_URL: relay.url }, now: clock.now, scheduler: clock.scheduler });
});
afterAll(async () => {
  await app.close();
  await relay.stop();
});

/** Runs the next hourly scan on every node (each scans; one records a notice) and resolves with how many they recorded. */
async function nextScan(): Promise<number> {
  const done = new Promise<number>((resolve) => {
    let scans = 0;
    let recorded = 0;
    const off = app.onEvent('notifications.share-scan', (e) => {
      recorded += e.recorded;
      if (++scans < app.nodes.length) return;
      off();
      resolve(recorded);
    });
  });
  clock.advance(HOUR);
  return done;
}

async function expiringCanvas(cookie: string, title: string, inMs: number): Promise<{ id: string }> {
  const canvas = await body(await app.request('/api/canvases', { method: 'POST', cookie, json: { title } }));
  const res = await app.request(`/api/canvases/${canvas.id}`, { method: 'PATCH', cookie, json: { expiresAt: clock.now() + inMs } });
  expect(res.status).toBe(200);
  return canvas;
}

test('the owner is mailed once when the expiry comes within three days', async () => {
  const owner = await app.signIn('sharer@example.com');
  await expiringCanvas(owner, 'Offsite plan', 3 * DAY + 90 * 60_000);
  // Three days and a half hour ahead: not yet.
  expect(await nextScan()).toBe(0);
  const arrived = relay.next();
  expect(await nextScan()).toBe(1);
  const mail = await arrived;
  expect(mail.subject).toStartWith('"Offsite plan" stops being shared on ');
  expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe('sharer@example.com');
  // Once per share: later scans find it again and record nothing.
  expect(await nextScan()).toBe(0);
  expect(await nextScan()).toBe(0);
});

test('an owner who turned share_expiring off is not mailed', async () => {
  const owner = await app.signIn('quiet-sharer@example.com');
  await app.request('/api/me/notifications', { method: 'PUT', cookie: owner, json: { share_expiring: false } });
  await expiringCanvas(owner, 'Quiet', DAY);
  expect(await nextScan()).toBe(0);
});
