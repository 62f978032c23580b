// passes: embedded, cluster
// The email outbox against a real SMTP relay on loopback: a recorded message
// is sent once, with STARTTLS and the URL's credentials; a relay that refuses
// is tried again with backoff for 24 h, then the message is marked failed;
// rows survive a restart; admins (only) see deliveries and failures.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { loadConfig, ConfigError } from '../src/config.ts';
import { ON_CLUSTER, startTestApp, body, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { RELAY_PASSWORD, startRelay, type Relay } from './smtp-fixture.ts';
import { ADMIN_EMAIL } from './world.ts';

const mail = (n: number) => ({
  kind: 'test',
  recipient: `person${n}@example.com`,
  subject: `Hello ${n}`,
  text: `plain ${n}`,
  html: `<p>html ${n}</p>`,
});

let relay: Relay;
beforeAll(async () => {
  relay = await startRelay();
});
afterAll(() => relay.stop());

function appWith(extra: { dataDir?: string; clock?: ManualClock } = {}): Promise<TestApp> {
  return startTestApp({
    env: { EASEL_SMTP_URL: relay.url, EASEL_SMTP_FROM: 'Easel <easel@example.com>', EASEL_ADMIN_EMAILS: ADMIN_EMAIL },
    app: { notifications: { ca: relay.ca } },
    dataDir: extra.dataDir,
    now: extra.clock?.now,
    scheduler: extra.clock?.scheduler,
  });
}

type Attempt = { id: string; kind: string; outcome: 'sent' | 'retrying' | 'failed' };
/** The next send attempt on any node (on the cluster either may claim a message). */
function nextAttempt(app: TestApp, pred: (e: Attempt) => boolean = () => true): Promise<Attempt> {
  return new Promise((resolve) => {
    const off = app.onEvent('notifications.attempted', (e) => {
      if (!pred(e)) return;
      off();
      resolve(e);
    });
  });
}

async function deliveries(app: TestApp, cookie: string) {
  const res = await app.request('/api/admin/notifications', { cookie });
  expect(res.status).toBe(200);
  return (await body(res)).deliveries as Array<{
    id: string;
    state: string;
    attempts: number;
    lastError: string | null;
    nextAttemptAt: string | null;
  }>;
}

describe('the email outbox', () => {
  test('a recorded message reaches the relay over STARTTLS with the credentials, once, and admins see it sent', async () => {
    const app = await appWith();
    try {
      const arrived = relay.next();
      const attempted = nextAttempt(app);
      await app.features.notifications.send(mail(1));
      const got = await arrived;
      expect((await attempted).outcome).toBe('sent');
      expect(got.subject).toBe('Hello 1');
      expect(got.text?.trim()).toBe('plain 1');
      expect(got.html).toContain('<p>html 1</p>');
      expect(got.from?.value).toEqual([{ name: 'Easel', address: 'easel@example.com' }]);
      expect(got.to && !Array.isArray(got.to) ? got.to.text : '').toBe('person1@example.com');
      expect(got.headers.get('auto-submitted')).toBe('auto-generated');
      expect(relay.badLogins).toBe(0);
      expect(relay.messages.filter((m) => m.subject === 'Hello 1')).toHaveLength(1);

      const admin = await app.signIn(ADMIN_EMAIL);
      const [row] = await deliveries(app, admin);
      expect(row).toMatchObject({ state: 'sent', attempts: 1, lastError: null });
      // The outbox id is the Message-ID: a resend after a crash is recognisably the same message.
      expect(got.messageId).toContain(row!.id);
      // Not an admin: as if the route did not exist.
      const someone = await app.signIn('someone@example.com');
      expect((await app.request('/api/admin/notifications', { cookie: someone })).status).toBe(404);
      expect(JSON.stringify(app.logs)).not.toContain(RELAY_PASSWORD);
    } finally {
      await app.close();
    }
  });

  test('a refusing relay is tried again with backoff, and a message is marked failed after 24 h', async () => {
    const clock = new ManualClock();
    const app = await appWith({ clock });
    try {
      const admin = await app.signIn(ADMIN_EMAIL);
      relay.refuse(1);
      let attempted = nextAttempt(app);
      await app.features.notifications.send(mail(2));
      expect((await attempted).outcome).toBe('retrying');
      expect((await deliveries(app, admin))[0]).toMatchObject({ state: 'pending', attempts: 1 });
      expect((await deliveries(app, admin))[0]!.lastError).toContain('451');

      // A minute later it goes.
      const arrived = relay.next();
      attempted = nextAttempt(app);
      clock.advance(60_000);
      expect((await attempted).outcome).toBe('sent');
      expect((await arrived).subject).toBe('Hello 2');

      relay.refuse(10_000);
      attempted = nextAttempt(app);
      await app.features.notifications.send(mail(3));
      expect((await attempted).outcome).toBe('retrying');
      // Each retry when it falls due (a tick comes within 15 s of it), until the outbox gives up.
      for (let outcome = 'retrying'; outcome === 'retrying';) {
        const due = Date.parse((await deliveries(app, admin))[0]!.nextAttemptAt!);
        attempted = nextAttempt(app);
        clock.advance(due - clock.now() + 15_000);
        outcome = (await attempted).outcome;
      }
      const rows = await deliveries(app, admin);
      const gaveUp = rows.find((r) => r.state === 'failed')!;
      // 1, 2, 4 … 32 minutes, then hourly until the day is up: about 30 attempts, not one a tick.
      expect(gaveUp.attempts).toBeGreaterThan(20);
      expect(gaveUp.attempts).toBeLessThan(35);
      const res = await app.request('/api/admin/notifications?state=failed', { cookie: admin });
      expect((await body(res)).deliveries).toHaveLength(1);
    } finally {
      relay.refuse(0);
      await app.close();
    }
  });

  // The cluster pass's nodes keep their database between each other, not across a test's restart of one data directory.
  test.skipIf(ON_CLUSTER)('a message recorded but not yet sent survives a restart', async () => {
    const clock = new ManualClock();
    const first = await appWith({ clock });
    const dataDir = first.dataDir;
    relay.refuse(1);
    const attempted = nextAttempt(first);
    await first.features.notifications.send(mail(4));
    expect((await attempted).outcome).toBe('retrying');
    await first.easel.stop();
    const second = await appWith({ dataDir, clock });
    try {
      const arrived = relay.next();
      clock.advance(60_000);
      expect((await arrived).subject).toBe('Hello 4');
    } finally {
      await second.close();
      await first.close();
    }
  });

  test('without EASEL_SMTP_URL nothing is recorded, and admins are told email is off', async () => {
    const app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL } });
    try {
      await app.features.notifications.send(mail(5));
      const res = await app.request('/api/admin/notifications', { cookie: await app.signIn(ADMIN_EMAIL) });
      expect(await body(res)).toEqual({ emailEnabled: false, deliveries: [] });
    } finally {
      await app.close();
    }
  });

  test('EASEL_SMTP_URL: smtp:// or smtps:// only, never echoed when refused; shown without credentials', () => {
    const base = { EASEL_DATA_DIR: '/tmp' };
    expect(() => loadConfig({ ...base, EASEL_SMTP_URL: 'http://u:hunter2@relay' })).toThrow(ConfigError);
    try {
      loadConfig({ ...base, EASEL_SMTP_URL: 'smtp://u:hunter2@relay/x?y' });
    } catch (err) {
      expect(String(err)).not.toContain('hunter2');
    }
    expect(loadConfig({ ...base, EASEL_SMTP_URL: 'smtps://u:hunter2@relay.example:465' }).smtp?.display).toBe('smtps://relay.example:465');
    expect(() => loadConfig({ ...base, EASEL_SMTP_FROM: 'not an address' })).toThrow(ConfigError);
  });
});
