// passes: embedded, cluster
// A guest link emailed to the address its creator gave: the message carries
// the link, who invited and which canvas, with every value escaped in the
// HTML; the link is never in a log line. A bad address is refused before
// anything is made; without an address (or without email) nothing is sent.
import { afterAll, describe, expect, test } from 'bun:test';
import { body, startTestApp } from './harness.ts';
import { expectCode } from './expect-code.ts';
import { startRelay } from './smtp-fixture.ts';
import { useWorld } from './world.ts';

const relay = await startRelay({ plain: true });
afterAll(() => relay.stop());
const TITLE = '<b>Tom & "Jerry"</b>';

describe('guest invite email', () => {
  const w = useWorld({ env: { EASEL_SMTP_URL: relay.url }, canvas: { guest: false, title: TITLE } });
  const invites = () => `/api/canvases/${w.canvas.id}/guest-invites`;

  test('the invited address receives the link, who invited and the canvas, escaped', async () => {
    const sent = new Promise<void>((resolve) => {
      const off = w.app.onEvent('notifications.attempted', (e) => {
        if (e.kind !== 'guest_invite' || e.outcome !== 'sent') return;
        off();
        resolve();
      });
    });
    const made = await w.expectOk('POST', invites(), 'editor', { name: 'Visitor', email: ' guest-1@example.com ' }, 201);
    expect(made.emailed).toBe(true);
    const mail = await relay.find((m) => (m.to && !Array.isArray(m.to) ? m.to.text : '') === 'guest-1@example.com');
    expect(mail.subject).toBe(`${w.names.editor} (${w.emails.editor}) invited you to "${TITLE}"`);
    expect(mail.text).toContain(made.url);
    expect(mail.text).toContain(TITLE);
    expect(mail.html).toContain(`href="${made.url}"`);
    expect(mail.html).toContain('&#60;b&#62;Tom &#38; &#34;Jerry&#34;&#60;/b&#62;');
    expect(mail.html).not.toContain('<b>Tom');
    // The link works for whoever opens it.
    const u = new URL(made.url);
    expect((await w.app.request(u.pathname + u.search)).status).toBe(303);
    // The secret is in the message only: no log line of any node has it.
    const token = u.searchParams.get('token')!;
    for (const node of w.app.nodes) expect(JSON.stringify(node.logs)).not.toContain(token);
    // Once sent, the outbox row (kept 30 days for the admin view) no longer holds the link.
    await sent;
    const rows = await w.app.ctx.sql.all<{ text_body: string; html_body: string; state: string }>(
      "SELECT text_body, html_body, state FROM notification_outbox WHERE kind = 'guest_invite'",
    );
    expect(rows).toEqual([{ text_body: '', html_body: '', state: 'sent' }]);
  });

  test('a bad or overlong address is refused and makes no invite; no address sends nothing (and the answer is as before)', async () => {
    for (const email of ['not-an-address', 'a b@example.com', `${'x'.repeat(320)}@example.com`, ''])
      await expectCode(await w.request('owner', invites(), { method: 'POST', json: { email } }), 400, 'INVALID_BODY');
    expect((await w.expectOk('GET', invites(), 'owner')).invites).toEqual([]);
    const guestMails = async () =>
      (await w.app.features.notifications.outbox.recent(100, null)).filter((d) => d.kind === 'guest_invite').length;
    const before = await guestMails();
    const made = await w.expectOk('POST', invites(), 'owner', { name: 'No mail' }, 201);
    expect(made).not.toHaveProperty('emailed');
    expect(await guestMails()).toBe(before);
  });

  test('who may not manage the canvas learns nothing, whatever the body', async () => {
    await expectCode(await w.request('viewer', invites(), { method: 'POST', json: { email: 'x@example.com' } }), 404, 'NOT_FOUND');
    await expectCode(await w.request('stranger', invites(), { method: 'POST', json: { email: 'bad' } }), 404, 'NOT_FOUND');
  });
});

test('without EASEL_SMTP_URL the invite is made and says it was not emailed', async () => {
  const app = await startTestApp();
  try {
    const cookie = await app.signIn('no-mail@example.com');
    const canvas = await body(await app.request('/api/canvases', { method: 'POST', cookie, json: { title: 'Quiet' } }));
    const res = await app.request(`/api/canvases/${canvas.id}/guest-invites`, { method: 'POST', cookie, json: { email: 'g@example.com' } });
    expect(res.status).toBe(201);
    expect((await body(res)).emailed).toBe(false);
  } finally {
    await app.close();
  }
});
