// passes: embedded, cluster
// The hourly digest of new submissions (`hourly` per canvas): several
// submissions in an hour make one message a minute past the next hour, with
// the count per collection and a link to the canvas's Data section; nothing
// is mailed one by one, and an hour without submissions mails nothing. The
// scans run on every node; one records the digest.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { ManualClock } from './manual-clock.ts';
import { startRelay } from './smtp-fixture.ts';
import { World } from './world.ts';

const HOUR = 3600_000;
const relay = await startRelay({ plain: true });
const clock = new ManualClock(Date.UTC(2026, 0, 5, 9, 30, 0));
const w = new World({
  now: clock.now,
  scheduler: clock.scheduler,
  env: { EASEL_SMTP_URL: relay.url },
  canvas: { capabilities: { backend: true, kv: true }, guest: false },
});
beforeAll(() => w.start());
afterAll(async () => {
  await w.close();
  await relay.stop();
});

/** Runs the next scans (one per node, a minute past the hour) and resolves with how many digests they recorded. */
async function nextScan(): Promise<number> {
  const done = new Promise<number>((resolve) => {
    let scans = 0;
    let recorded = 0;
    const off = w.app.onEvent('notifications.digest-scan', (e) => {
      recorded += e.recorded;
      if (++scans < w.app.nodes.length) return;
      off();
      resolve(recorded);
    });
  });
  clock.advance(HOUR);
  return done;
}

const mine = (collection: string) => `/v1/c/${w.canvas.slug}/submissions/${collection}/mine`;
const digests = () => relay.messages.filter((m) => / new submissions? on "/.test(m.subject ?? ''));

test('several submissions in an hour: one message after it, counted per collection, with a link to the Data section', async () => {
  await w.expectOk('PUT', '/api/me/notifications', 'owner', { submissions: { [w.canvas.id]: 'hourly' } });
  await w.expectOk('PUT', mine('signups'), 'viewer', { a: 1 });
  await w.expectOk('PUT', mine('signups'), 'viewer2', { a: 2 });
  await w.expectOk('PUT', mine('signups'), 'editor', { a: 3 });
  await w.expectOk('PUT', mine('feedback'), 'viewer', { text: 'value-not-mailed' });
  // A replacement is not new: still three in signups.
  await w.expectOk('PUT', mine('signups'), 'viewer', { a: 4 });

  expect(await nextScan()).toBe(1);
  const mail = await relay.find((m) => m.subject === `4 new submissions on "${w.canvas.view.title}"`);
  expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe(w.emails.owner);
  expect(mail.text).toContain('"feedback": 1');
  expect(mail.text).toContain('"signups": 3');
  expect(mail.text).toContain(`/#/canvas/${w.canvas.id}/data`);
  expect(`${mail.text}${mail.html}`).not.toContain('value-not-mailed');
  // Hourly means no message per submission.
  expect(relay.messages.filter((m) => m.subject?.startsWith('New submission'))).toEqual([]);
  expect(digests()).toHaveLength(1);

  // An hour without submissions: no digest.
  expect(await nextScan()).toBe(0);
  expect(digests()).toHaveLength(1);
});

test('one submission in the next hour is its own digest; a canvas turned off meanwhile gets none', async () => {
  await w.fresh();
  await w.expectOk('PUT', '/api/me/notifications', 'owner', { submissions: { [w.canvas.id]: 'hourly' } });
  await w.expectOk('PUT', mine('signups'), 'viewer', { a: 1 });
  expect(await nextScan()).toBe(1);
  await relay.find((m) => m.subject === `1 new submission on "${w.canvas.view.title}"`);

  await w.expectOk('PUT', mine('signups'), 'viewer2', { a: 1 });
  await w.expectOk('PUT', '/api/me/notifications', 'owner', { submissions: { [w.canvas.id]: 'off' } });
  expect(await nextScan()).toBe(0);
  // Its counts went with the digest that was not sent: turning hourly on again starts from nothing.
  await w.expectOk('PUT', '/api/me/notifications', 'owner', { submissions: { [w.canvas.id]: 'hourly' } });
  expect(await nextScan()).toBe(0);
});
