// passes: embedded, cluster
// What is mailed, and each person's choices: "you were added to a canvas"
// reaches a real SMTP relay with the canvas's title escaped in the HTML, and
// not when the person turned it off; GET/PUT /api/me/notifications.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, body, type TestApp } from './harness.ts';
import { startRelay, type Relay } from './smtp-fixture.ts';

const HOSTILE = `<script>alert("x")</script> & <img src=x onerror=y>`;

let relay: Relay;
let app: TestApp;
beforeAll(async () => {
  relay = await startRelay();
  app = await startTestApp({
    env: { EASEL_SMTP_URL: relay.url, EASEL_SMTP_FROM: 'easel@example.com' },
    app: { notifications: { ca: relay.ca } },
  });
});
afterAll(async () => {
  await app.close();
  await relay.stop();
});

type Considered = { kind: string; outcome: 'recorded' | 'skipped' };
/** The next time any node decided whether to mail someone. */
function nextConsidered(): Promise<Considered> {
  return new Promise((resolve) => {
    const off = app.onEvent('notifications.considered', (e) => {
      off();
      resolve(e);
    });
  });
}

async function canvasOf(cookie: string, title: string): Promise<{ id: string; slug: string; url: string }> {
  const res = await app.request('/api/canvases', { method: 'POST', cookie, json: { title } });
  expect(res.status).toBe(201);
  return body(res);
}

const addMember = (cookie: string, canvasId: string, email: string, role: 'editor' | 'viewer') =>
  app.request(`/api/canvases/${canvasId}/members`, { method: 'PUT', cookie, json: { email, role } });

describe('"you were added to a canvas"', () => {
  test('names who, which canvas, its address and the role; every value escaped in the HTML; no images', async () => {
    const owner = await app.signIn('owner1@example.com', 'Olive <Owner>');
    const canvas = await canvasOf(owner, HOSTILE);
    const arrived = relay.next();
    expect((await addMember(owner, canvas.id, 'new.person@example.com', 'editor')).status).toBe(200);
    const mail = await arrived;
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe('new.person@example.com');
    expect(mail.subject).toBe(`Olive <Owner> (owner1@example.com) shared "${HOSTILE}" with you`);
    expect(mail.text).toContain(`added you to the canvas "${HOSTILE}" as an editor.`);
    expect(mail.text).toContain(canvas.url);
    const html = String(mail.html);
    expect(html).toStartWith('<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body>');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<Owner>');
    expect(html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#60;img src=x onerror=y&#62;');
    expect(html).toContain(`<a href="${canvas.url}">`);
  });

  test('a role change of someone already on the list sends nothing new; a person who turned the kind off gets nothing', async () => {
    const owner = await app.signIn('owner2@example.com');
    const canvas = await canvasOf(owner, 'Plans');
    let considered = nextConsidered();
    await addMember(owner, canvas.id, 'viewer2@example.com', 'viewer');
    expect(await considered).toEqual({ kind: 'shared_with_me', outcome: 'recorded' });

    const quiet = await app.signIn('quiet@example.com');
    const put = await app.request('/api/me/notifications', { method: 'PUT', cookie: quiet, json: { shared_with_me: false } });
    expect(put.status).toBe(200);
    expect((await body(put)).shared_with_me).toBe(false);

    considered = nextConsidered();
    await addMember(owner, canvas.id, 'quiet@example.com', 'editor');
    expect(await considered).toEqual({ kind: 'canvas.member-added', outcome: 'skipped' });
    // Already on the list: a new role is not "added" (the fact is reported before the answer, or never).
    const added: unknown[] = [];
    const off = app.onEvent('canvas.member-added', (e) => void added.push(e));
    expect((await addMember(owner, canvas.id, 'viewer2@example.com', 'editor')).status).toBe(200);
    off();
    expect(added).toEqual([]);
    considered = nextConsidered();
    const arrived = relay.next();
    await addMember(owner, canvas.id, 'control@example.com', 'viewer');
    expect((await considered).outcome).toBe('recorded');
    await arrived;
    const to = (m: (typeof relay.messages)[number]) => (m.to && !Array.isArray(m.to) ? m.to.text : '');
    expect(relay.messages.filter((m) => to(m) === 'quiet@example.com')).toHaveLength(0);
    expect(relay.messages.filter((m) => to(m) === 'viewer2@example.com' && m.subject?.includes('Plans'))).toHaveLength(1);
  });
});

describe('GET/PUT /api/me/notifications', () => {
  test('every kind on by default, email on; a PUT changes only what it names', async () => {
    const cookie = await app.signIn('prefs@example.com');
    const got = await app.request('/api/me/notifications', { cookie });
    expect(got.status).toBe(200);
    expect(await body(got)).toEqual({
      emailEnabled: true,
      shared_with_me: true,
      guest_invite: true,
      ownership: true,
      share_expiring: true,
      ai_cap: true,
      webhook_paused: true,
      submissions: {},
    });
    const canvas = await canvasOf(cookie, 'Sign-up sheet');
    const put = await app.request('/api/me/notifications', {
      method: 'PUT',
      cookie,
      json: { ai_cap: false, submissions: { [canvas.id]: 'hourly' } },
    });
    expect(await body(put)).toMatchObject({ ai_cap: false, shared_with_me: true, submissions: { [canvas.id]: 'hourly' } });
    await app.request('/api/me/notifications', { method: 'PUT', cookie, json: { submissions: { [canvas.id]: 'off' } } });
    expect(await body(await app.request('/api/me/notifications', { cookie }))).toMatchObject({ ai_cap: false, submissions: {} });
  });

  test('submission mail only for a canvas one owns; bad bodies are 400; signed out is 401', async () => {
    const owner = await app.signIn('owner3@example.com');
    const canvas = await canvasOf(owner, 'Owned');
    await addMember(owner, canvas.id, 'editor3@example.com', 'editor');
    await addMember(owner, canvas.id, 'viewer3@example.com', 'viewer');
    const put = (cookie: string | undefined, json: unknown) => app.request('/api/me/notifications', { method: 'PUT', cookie, json });
    const want = { submissions: { [canvas.id]: 'immediate' } };
    const editor = await app.signIn('editor3@example.com');
    expect((await put(editor, want)).status).toBe(403);
    expect((await put(await app.signIn('viewer3@example.com'), want)).status).toBe(404);
    expect((await put(await app.signIn('stranger3@example.com'), want)).status).toBe(404);
    expect((await put(undefined, want)).status).toBe(401);
    for (const bad of [{ ai_cap: 'no' }, { submissions: { [canvas.id]: 'weekly' } }, { newsletter: true }, []]) {
      const res = await put(owner, bad);
      expect(res.status).toBe(400);
      expect((await body(res)).code).toBe('INVALID_BODY');
    }
    expect((await put(owner, want)).status).toBe(200);
  });

  test('without EASEL_SMTP_URL the answer says email is off', async () => {
    const plain = await startTestApp();
    try {
      const res = await plain.request('/api/me/notifications', { cookie: await plain.signIn('p@example.com') });
      expect((await body(res)).emailEnabled).toBe(false);
    } finally {
      await plain.close();
    }
  });
});
