// passes: embedded, cluster
// One-click unsubscribe (RFC 8058): every email to a person carries a
// List-Unsubscribe link (and says it in its footer) that stops that kind of
// email, or one canvas's submission emails. Opening the link asks and
// changes nothing (link scanners open every link); its button, or a mail
// program's POST of "List-Unsubscribe=One-Click" with no cookie and no
// Origin, turns that one choice off. A link this server did not sign opens
// nothing; a guest's invite, which is no subscription, carries none.
import { afterAll, describe, expect, test } from 'bun:test';
import type { ParsedMail } from 'mailparser';
import { body } from './harness.ts';
import { startRelay } from './smtp-fixture.ts';
import { useWorld } from './world.ts';

const relay = await startRelay();
afterAll(() => relay.stop());

/** The link of a message's List-Unsubscribe header, with the header's one-click companion. */
function unsubscribeOf(mail: ParsedMail): { url: string; post: string | undefined } {
  const raw = mail.headerLines.find((h) => h.key === 'list-unsubscribe')?.line ?? '';
  const url = /<([^>]+)>/.exec(raw)?.[1];
  expect(url).toBeDefined();
  return { url: url!, post: mail.headerLines.find((h) => h.key === 'list-unsubscribe-post')?.line };
}

describe('one-click unsubscribe', () => {
  const w = useWorld({
    canvas: { capabilities: { backend: true, kv: true } },
    env: { EASEL_SMTP_URL: relay.url, EASEL_RATELIMIT_ENABLED: 'false' },
    app: { notifications: { ca: relay.ca } },
  });
  const codeOf = (page: string) => /<meta name="easel-code" content="([^"]+)">/.exec(page)?.[1];
  const prefs = async (who: 'owner' | 'editor' | 'viewer') => w.expectOk('GET', '/api/me/notifications', who);
  /** The link's path and query on this app (the mail names the configured base URL). */
  const local = (url: string) => url.slice(url.indexOf('/notifications/unsubscribe'));
  const oneClick = (url: string) =>
    w.app.request(local(url), {
      method: 'POST',
      origin: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });

  test('"added to a canvas": the link asks on GET and changes nothing; a mail program\'s one-click POST stops that kind only', async () => {
    const made = await w.expectOk('POST', '/api/canvases', 'owner', { title: 'Plans <b>' }, 201);
    const arrived = relay.find((m) => m.subject?.includes('Plans <b>') === true);
    await w.expectOk('PUT', `/api/canvases/${made.id}/members`, 'owner', { email: w.emails.viewer, role: 'viewer' });
    const mail = await arrived;
    const { url, post } = unsubscribeOf(mail);
    expect(post).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(url).toStartWith(`${w.app.ctx.config.baseUrl}/notifications/unsubscribe?t=`);
    expect(mail.text).toContain(`Stop these emails: ${url}`);
    expect(String(mail.html)).toContain(`<a href="${url}">Stop these emails</a>`);

    // Opened (by the person, or a scanner): a question, and nothing changed.
    const asked = await w.app.request(local(url));
    expect(asked.status).toBe(200);
    expect(asked.headers.get('referrer-policy')).toBe('no-referrer');
    expect(asked.headers.get('cache-control')).toBe('no-store');
    const question = await asked.text();
    expect(codeOf(question)).toBe('UNSUBSCRIBE_ASK');
    expect(question).toContain(`Stop sending ${w.emails.viewer} emails when someone adds you to a canvas?`);
    expect(question).toContain(`<form method="post" action="/notifications/unsubscribe?t=`);
    expect((await prefs('viewer')).shared_with_me).toBe(true);

    // The mail program's POST: no session, no Origin, the RFC 8058 body.
    const done = await oneClick(url);
    expect(done.status).toBe(200);
    const said = await done.text();
    expect(codeOf(said)).toBe('UNSUBSCRIBED');
    expect(said).toContain(`${w.emails.viewer} gets no more emails when someone adds you to a canvas.`);
    const after = await prefs('viewer');
    expect(after).toMatchObject({ shared_with_me: false, ownership: true, share_expiring: true, ai_cap: true, webhook_paused: true });
    // Again: the same answer, the same choice.
    expect((await oneClick(url)).status).toBe(200);
    expect((await prefs('viewer')).shared_with_me).toBe(false);
    // The token is a credential: it is in no log line.
    const token = new URL(url).searchParams.get('t')!;
    expect(JSON.stringify(w.app.logs)).not.toContain(token);
  });

  test('a link this server did not sign, cut short, or about someone else opens nothing and changes nothing', async () => {
    const made = await w.expectOk('POST', '/api/canvases', 'owner', { title: 'Forgery' }, 201);
    const arrived = relay.find((m) => m.subject?.includes('"Forgery"') === true);
    await w.expectOk('PUT', `/api/canvases/${made.id}/members`, 'owner', { email: w.emails.editor, role: 'editor' });
    const { url } = unsubscribeOf(await arrived);
    const token = new URL(url).searchParams.get('t')!;
    const [payload, mac] = token.split('.') as [string, string];
    // The same signature over another person's id.
    const theirs = Buffer.from(JSON.stringify([w.ids.owner, 'shared_with_me'])).toString('base64url');
    const flipped = mac.slice(0, -2) + (mac.at(-2) === 'A' ? 'B' : 'A') + mac.at(-1);
    for (const t of [`${theirs}.${mac}`, `${payload}.${flipped}`, payload, token.slice(0, -5), 'x'.repeat(5000), '']) {
      for (const method of ['GET', 'POST']) {
        const res = await w.app.request(`/notifications/unsubscribe?t=${encodeURIComponent(t)}`, { method, origin: null });
        expect(res.status).toBe(404);
        expect(codeOf(await res.text())).toBe('UNSUBSCRIBE_LINK_INVALID');
      }
    }
    const missing = await w.app.request('/notifications/unsubscribe', { method: 'POST', origin: null });
    expect(missing.status).toBe(404);
    expect((await prefs('owner')).shared_with_me).toBe(true);
    expect((await prefs('editor')).shared_with_me).toBe(true);
  });

  test("a submission email's link stops that canvas's submission emails only; a guest's invite carries no link", async () => {
    const other = await w.expectOk('POST', '/api/canvases', 'owner', { title: 'Other' }, 201);
    await w.expectOk('PUT', '/api/me/notifications', 'owner', { submissions: { [w.canvas.id]: 'immediate', [other.id]: 'hourly' } });
    const arrived = relay.find((m) => m.subject?.startsWith('New submission') === true);
    await w.expectOk('PUT', `/v1/c/${w.canvas.slug}/submissions/signups/mine`, 'viewer', { name: 'Ana' });
    const { url } = unsubscribeOf(await arrived);
    const question = await (await w.app.request(local(url))).text();
    const { title } = await w.expectOk('GET', `/api/canvases/${w.canvas.id}`, 'owner');
    expect(question).toContain(`Stop sending ${w.emails.owner} emails about new submissions to &#34;${title}&#34;?`);
    expect((await oneClick(url)).status).toBe(200);
    expect((await prefs('owner')).submissions).toEqual({ [other.id]: 'hourly' });

    const invite = relay.find((m) => m.to !== undefined && !Array.isArray(m.to) && m.to.text === 'guest.person@example.com');
    const made = await w.request('owner', `/api/canvases/${w.canvas.id}/guest-invites`, {
      method: 'POST',
      json: { name: 'Guest', email: 'guest.person@example.com' },
    });
    expect(made.status).toBe(201);
    expect((await body(made)).inviteId).toBeString();
    const mail = await invite;
    expect(mail.headerLines.some((h) => h.key === 'list-unsubscribe')).toBe(false);
    expect(mail.text).not.toContain('Stop these emails');
  });
});
