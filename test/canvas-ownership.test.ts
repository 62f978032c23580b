// passes: embedded, cluster
// PUT /api/canvases/{id}/owner {email}: the owner or an instance admin gives
// the canvas to another active user; an editor is refused (403), anyone else
// learns nothing (404), before the body is read. The previous owner stays
// as an editor; the change is audited; both people are mailed unless they
// turned `ownership` off.
import { afterAll, describe, expect, test } from 'bun:test';
import { expectCode, expectError } from './expect-code.ts';
import { startRelay } from './smtp-fixture.ts';
import { useWorld } from './world.ts';

const relay = await startRelay({ plain: true });
afterAll(() => relay.stop());
const to = (m: (typeof relay.messages)[number]) => (m.to && !Array.isArray(m.to) ? m.to.text : '');

describe('canvas ownership transfer', () => {
  const w = useWorld({ env: { EASEL_SMTP_URL: relay.url }, canvas: { guest: false } });
  const path = () => `/api/canvases/${w.canvas.id}/owner`;
  // Sorted: the list's order among people added in the same millisecond is not what these tests are about.
  const people = async () =>
    ((await w.expectOk('GET', `/api/canvases/${w.canvas.id}/members`, 'admin')).members as Array<{ email: string; role: string }>)
      .map((m) => `${m.role}:${m.email}`)
      .sort();
  const ownershipMails = async () =>
    (await w.app.features.notifications.outbox.recent(200, null))
      .filter((d) => d.kind === 'ownership' && d.subject.includes(`"${w.canvas.view.title}"`))
      .map((d) => d.recipient)
      .sort();

  test('the owner gives the canvas away: the new owner owns it, the previous one is an editor, both are mailed', async () => {
    const view = await w.expectOk('PUT', path(), 'owner', { email: w.emails.stranger.toUpperCase() });
    expect(view.role).toBe('editor');
    expect(await people()).toEqual(
      [
        `owner:${w.emails.stranger}`,
        `editor:${w.emails.editor}`,
        `viewer:${w.emails.viewer}`,
        `viewer:${w.emails.viewer2}`,
        `editor:${w.emails.owner}`,
      ].sort(),
    );
    expect((await w.expectOk('GET', `/api/canvases/${w.canvas.id}`, 'stranger')).role).toBe('owner');
    // The previous owner manages it as an editor now: giving it away again is the new owner's.
    await expectCode(await w.request('owner', path(), { method: 'PUT', json: { email: w.emails.owner } }), 403, 'PERMISSION_DENIED');

    const title = w.canvas.view.title;
    const mine = await relay.find((m) => to(m) === w.emails.stranger && m.subject === `You now own "${title}"`);
    expect(mine.text).toContain(w.emails.owner);
    const theirs = await relay.find(
      (m) => to(m) === w.emails.owner && m.subject === `"${title}" now belongs to ${w.names.stranger} (${w.emails.stranger})`,
    );
    expect(theirs.text).toContain('as an editor');

    const audit = await w.app.ctx.audit.forCanvas(w.canvas.id, 10);
    expect(audit.find((e) => e.action === 'canvas.owner.transfer')).toMatchObject({
      actorId: w.ids.owner,
      actorKind: 'user',
      detail: { fromUserId: w.ids.owner, toUserId: w.ids.stranger },
    });
  });

  test('an admin gives an editor the canvas: the editor is on the list once, as its owner', async () => {
    const events: unknown[] = [];
    const off = w.app.onEvent('canvas.owner-changed', (e) => void events.push(e));
    const view = await w.expectOk('PUT', path(), 'admin', { email: w.emails.editor });
    off();
    expect(view.role).toBe('admin');
    expect(events).toEqual([{ canvasId: w.canvas.id, fromUserId: w.ids.owner, toUserId: w.ids.editor, byUserId: w.ids.admin }]);
    expect(await people()).toEqual(
      [`owner:${w.emails.editor}`, `viewer:${w.emails.viewer}`, `viewer:${w.emails.viewer2}`, `editor:${w.emails.owner}`].sort(),
    );
    const audit = await w.app.ctx.audit.forCanvas(w.canvas.id, 10);
    expect(audit.find((e) => e.action === 'canvas.owner.transfer')).toMatchObject({ actorId: w.ids.admin, actorKind: 'admin' });
  });

  test('refusals: editor 403, viewer and stranger 404 whatever the body, unknown person 404, bad body 400; nothing changes', async () => {
    const put = (who: 'editor' | 'viewer' | 'stranger' | 'anonymous' | 'owner', json: unknown) =>
      w.request(who, path(), { method: 'PUT', json });
    await expectCode(await put('editor', { email: 'not an address' }), 403, 'PERMISSION_DENIED');
    await expectCode(await put('viewer', { email: w.emails.viewer }), 404, 'NOT_FOUND');
    await expectCode(await put('stranger', { bogus: 1 }), 404, 'NOT_FOUND');
    await expectError(await put('anonymous', { email: w.emails.viewer }), 401, 'unauthorized');
    await expectCode(await put('owner', { email: 'nobody-here@example.com' }), 404, 'NOT_FOUND');
    await expectCode(await put('owner', { email: 'not an address' }), 400, 'INVALID_BODY');
    await expectCode(await put('owner', { email: w.emails.viewer, role: 'owner' }), 400, 'INVALID_BODY');
    await expectCode(await put('owner', {}), 400, 'INVALID_BODY');
    await w.adminUser('viewer2', { active: false });
    try {
      await expectCode(await put('owner', { email: w.emails.viewer2 }), 404, 'NOT_FOUND');
    } finally {
      await w.adminUser('viewer2', { active: true });
    }
    expect((await people()).find((p) => p.startsWith('owner:'))).toBe(`owner:${w.emails.owner}`);
    // Giving it to its owner changes nothing.
    expect((await w.expectOk('PUT', path(), 'owner', { email: w.emails.owner })).role).toBe('owner');
    expect(await ownershipMails()).toEqual([]);
  });

  test('each person who turned ownership emails off is not mailed', async () => {
    await w.expectOk('PUT', '/api/me/notifications', 'owner', { ownership: false });
    try {
      await w.expectOk('PUT', path(), 'owner', { email: w.emails.viewer });
      // The messages are recorded before the answer: only the new owner's.
      expect(await ownershipMails()).toEqual([w.emails.viewer]);
      await w.expectOk('PUT', '/api/me/notifications', 'viewer', { ownership: false });
      await w.expectOk('PUT', path(), 'viewer', { email: w.emails.owner });
      expect(await ownershipMails()).toEqual([w.emails.viewer]);
    } finally {
      await w.expectOk('PUT', '/api/me/notifications', 'owner', { ownership: true });
      await w.expectOk('PUT', '/api/me/notifications', 'viewer', { ownership: true });
    }
  });
});
