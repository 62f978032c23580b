// passes: embedded, cluster
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { AppError } from '../src/errors.ts';
import { effectiveRights, validatePolicyDocument, type PolicyDocument } from '../src/policy/document.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, expectOutcome, makeCanvas, MANAGE_MATRIX, people, ROLES, snapshot, type People } from './management-fixtures.ts';

/** The message of the 400 a document earns, or null when it is accepted. */
function refusal(doc: unknown): string | null {
  try {
    validatePolicyDocument(doc);
    return null;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    expect(err.errorCode).toBe('INVALID_BODY');
    expect(err.status).toBe(400);
    return err.message;
  }
}

const many = (n: number, entry: unknown) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`r${i}`, entry]));
const CHANNEL = { subscribe: 'viewers', publish: 'editors', seePresence: 'viewers', participatePresence: 'none' };

describe('validatePolicyDocument', () => {
  test('a full document is accepted and copied exactly', () => {
    const doc: PolicyDocument = {
      defaultMode: 'participation',
      collections: {
        notes: { preset: 'personal' },
        'votes:2024.q1_x-y': {
          preset: 'submissions',
          overrides: { read: 'viewers', create: 'editors', update: 'none', delete: 'own_and_editors', increment: 'own' },
          aggregateCount: 'viewers',
        },
      },
      fileGroups: { photos: { preset: 'managed', overrides: { delete: 'own' } } },
      channels: { lobby: CHANNEL as never },
      connections: { crm: { audience: 'viewers', methods: ['GET', 'POST'] }, wiki: { audience: 'editors' } },
    };
    expect(validatePolicyDocument(JSON.parse(JSON.stringify(doc)))).toEqual(doc);
    expect(validatePolicyDocument({})).toEqual({});
    for (const mode of ['read_only', 'participation', 'collaboration']) expect(refusal({ defaultMode: mode })).toBeNull();
    for (const preset of ['personal', 'submissions', 'contributions', 'managed', 'collaborative'])
      expect(refusal({ collections: { a: { preset } }, fileGroups: { a: { preset } } })).toBeNull();
  });

  test('limits: 50 entries per resource type, names of 1-80 allowed characters', () => {
    for (const type of ['collections', 'fileGroups', 'channels', 'connections'] as const) {
      const entry = {
        collections: { preset: 'personal' },
        fileGroups: { preset: 'personal' },
        channels: CHANNEL,
        connections: { audience: 'editors' },
      }[type];
      expect(refusal({ [type]: many(50, entry) })).toBeNull();
      expect(refusal({ [type]: many(51, entry) })).toBe(`runtimePolicy.${type}: at most 50 entries (got 51)`);
    }
    expect(refusal({ collections: { ['a'.repeat(80)]: { preset: 'personal' } } })).toBeNull();
    for (const name of ['a'.repeat(81), '', '-lead', '.lead', ':lead', '_lead', 'sp ace', 'slash/x', 'ünï', 'a\u0000']) {
      expect(refusal({ collections: { [name]: { preset: 'personal' } } })).toStartWith(`runtimePolicy.collections.${name}: names are 1-80`);
    }
  });

  test('Object.prototype names are reserved in every map', () => {
    for (const name of [
      'constructor',
      'toString',
      'valueOf',
      'hasOwnProperty',
      'isPrototypeOf',
      'propertyIsEnumerable',
      'toLocaleString',
    ]) {
      for (const type of ['collections', 'fileGroups', 'channels', 'connections']) {
        expect(refusal({ [type]: { [name]: {} } })).toBe(`runtimePolicy.${type}.${name}: reserved name`);
      }
    }
    // As JSON delivers it: an own "__proto__" key, which must neither pass nor touch any prototype.
    expect(refusal(JSON.parse('{"collections": {"__proto__": {"preset": "personal"}}}'))).toContain('collections.__proto__: names are');
    expect(({} as Record<string, unknown>).preset).toBeUndefined();
  });

  test('unknown fields and rights are refused with the exact path', () => {
    const cases: Array<[unknown, string]> = [
      [null, 'runtimePolicy: expected an object'],
      [[], 'runtimePolicy: expected an object'],
      ['x', 'runtimePolicy: expected an object'],
      [{ version: 2 }, 'runtimePolicy.version: unknown field'],
      [{ defaultMode: 'readOnly' }, 'runtimePolicy.defaultMode: expected one of read_only, participation, collaboration'],
      [{ collections: [] }, 'runtimePolicy.collections: expected an object'],
      [{ collections: { a: null } }, 'runtimePolicy.collections.a: expected an object'],
      [
        { collections: { a: {} } },
        'runtimePolicy.collections.a.preset: expected one of personal, submissions, contributions, managed, collaborative',
      ],
      [{ collections: { a: { preset: 'open' } } }, 'runtimePolicy.collections.a.preset: expected one of'],
      [{ collections: { a: { preset: 'personal', extra: 1 } } }, 'runtimePolicy.collections.a.extra: unknown field'],
      [
        { collections: { a: { preset: 'personal', overrides: { list: 'own' } } } },
        'runtimePolicy.collections.a.overrides.list: unknown field',
      ],
      [
        { collections: { a: { preset: 'personal', overrides: { read: 'everyone' } } } },
        'runtimePolicy.collections.a.overrides.read: expected one of none, own, editors, own_and_editors, viewers',
      ],
      [
        { collections: { a: { preset: 'personal', overrides: { create: 'own' } } } },
        'runtimePolicy.collections.a.overrides.create: expected one of none, editors, viewers',
      ],
      [
        { collections: { a: { preset: 'personal', overrides: { create: 'own_and_editors' } } } },
        'runtimePolicy.collections.a.overrides.create: expected one of none, editors, viewers',
      ],
      [{ collections: { a: { preset: 'personal', overrides: [] } } }, 'runtimePolicy.collections.a.overrides: expected an object'],
      [
        { collections: { a: { preset: 'personal', aggregateCount: 'own' } } },
        'runtimePolicy.collections.a.aggregateCount: expected one of none, editors, viewers',
      ],
      [{ fileGroups: { f: { preset: 'managed', aggregateCount: 'viewers' } } }, 'runtimePolicy.fileGroups.f.aggregateCount: unknown field'],
      [
        { fileGroups: { f: { preset: 'managed', overrides: { update: 1 } } } },
        'runtimePolicy.fileGroups.f.overrides.update: expected one of',
      ],
      [{ channels: { c: { ...CHANNEL, publish: 'own' } } }, 'runtimePolicy.channels.c.publish: expected one of none, editors, viewers'],
      [{ channels: { c: { subscribe: 'viewers' } } }, 'runtimePolicy.channels.c.publish: required'],
      [{ channels: { c: { ...CHANNEL, history: 'none' } } }, 'runtimePolicy.channels.c.history: unknown field'],
      [{ connections: { x: {} } }, 'runtimePolicy.connections.x.audience: expected one of editors, viewers'],
      [{ connections: { x: { audience: 'none' } } }, 'runtimePolicy.connections.x.audience: expected one of editors, viewers'],
      [{ connections: { x: { audience: 'viewers', methods: 'GET' } } }, 'runtimePolicy.connections.x.methods: expected an array'],
      [
        { connections: { x: { audience: 'viewers', methods: ['get'] } } },
        'runtimePolicy.connections.x.methods.0: expected one of GET, HEAD, POST, PUT, PATCH, DELETE',
      ],
      [
        { connections: { x: { audience: 'viewers', methods: ['GET', 'OPTIONS'] } } },
        'runtimePolicy.connections.x.methods.1: expected one of',
      ],
      [
        { connections: { x: { audience: 'viewers', methods: ['GET', 'GET'] } } },
        'runtimePolicy.connections.x.methods: each method at most once',
      ],
      [{ connections: { x: { audience: 'viewers', headers: {} } } }, 'runtimePolicy.connections.x.headers: unknown field'],
    ];
    for (const [doc, message] of cases) expect({ doc, message: refusal(doc) }).toEqual({ doc, message: expect.stringContaining(message) });
  });
});

describe('effectiveRights: the Permission presets table', () => {
  test('each preset, increment following the preset update right', () => {
    expect(effectiveRights('personal')).toEqual({ read: 'own', create: 'viewers', update: 'own', delete: 'own', increment: 'own' });
    expect(effectiveRights('submissions')).toEqual({
      read: 'own_and_editors',
      create: 'viewers',
      update: 'own_and_editors',
      delete: 'own_and_editors',
      increment: 'own_and_editors',
    });
    expect(effectiveRights('contributions')).toEqual({
      read: 'viewers',
      create: 'viewers',
      update: 'own_and_editors',
      delete: 'own_and_editors',
      increment: 'own_and_editors',
    });
    expect(effectiveRights('managed')).toEqual({
      read: 'viewers',
      create: 'editors',
      update: 'editors',
      delete: 'editors',
      increment: 'editors',
    });
    expect(effectiveRights('collaborative')).toEqual({
      read: 'viewers',
      create: 'viewers',
      update: 'viewers',
      delete: 'viewers',
      increment: 'viewers',
    });
  });

  test('overrides replace single rights; increment stays with the preset unless overridden itself', () => {
    expect(effectiveRights('managed', { delete: 'own' })).toEqual({
      read: 'viewers',
      create: 'editors',
      update: 'editors',
      delete: 'own',
      increment: 'editors',
    });
    expect(effectiveRights('collaborative', { update: 'editors' }).increment).toBe('viewers');
    expect(effectiveRights('collaborative', { update: 'editors', increment: 'none' })).toMatchObject({
      update: 'editors',
      increment: 'none',
    });
    expect(effectiveRights('personal', { read: 'viewers', create: 'none' })).toMatchObject({
      read: 'viewers',
      create: 'none',
      update: 'own',
    });
  });
});

describe('PATCH /api/canvases/{id}/capabilities', () => {
  let app: TestApp;
  let p: People;
  beforeAll(async () => {
    app = await startTestApp({ env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL } });
    p = await people(app);
  });
  afterAll(() => app.close());
  const caps = (id: string, json: unknown, who: keyof People['cookie'] = 'owner') =>
    app.request(`/api/canvases/${id}/capabilities`, { method: 'PATCH', cookie: p.cookie[who], json });

  test('role matrix for a policy save: owners, editors and admins; nothing changes for the others', async () => {
    for (const who of ROLES) {
      const c = await makeCanvas(app, p);
      const before = await snapshot(app, c.id);
      const res = await caps(c.id, { expectedRuntimePolicy: null, runtimePolicy: { collections: { a: { preset: 'personal' } } } }, who);
      const v = await expectOutcome(res, MANAGE_MATRIX[who], `capabilities as ${who}`);
      if (res.status === 200) expect(v.runtimePolicy).toEqual({ collections: { a: { preset: 'personal' } } });
      else expect(await snapshot(app, c.id)).toBe(before);
    }
  });

  test('switches and audiences; capabilities-changed fires; bad values are 400 and change nothing', async () => {
    const c = await makeCanvas(app, p);
    const fired: string[] = [];
    const off = app.onEvent('canvas.capabilities-changed', (e) => fired.push(e.canvasId));
    const v = await body(
      await caps(
        c.id,
        {
          backend: false,
          kv: false,
          files: false,
          ai: true,
          realtime: false,
          authoring: true,
          aiAudience: 'viewers',
          connectionsAudience: 'viewers',
        },
        'editor',
      ),
    );
    expect(v.capabilities).toEqual({ backend: false, kv: false, files: false, ai: true, realtime: false, authoring: true });
    expect([v.aiAudience, v.connectionsAudience]).toEqual(['viewers', 'viewers']);
    expect(v.runtimePolicyRevision).toBeNull();
    expect(fired).toEqual([c.id]);
    // Guest AI spends the canvas's budget on guests: the owner's (or an admin's) call, not an editor's.
    const unchanged = await snapshot(app, c.id);
    for (const guestPatch of [{ guestAi: true }, { guestAiMonthlyUsd: 2.5 }, { ai: false, guestAi: true }]) {
      const refused = await caps(c.id, guestPatch, 'editor');
      expect({ guestPatch, status: refused.status, code: (await body(refused)).code }).toEqual({
        guestPatch,
        status: 403,
        code: 'PERMISSION_DENIED',
      });
    }
    expect(await snapshot(app, c.id)).toBe(unchanged);
    expect((await caps(c.id, { guestAi: true, guestAiMonthlyUsd: 2.5 }, 'owner')).status).toBe(200);
    let stored = (await app.ctx.canvases.byId(c.id))!;
    expect([stored.guestAi, stored.guestAiMonthlyUsd]).toEqual([true, 2.5]);
    expect((await caps(c.id, { guestAiMonthlyUsd: 1 }, 'admin')).status).toBe(200);
    stored = (await app.ctx.canvases.byId(c.id))!;
    expect(stored.guestAiMonthlyUsd).toBe(1);
    expect(fired).toEqual([c.id, c.id, c.id]);
    const before = await snapshot(app, c.id);
    for (const bad of [
      { ai: 'yes' },
      { aiAudience: 'everyone' },
      { connectionsAudience: 'owners' },
      { guestAiMonthlyUsd: -1 },
      { ai: true, telemetry: true },
      { backend: null },
    ]) {
      const res = await caps(c.id, bad);
      expect({ bad, status: res.status, code: (await body(res)).code }).toEqual({ bad, status: 400, code: 'INVALID_BODY' });
    }
    expect(await snapshot(app, c.id)).toBe(before);
    expect(fired).toEqual([c.id, c.id, c.id]);
    off();
  });

  test('the policy revision: null at first, required with a document, a new opaque value on every save', async () => {
    const c = await makeCanvas(app, p);
    const doc1 = { defaultMode: 'participation', collections: { notes: { preset: 'personal' } } };
    const doc2 = { channels: { lobby: CHANNEL } };
    const before = await snapshot(app, c.id);

    let res = await caps(c.id, { runtimePolicy: doc1 });
    expect(res.status).toBe(409);
    expect(await body(res)).toEqual({ code: 'POLICY_CONFLICT', message: expect.any(String), current: null });
    res = await caps(c.id, { runtimePolicy: doc1, expectedRuntimePolicy: 'made-up' });
    expect(await body(res)).toMatchObject({ code: 'POLICY_CONFLICT', current: null });
    expect(await snapshot(app, c.id)).toBe(before);

    const v1 = await body(await caps(c.id, { runtimePolicy: doc1, expectedRuntimePolicy: null }));
    expect(v1.runtimePolicy).toEqual(doc1);
    expect(v1.runtimePolicyRevision).toMatch(/^[0-9A-Za-z]{32}$/);
    const got = await body(await app.request(`/api/canvases/${c.id}`, { cookie: p.cookie.editor }));
    expect([got.runtimePolicy, got.runtimePolicyRevision]).toEqual([doc1, v1.runtimePolicyRevision]);

    // A second writer still holding null, or no revision at all, is told the current one and changes nothing.
    const saved = await snapshot(app, c.id);
    for (const stale of [{ expectedRuntimePolicy: null }, {}, { expectedRuntimePolicy: 'old' }]) {
      res = await caps(c.id, { runtimePolicy: doc2, ai: true, ...stale }, 'editor');
      expect(res.status).toBe(409);
      expect(await body(res)).toMatchObject({ code: 'POLICY_CONFLICT', current: v1.runtimePolicyRevision });
    }
    // A stated revision is checked even when only switches change.
    res = await caps(c.id, { ai: true, expectedRuntimePolicy: null });
    expect((await body(res)).code).toBe('POLICY_CONFLICT');
    expect(await snapshot(app, c.id)).toBe(saved);

    // Switches alone need no revision and do not change it.
    const sw = await body(await caps(c.id, { kv: false }));
    expect(sw.runtimePolicyRevision).toBe(v1.runtimePolicyRevision);

    const v2 = await body(await caps(c.id, { runtimePolicy: doc2, expectedRuntimePolicy: v1.runtimePolicyRevision }, 'admin'));
    expect(v2.runtimePolicy).toEqual(doc2);
    expect(v2.runtimePolicyRevision).not.toBe(v1.runtimePolicyRevision);
    // The document is replaced whole: collections from doc1 are gone.
    expect(v2.runtimePolicy.collections).toBeUndefined();

    const cleared = await body(await caps(c.id, { runtimePolicy: null, expectedRuntimePolicy: v2.runtimePolicyRevision }));
    expect(cleared.runtimePolicy).toBeNull();
    expect(cleared.runtimePolicyRevision).toMatch(/^[0-9A-Za-z]{32}$/);
  });

  test('an invalid document is 400 with the path (before any revision check) and changes nothing', async () => {
    const c = await makeCanvas(app, p);
    const before = await snapshot(app, c.id);
    for (const [doc, message] of [
      [
        { collections: { notes: { preset: 'personal', overrides: { create: 'own' } } } },
        'runtimePolicy.collections.notes.overrides.create: expected one of none, editors, viewers',
      ],
      [{ collections: many(51, { preset: 'managed' }) }, 'runtimePolicy.collections: at most 50 entries (got 51)'],
      [{ fileGroups: { toString: { preset: 'managed' } } }, 'runtimePolicy.fileGroups.toString: reserved name'],
      [{ rules: [] }, 'runtimePolicy.rules: unknown field'],
      ['everything', 'runtimePolicy: expected an object'],
    ] as const) {
      for (const expected of [null, 'stale']) {
        const res = await caps(c.id, { runtimePolicy: doc, expectedRuntimePolicy: expected });
        expect(res.status).toBe(400);
        expect(await body(res)).toEqual({ code: 'INVALID_BODY', message });
      }
    }
    expect(await snapshot(app, c.id)).toBe(before);
  });
});
