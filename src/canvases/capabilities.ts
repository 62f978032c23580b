// Capability switches, audiences and the runtime policy document (spec:
// Capability and policy configuration; Versioning 6). The document is
// replaced whole, guarded by its opaque revision.
import type { Core } from '../foundation.ts';
import { tx } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { newToken } from '../ids.ts';
import { validatePolicyDocument, type PolicyDocument } from '../policy/document.ts';
import { actorKind, managedCanvas, type Actor } from './authority.ts';
import type { Audience, CapabilitySwitch } from './record.ts';
import type { CanvasWithRole } from './service.ts';
import { canvasRows, type CanvasColumns } from './store.ts';

type Columns = CanvasColumns;

export type CapabilitiesPatch = Partial<Record<CapabilitySwitch, boolean>> & {
  aiAudience?: Audience;
  connectionsAudience?: Audience;
  guestAi?: boolean;
  guestAiMonthlyUsd?: number;
  /** The revision the caller last read (null: none saved yet). Required with runtimePolicy. */
  expectedRuntimePolicy?: string | null;
  /** The full document (null removes it); validated here. */
  runtimePolicy?: unknown;
};

const SWITCH_COLUMNS: Record<CapabilitySwitch, keyof Columns> = {
  backend: 'cap_backend',
  kv: 'cap_kv',
  files: 'cap_files',
  ai: 'cap_ai',
  realtime: 'cap_realtime',
  authoring: 'cap_authoring',
};

function conflict(current: string | null, message: string): AppError {
  return new AppError('POLICY_CONFLICT', message, { current });
}

/** What capability changes use. */
export type CapabilitySettingsDeps = Pick<Core, 'audit' | 'canvases' | 'events' | 'now' | 'sql'>;

/** Built by CanvasService (its `capabilities`). */
export class CapabilitySettings {
  constructor(private readonly deps: CapabilitySettingsDeps) {}

  /**
   * Owners, editors and admins; guest AI (which spends the canvas's AI budget on
   * guests) only the owner or an admin ("AI is off unless the owner opted in").
   * Validation (400) comes before the revision check (409).
   */
  async set(actor: Actor, id: string, patch: CapabilitiesPatch): Promise<CanvasWithRole> {
    const ctx = this.deps;
    const guestAi = patch.guestAi !== undefined || patch.guestAiMonthlyUsd !== undefined;
    const m = await managedCanvas(ctx, actor, id, guestAi ? 'own' : 'manage');
    const fields = Object.keys(patch).filter((k) => patch[k as keyof CapabilitiesPatch] !== undefined && k !== 'expectedRuntimePolicy');
    const hasPolicy = patch.runtimePolicy !== undefined;
    const document: PolicyDocument | null | undefined = !hasPolicy
      ? undefined
      : patch.runtimePolicy === null
        ? null
        : validatePolicyDocument(patch.runtimePolicy);
    if (patch.guestAiMonthlyUsd !== undefined && !(Number.isFinite(patch.guestAiMonthlyUsd) && patch.guestAiMonthlyUsd >= 0)) {
      throw new AppError('INVALID_BODY', 'guestAiMonthlyUsd: a non-negative number of US dollars');
    }

    const columns: Columns = {
      ai_audience: patch.aiAudience,
      connections_audience: patch.connectionsAudience,
      guest_ai: patch.guestAi === undefined ? undefined : patch.guestAi ? 1 : 0,
      guest_ai_monthly_usd: patch.guestAiMonthlyUsd,
    };
    for (const [name, column] of Object.entries(SWITCH_COLUMNS)) {
      const value = patch[name as CapabilitySwitch];
      if (value !== undefined) columns[column] = value ? 1 : 0;
    }

    const canvas = await ctx.sql.write(function* () {
      yield* tx.lock('canvas', id);
      const current = yield* canvasRows.byId(id);
      if (!current) throw new AppError('NOT_FOUND', 'canvas not found');
      const revision = current.runtimePolicyRevision;
      if (hasPolicy && patch.expectedRuntimePolicy === undefined) {
        throw conflict(revision, 'expectedRuntimePolicy is required with runtimePolicy: send the runtimePolicyRevision you last read');
      }
      // A caller who states the revision it saw is told when it is stale, even without a document.
      if (patch.expectedRuntimePolicy !== undefined && patch.expectedRuntimePolicy !== revision) {
        throw conflict(revision, 'the runtime policy changed since it was read: reload it and send the document again');
      }
      if (hasPolicy) {
        columns.runtime_policy = document === null ? null : JSON.stringify(document);
        columns.runtime_policy_revision = newToken();
      }
      if (fields.length > 0) yield* canvasRows.update(id, columns, ctx.now());
      return (yield* canvasRows.byId(id))!;
    });
    if (fields.length > 0) {
      ctx.events.emit('canvas.capabilities-changed', { canvasId: id });
      await ctx.audit.record({
        actorId: actor.user.id,
        actorKind: actorKind(m),
        canvasId: id,
        action: 'canvas.capabilities',
        detail: { fields },
      });
    }
    return { canvas, role: m.viewRole };
  }
}
