// passes: embedded, cluster
// The effective rights of src/policy/rights.ts against the spec's
// Permission presets table (test/collections-fixtures.ts restates it in the
// spec's own words): every preset, every role, every operation, own and others'.
import { describe, expect, test } from 'bun:test';
import type { CanvasRole } from '../src/canvases/record.ts';
import { PRESETS, type Overrides, type Preset } from '../src/policy/presets.ts';
import { admitsAudience, recordRights, scopedFor } from '../src/policy/rights.ts';
import { specRights } from './collections-fixtures.ts';

const ROLES: CanvasRole[] = ['owner', 'editor', 'viewer'];

describe('recordRights: the Permission presets table', () => {
  for (const preset of PRESETS)
    for (const role of ROLES)
      test(`${preset} as ${role}`, () => {
        expect(recordRights(preset, undefined, role)).toEqual(specRights(preset, role));
      });

  test('owners and editors do not read personal records of others', () => {
    for (const role of ['owner', 'editor'] as const)
      expect(recordRights('personal', undefined, role).read).toEqual({ own: true, any: false });
  });
});

describe('recordRights: overrides', () => {
  const cases: Array<[string, Preset, Overrides, CanvasRole, Partial<ReturnType<typeof specRights>>]> = [
    [
      'personal, delete by editors: an editor still cannot delete what they cannot read',
      'personal',
      { delete: 'editors' },
      'editor',
      {
        delete: { own: true, any: false },
      },
    ],
    [
      'personal, read by editors and delete by editors: now any',
      'personal',
      { read: 'own_and_editors', delete: 'editors' },
      'editor',
      {
        read: { own: true, any: true },
        delete: { own: true, any: true },
        update: { own: true, any: false },
      },
    ],
    ['managed, create by viewers', 'managed', { create: 'viewers' }, 'viewer', { create: { own: true, any: true } }],
    [
      'collaborative, create by nobody, owners included',
      'collaborative',
      { create: 'none' },
      'owner',
      { create: { own: false, any: false } },
    ],
    [
      'contributions, read none: nothing else either',
      'contributions',
      { read: 'none' },
      'owner',
      {
        read: { own: false, any: false },
        update: { own: false, any: false },
        delete: { own: false, any: false },
        increment: { own: false, any: false },
      },
    ],
    // "Increment initially follows the preset's update right": overriding update alone leaves increment as the preset had it.
    [
      'collaborative, update none: increment still follows the preset',
      'collaborative',
      { update: 'none' },
      'viewer',
      {
        update: { own: false, any: false },
        increment: { own: true, any: true },
      },
    ],
    ['collaborative, increment own', 'collaborative', { increment: 'own' }, 'owner', { increment: { own: true, any: false } }],
    ['managed, update viewers', 'managed', { update: 'viewers' }, 'viewer', { update: { own: true, any: true } }],
  ];
  for (const [name, preset, overrides, role, changed] of cases)
    test(name, () => {
      expect(recordRights(preset, overrides, role)).toEqual({ ...specRights(preset, role), ...changed });
    });
});

describe('scopedFor and admitsAudience', () => {
  test('each right value for each role', () => {
    const table = {
      none: ['--', '--', '--'],
      own: ['o-', 'o-', 'o-'],
      editors: ['oa', 'oa', '--'],
      own_and_editors: ['oa', 'oa', 'o-'],
      viewers: ['oa', 'oa', 'oa'],
    } as const;
    for (const [right, row] of Object.entries(table))
      ROLES.forEach((role, i) => {
        const s = scopedFor(right as keyof typeof table, role);
        expect(`${s.own ? 'o' : '-'}${s.any ? 'a' : '-'}`).toBe(row[i]!);
      });
  });

  test('aggregateCount audiences: absent and none admit nobody', () => {
    for (const role of ROLES) {
      expect(admitsAudience(undefined, role)).toBe(false);
      expect(admitsAudience('none', role)).toBe(false);
      expect(admitsAudience('viewers', role)).toBe(true);
      expect(admitsAudience('editors', role)).toBe(role !== 'viewer');
    }
  });
});
