// passes: embedded, cluster
// New-submission email (per canvas, `immediate`): the owner is mailed on a
// person's first submission, without its value; a replacement is not new;
// with the canvas set to off nothing is recorded.
import { afterAll, describe, expect, test } from 'bun:test';
import { startRelay } from './smtp-fixture.ts';
import { useWorld } from './world.ts';

const relay = await startRelay();
afterAll(() => relay.stop());

describe('new-submission email', () => {
  const w = useWorld({
    canvas: { capabilities: { backend: true, kv: true } },
    env: { EASEL_SMTP_URL: relay.url },
    app: { notifications: { ca: relay.ca } },
  });
  const mine = (collection: string) => `/v1/c/${w.canvas.slug}/submissions/${collection}/mine`;
  const setMode = (mode: string) => w.expectOk('PUT', '/api/me/notifications', 'owner', { submissions: { [w.canvas.id]: mode } });
  const considered = () =>
    new Promise<{ kind: string; outcome: string }>((resolve) => {
      const off = w.app.onEvent('notifications.considered', (e) => {
        off();
        resolve(e);
      });
    });

  test('immediate: the owner gets one email per first submission, never the value', async () => {
    await setMode('immediate');
    await w.expectOk('PUT', mine('signups'), 'viewer', { secret: 'value-xyz' });
    // (The canvas's members were mailed as the world was set up: those go by.)
    const mail = await relay.find((m) => m.subject?.startsWith('New submission') === true);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe(w.emails.owner);
    expect(mail.subject).toStartWith(`New submission on "`);
    expect(mail.text).toContain(w.canvas.id);
    expect(mail.text).toContain('"signups"');
    expect(`${mail.text}${mail.html}`).not.toContain('value-xyz');

    // A replacement of one's own submission is not new.
    const created: unknown[] = [];
    const off = w.app.onEvent('submission.created', (e) => void created.push(e));
    await w.expectOk('PUT', mine('signups'), 'viewer', { secret: 'changed' });
    off();
    expect(created).toEqual([]);
  });

  test('off (the default): a new submission records nothing', async () => {
    await setMode('off');
    const seen = considered();
    await w.expectOk('PUT', mine('signups'), 'viewer2', { x: 1 });
    expect(await seen).toEqual({ kind: 'submission.created', outcome: 'skipped' });
  });
});
