// passes: embedded, cluster
// Guest invites expire, die with their creator's right to manage the canvas,
// can be listed with their state, and every use is audited (issue 23 item 7,
// CONTRACT §9).
import { describe, expect, test } from 'bun:test';
import { expectCode } from './expect-code.ts';
import { useWorld } from './world.ts';

const DAY = 24 * 3600 * 1000;
let clock = Date.now();
// Sessions outlive the invites here, so only the invite's own expiry can end a guest's session.
const w = useWorld({ now: () => clock, env: { EASEL_SESSION_TTL_HOURS: String(24 * 60) } });

async function invite(by: 'owner' | 'editor', extra: Record<string, unknown> = {}) {
  return w.expectOk('POST', `/api/canvases/${w.canvas.id}/guest-invites`, by, extra, 201) as Promise<{
    inviteId: string;
    url: string;
    expiresAt: number;
  }>;
}

/** Opens the link: the guest cookie, or null when the link no longer opens. */
async function open(url: string): Promise<string | null> {
  const u = new URL(url);
  const res = await w.app.request(u.pathname + u.search);
  if (res.status === 404) return null;
  expect(res.status).toBe(303);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

/** The runtime gateway's answer to a session that no longer counts (spec step 1). */
async function expectSignedOut(cookie: string) {
  const res = await me(cookie);
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { error: 'unauthorized' } });
}

const me = (cookie: string) => w.app.request(`/v1/c/${w.canvas.slug}/me`, { cookie });
const listed = async (inviteId: string) =>
  (
    (await w.expectOk('GET', `/api/canvases/${w.canvas.id}/guest-invites`, 'owner')).invites as Array<{ inviteId: string; active: boolean }>
  ).find((i) => i.inviteId === inviteId)!;

describe('guest invites', () => {
  test('expire after 14 days by default: the link stops opening and its sessions end', async () => {
    const created = await invite('owner');
    expect(created.expiresAt).toBe(clock + 14 * DAY);
    const guest = (await open(created.url))!;
    expect((await me(guest)).status).toBe(200);
    const start = clock;
    try {
      clock += 14 * DAY - 1;
      expect((await me(guest)).status).toBe(200);
      clock += 1;
      await expectSignedOut(guest);
      expect(await open(created.url)).toBeNull();
      expect(await listed(created.inviteId)).toMatchObject({ active: false, expiresAt: created.expiresAt });
    } finally {
      clock = start;
    }
  });

  test('expiresInDays: 1 to 365; anything else is refused', async () => {
    expect((await invite('owner', { expiresInDays: 1 })).expiresAt).toBe(clock + DAY);
    expect((await invite('owner', { expiresInDays: 365 })).expiresAt).toBe(clock + 365 * DAY);
    for (const expiresInDays of [0, 366, 1.5, '7']) {
      const res = await w.request('owner', `/api/canvases/${w.canvas.id}/guest-invites`, { method: 'POST', json: { expiresInDays } });
      await expectCode(res, 400, 'INVALID_BODY');
    }
  });

  test('die when their creator may no longer manage the canvas: removed from the list, or demoted to viewer', async () => {
    const removed = await invite('editor');
    const guest = (await open(removed.url))!;
    expect((await me(guest)).status).toBe(200);
    await w.expectOk('DELETE', `/api/canvases/${w.canvas.id}/members/${w.ids.editor}`, 'owner');
    await expectSignedOut(guest);
    expect(await open(removed.url)).toBeNull();
    expect((await listed(removed.inviteId)).active).toBe(false);

    await w.expectOk('PUT', `/api/canvases/${w.canvas.id}/members`, 'owner', { email: w.emails.editor, role: 'editor' });
    const demoted = await invite('editor');
    expect((await listed(demoted.inviteId)).active).toBe(true);
    await w.expectOk('PUT', `/api/canvases/${w.canvas.id}/members`, 'owner', { email: w.emails.editor, role: 'viewer' });
    expect(await open(demoted.url)).toBeNull();
  });

  test('die when their creator is deactivated', async () => {
    const created = await invite('editor');
    const guest = (await open(created.url))!;
    await w.expectOk('PATCH', `/api/admin/users/${w.ids.editor}`, 'admin', { active: false });
    await expectSignedOut(guest);
    await w.expectOk('PATCH', `/api/admin/users/${w.ids.editor}`, 'admin', { active: true });
  });

  test('each opening of a link is audited (invite id only, never the token)', async () => {
    const created = await invite('owner');
    await open(created.url);
    await open(created.url);
    const uses = await w.app.ctx.sql.all<{ actor_kind: string; detail: string }>(
      "SELECT actor_kind, detail FROM audit_log WHERE canvas_id = ?1 AND action = 'guest.invite.used' AND detail LIKE ?2 ORDER BY id",
      w.canvas.id,
      `%${created.inviteId}%`,
    );
    expect(uses).toEqual([
      { actor_kind: 'guest', detail: JSON.stringify({ inviteId: created.inviteId }) },
      { actor_kind: 'guest', detail: JSON.stringify({ inviteId: created.inviteId }) },
    ]);
    const token = new URL(created.url).searchParams.get('token')!;
    expect(JSON.stringify(await w.app.ctx.sql.all('SELECT * FROM audit_log'))).not.toContain(token);
  });
});
