// decideAccess is pure: every branch, in the order INTERFACES.md fixes.
import { describe, expect, test } from 'bun:test';
import { decideAccess, publicLinkActive, type AccessInput, type Viewer } from '../src/canvases/access.ts';
import type { Canvas, CanvasRole } from '../src/canvases/record.ts';

const NOW = 1_700_000_000_000;

function canvas(over: Partial<Canvas> = {}): Canvas {
  return {
    id: 'c1',
    slug: 'demo',
    title: 'Demo',
    ownerId: 'owner',
    accessMode: 'restricted',
    hasPassword: false,
    passwordVersion: 0,
    expiresAt: null,
    publicationToken: 't',
    currentVersionId: 'v1',
    capabilities: { backend: true, kv: true, files: true, ai: false, realtime: true, authoring: false },
    aiAudience: 'editors',
    connectionsAudience: 'editors',
    guestAi: false,
    guestAiMonthlyUsd: 0,
    serviceWorkers: false,
    runtimePolicy: null,
    runtimePolicyRevision: null,
    archivedAt: null,
    disabledAt: null,
    disabledReason: null,
    deletedAt: null,
    createdAt: 0,
    updatedAt: 0,
    ...over,
  };
}

const user = (role: CanvasRole | null, orgId: string | null = null): Viewer => ({
  kind: 'user',
  userId: `u-${role ?? 'none'}`,
  orgId,
  role,
});
const OWNER = user('owner');
const EDITOR = user('editor');
const VIEWER = user('viewer');
const STRANGER = user(null);
const ANON: Viewer = { kind: 'anonymous' };
const GUEST: Viewer = { kind: 'guest', inviteId: 'i1', canvasId: 'c1' };
const OTHER_GUEST: Viewer = { kind: 'guest', inviteId: 'i2', canvasId: 'c2' };

function input(over: Partial<AccessInput> & { c?: Partial<Canvas> } = {}): AccessInput {
  const { c, ...rest } = over;
  return {
    canvas: canvas(c),
    owner: { active: true, canPublishPublic: true, orgId: 'org-a' },
    viewer: STRANGER,
    gatePassed: false,
    now: NOW,
    instance: { publicLinks: true, tenancy: false },
    ...rest,
  };
}

const code = (i: AccessInput) => {
  const d = decideAccess(i);
  return d.ok ? 'ok' : d.code;
};

describe('decideAccess', () => {
  test('unknown or deleted canvas → NOT_FOUND, for everyone', () => {
    for (const viewer of [OWNER, STRANGER, ANON, GUEST]) {
      expect(code(input({ canvas: null, viewer }))).toBe('NOT_FOUND');
      expect(code(input({ viewer, c: { deletedAt: NOW - 1 } }))).toBe('NOT_FOUND');
    }
  });

  test('a guest scoped to another canvas → NOT_INVITED, before anything else', () => {
    expect(code(input({ viewer: OTHER_GUEST, c: { disabledAt: NOW } }))).toBe('NOT_INVITED');
    expect(code(input({ viewer: OTHER_GUEST, c: { accessMode: 'public_link' } }))).toBe('NOT_INVITED');
  });

  test('restricted: the list only', () => {
    expect(code(input({ viewer: OWNER }))).toBe('ok');
    expect(code(input({ viewer: EDITOR }))).toBe('ok');
    expect(code(input({ viewer: VIEWER }))).toBe('ok');
    expect(code(input({ viewer: GUEST }))).toBe('ok');
    expect(code(input({ viewer: STRANGER }))).toBe('OWNER_ONLY');
    expect(code(input({ viewer: ANON }))).toBe('OWNER_ONLY');
  });

  test('whole_org without tenancy: any signed-in user, never anonymous', () => {
    const c = { accessMode: 'whole_org' as const };
    expect(code(input({ viewer: STRANGER, c }))).toBe('ok');
    expect(code(input({ viewer: user(null, 'org-b'), c }))).toBe('ok');
    expect(code(input({ viewer: ANON, c }))).toBe('OWNER_ONLY');
  });

  test("whole_org with tenancy: only the owner's org, and only the list when the owner has none", () => {
    const c = { accessMode: 'whole_org' as const };
    const instance = { publicLinks: true, tenancy: true };
    expect(code(input({ instance, viewer: user(null, 'org-a'), c }))).toBe('ok');
    expect(code(input({ instance, viewer: user(null, 'org-b'), c }))).toBe('OWNER_ONLY');
    expect(code(input({ instance, viewer: user(null, null), c }))).toBe('OWNER_ONLY');
    const noOrg = { active: true, canPublishPublic: true, orgId: null };
    expect(code(input({ instance, owner: noOrg, viewer: user(null, null), c }))).toBe('OWNER_ONLY');
    expect(code(input({ instance, owner: noOrg, viewer: user('viewer', 'org-b'), c }))).toBe('ok');
  });

  test('public_link: anyone while the instance, the owner and their permission allow it; else Restricted', () => {
    const c = { accessMode: 'public_link' as const };
    expect(code(input({ viewer: ANON, c }))).toBe('ok');
    expect(code(input({ viewer: STRANGER, c }))).toBe('ok');
    const off = [
      { instance: { publicLinks: false, tenancy: false } },
      { owner: { active: true, canPublishPublic: false, orgId: null } },
      { owner: { active: false, canPublishPublic: true, orgId: null } },
      { owner: null },
    ];
    for (const o of off) {
      expect(code(input({ ...o, viewer: ANON, c }))).toBe('OWNER_ONLY');
      expect(code(input({ ...o, viewer: STRANGER, c }))).toBe('OWNER_ONLY');
      expect(code(input({ ...o, viewer: VIEWER, c }))).toBe('ok');
      expect(publicLinkActive(input({ ...o, c }))).toBe(false);
    }
    expect(publicLinkActive(input({ c }))).toBe(true);
    expect(publicLinkActive(input())).toBe(false);
  });

  test('staticOnly: everyone but owner and editors on a live Public link canvas; nobody otherwise', () => {
    const c = { accessMode: 'public_link' as const };
    const d = (viewer: Viewer, extra: Partial<AccessInput> = {}) => decideAccess(input({ viewer, c, ...extra }));
    expect(d(ANON)).toEqual({ ok: true, role: null, effectiveRole: 'viewer', staticOnly: true });
    expect(d(STRANGER)).toEqual({ ok: true, role: null, effectiveRole: 'viewer', staticOnly: true });
    expect(d(VIEWER)).toEqual({ ok: true, role: 'viewer', effectiveRole: 'viewer', staticOnly: true });
    expect(d(GUEST)).toEqual({ ok: true, role: null, effectiveRole: 'viewer', staticOnly: true });
    expect(d(EDITOR)).toEqual({ ok: true, role: 'editor', effectiveRole: 'editor', staticOnly: false });
    expect(d(OWNER)).toEqual({ ok: true, role: 'owner', effectiveRole: 'owner', staticOnly: false });
    // Public links off: Restricted, with the runtime API for the list.
    expect(d(VIEWER, { instance: { publicLinks: false, tenancy: false } })).toEqual({
      ok: true,
      role: 'viewer',
      effectiveRole: 'viewer',
      staticOnly: false,
    });
    expect(decideAccess(input({ viewer: VIEWER }))).toEqual({ ok: true, role: 'viewer', effectiveRole: 'viewer', staticOnly: false });
    expect(decideAccess(input({ viewer: user(null), c: { accessMode: 'whole_org' } }))).toEqual({
      ok: true,
      role: null,
      effectiveRole: 'viewer',
      staticOnly: false,
    });
    expect(decideAccess(input({ viewer: GUEST }))).toEqual({ ok: true, role: null, effectiveRole: 'viewer', staticOnly: false });
  });

  test('disabled → DISABLED for everyone with a route in, the owner included; no route in stays OWNER_ONLY', () => {
    const c = { disabledAt: NOW - 1, archivedAt: NOW - 1 };
    for (const viewer of [OWNER, EDITOR, VIEWER, GUEST]) expect(code(input({ viewer, c }))).toBe('DISABLED');
    expect(code(input({ viewer: STRANGER, c }))).toBe('OWNER_ONLY');
  });

  test('archived → ARCHIVED for everyone with a route in', () => {
    const c = { archivedAt: NOW - 1, expiresAt: NOW - 1, hasPassword: true };
    for (const viewer of [OWNER, EDITOR, VIEWER, GUEST]) expect(code(input({ viewer, c }))).toBe('ARCHIVED');
    expect(code(input({ viewer: STRANGER, c }))).toBe('OWNER_ONLY');
  });

  test('expiry: SHARE_EXPIRED at and after expiresAt for anyone but owner and editors', () => {
    for (const expiresAt of [NOW, NOW - 1]) {
      const c = { expiresAt, hasPassword: true };
      expect(code(input({ viewer: VIEWER, c }))).toBe('SHARE_EXPIRED');
      expect(code(input({ viewer: GUEST, c }))).toBe('SHARE_EXPIRED');
      expect(code(input({ viewer: ANON, c: { ...c, accessMode: 'public_link' } }))).toBe('SHARE_EXPIRED');
      expect(code(input({ viewer: OWNER, c }))).toBe('ok');
      expect(code(input({ viewer: EDITOR, c }))).toBe('ok');
    }
    expect(code(input({ viewer: VIEWER, c: { expiresAt: NOW + 1 } }))).toBe('ok');
  });

  test('password: PASSWORD_REQUIRED without a pass; owners, editors and guests skip it', () => {
    const c = { hasPassword: true };
    expect(code(input({ viewer: VIEWER, c }))).toBe('PASSWORD_REQUIRED');
    expect(code(input({ viewer: VIEWER, c, gatePassed: true }))).toBe('ok');
    expect(code(input({ viewer: ANON, c: { ...c, accessMode: 'public_link' } }))).toBe('PASSWORD_REQUIRED');
    expect(code(input({ viewer: ANON, c: { ...c, accessMode: 'public_link' }, gatePassed: true }))).toBe('ok');
    expect(code(input({ viewer: STRANGER, c: { ...c, accessMode: 'whole_org' } }))).toBe('PASSWORD_REQUIRED');
    expect(code(input({ viewer: OWNER, c }))).toBe('ok');
    expect(code(input({ viewer: EDITOR, c }))).toBe('ok');
    expect(code(input({ viewer: GUEST, c }))).toBe('ok');
    // No route in: the password form would reveal the canvas.
    expect(code(input({ viewer: STRANGER, c }))).toBe('OWNER_ONLY');
  });

  test('admins get no bypass: a non-member admin is a stranger', () => {
    // The viewer shape has no admin flag at all; an admin not on the list is refused like anyone else.
    expect(code(input({ viewer: { kind: 'user', userId: 'admin', orgId: null, role: null } }))).toBe('OWNER_ONLY');
  });
});
