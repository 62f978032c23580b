// passes: embedded, cluster
// "Your canvas used up its AI budget": when a call is refused for the
// canvas's monthly cap, its owner is mailed, once per canvas and month; an
// owner who turned ai_cap off gets nothing.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { adminSettings } from './admin-actions.ts';
import { ask, expectError, makeAiWorld, recordSpend, type AiWorld } from './ai-fixtures.ts';
import { startRelay, type Relay } from './smtp-fixture.ts';

let relay: Relay;
let w: AiWorld;
beforeAll(async () => {
  relay = await startRelay({ plain: true });
  w = await makeAiWorld({ start: Date.parse('2025-01-20T12:00:00.000Z'), env: { EASEL_SMTP_URL: relay.url } });
});
afterAll(async () => {
  await w.close();
  await relay.stop();
});

const considered = () =>
  new Promise<{ kind: string; outcome: string }>((resolve) => {
    const off = w.app.onEvent('notifications.considered', (e) => {
      if (e.kind !== 'ai_cap' && e.kind !== 'ai.canvas-cap-reached') return;
      off();
      resolve(e);
    });
  });

test('the first refusal for the canvas cap mails the owner; the next ones in the month do not', async () => {
  await adminSettings(w.app, w.cookie.admin, { aiCanvasMonthlyUsd: 1 });
  await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.viewer, usd: 1, at: w.clock.now });
  let seen = considered();
  expect((await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED')).scope).toBe('canvas_monthly');
  expect(await seen).toEqual({ kind: 'ai_cap', outcome: 'recorded' });
  const mail = await relay.find((m) => m.subject?.includes('AI budget') === true);
  expect(mail.subject).toBe(`"${w.canvas.title}" used up its AI budget for 2025-01`);
  expect(mail.text).toContain('monthly budget of 1 USD');

  seen = considered();
  await expectError(await w.chat(ask(), 'editor'), 429, 'QUOTA_EXCEEDED');
  expect(await seen).toEqual({ kind: 'ai_cap', outcome: 'skipped' });
});

test('an owner who turned ai_cap off is not mailed', async () => {
  const off = await w.app.request('/api/me/notifications', { method: 'PUT', cookie: w.cookie.owner, json: { ai_cap: false } });
  expect(off.status).toBe(200);
  // A new month: the cap is reached afresh.
  w.clock.now = Date.parse('2025-02-01T12:00:00.000Z');
  await recordSpend(w.app, { canvasId: w.canvas.id, actorId: w.ids.viewer, usd: 1, at: w.clock.now });
  const seen = considered();
  await expectError(await w.chat(ask(), 'viewer'), 429, 'QUOTA_EXCEEDED');
  expect(await seen).toEqual({ kind: 'ai.canvas-cap-reached', outcome: 'skipped' });
});
