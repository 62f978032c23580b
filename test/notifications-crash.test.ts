// passes: embedded — a real server process killed mid-send, on its own data directory
// kill -9 while the outbox is sending, on a real server process: every
// recorded message is still delivered after the restart, and the one that
// was in flight goes again with the same Message-ID (at least once, never
// a new message), the others exactly once.
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEasel, stopEasel, type Easel } from './spawn.ts';
import { callAt } from './stress/crash-workload.ts';
import { RELAY_PASSWORD, startRelay } from './smtp-fixture.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'easel-notify-crash-'));
const relay = await startRelay({ plain: true });
const env = { EASEL_DATA_DIR: dataDir, EASEL_RATELIMIT_ENABLED: 'false', EASEL_SMTP_URL: relay.url, EASEL_SMTP_FROM: 'easel@example.com' };
let easel: Easel | null = null;
afterAll(async () => {
  if (easel) await stopEasel(easel);
  await relay.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const PEOPLE = ['p1', 'p2', 'p3', 'p4', 'p5'].map((p) => `${p}@example.com`);
const recipient = (m: (typeof relay.messages)[number]) => (m.to && !Array.isArray(m.to) ? m.to.text : '');

test('a kill -9 mid-send loses nothing and sends nothing twice but the message in flight, under the same id', async () => {
  easel = await startEasel({ env });
  // The start line names the relay, never its credentials.
  expect(easel.startLine).toContain(`email: ${relay.url.replace(/\/\/[^@]*@/, '//')}`);
  expect(easel.startLine).not.toContain(RELAY_PASSWORD);
  const base = easel.url;
  const login = await callAt(base, '', '/auth/dev/login', { method: 'POST', json: { email: 'owner@example.com' } });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const canvas = (await (await callAt(base, cookie, '/api/canvases', { method: 'POST', json: { title: 'Crash' } })).json()) as {
    id: string;
  };

  // The relay takes the first message's data and does not answer: the server is mid-send.
  const held = relay.hold();
  for (const email of PEOPLE) {
    const res = await callAt(base, cookie, `/api/canvases/${canvas.id}/members`, { method: 'PUT', json: { email, role: 'viewer' } });
    expect(res.status).toBe(200);
  }
  await held.arrived(1);
  easel.proc.kill('SIGKILL');
  await easel.exited;
  easel = null;
  held.release();

  const all = new Set(PEOPLE);
  const arrived = new Promise<void>((resolve) => {
    const check = () => {
      if ([...all].every((p) => relay.messages.some((m) => recipient(m) === p))) return resolve();
      void relay.next().then(check);
    };
    check();
  });
  easel = await startEasel({ env });
  await arrived;

  const byRecipient = PEOPLE.map((p) => relay.messages.filter((m) => recipient(m) === p));
  const twice = byRecipient.filter((ms) => ms.length > 1);
  // The message in flight at the kill: received by the relay, not acknowledged, sent again after the restart.
  expect(twice).toHaveLength(1);
  expect(twice[0]).toHaveLength(2);
  expect(twice[0]![0]!.messageId).toBe(twice[0]![1]!.messageId);
  expect(byRecipient.filter((ms) => ms.length === 1)).toHaveLength(PEOPLE.length - 1);
  expect(easel.stdout() + easel.stderr()).not.toContain(RELAY_PASSWORD);
});
