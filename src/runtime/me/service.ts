import { grantedConnectionNames } from '../../connections/effective.ts';
import type { Core } from '../../foundation.ts';
import { isEffective } from '../capabilities.ts';
import type { RuntimeCaller } from '../pipeline.ts';
import type { Identity } from '../../../sdk/wire.ts';

/** GET /me: who the server says the caller is on this canvas (the SDK's `Identity`). `isAdmin` is deliberately absent. */
export type RuntimeIdentity = Identity;

export function identityOf(ctx: Pick<Core, 'config' | 'connections' | 'settings'>, caller: RuntimeCaller): RuntimeIdentity {
  const { canvas, role } = caller;
  const manager = role === 'owner' || role === 'editor';
  const on = (cap: Parameters<typeof isEffective>[2]) => isEffective(ctx, canvas, cap);
  const aiAudienceOk = manager || canvas.aiAudience === 'viewers';
  return {
    id: caller.actorId,
    email: caller.user?.email ?? null,
    name: caller.actorName,
    avatarUrl: caller.user?.avatarUrl ?? null,
    kind: caller.kind,
    canvasRole: role,
    permissions: {
      canWriteSharedKv: manager && on('kv'),
      canUploadSharedFiles: manager && on('files'),
      canUploadSubmissionFiles: on('files'),
      canUseAi: on('ai') && aiAudienceOk && (caller.kind === 'member' || canvas.guestAi),
      canCreateCanvas: caller.kind === 'member' && on('authoring'),
    },
    resources: {
      ...policyNames(canvas.runtimePolicy),
      connections: grantedConnectionNames(ctx, canvas.id),
    },
  };
}

/** The names configured in the runtime policy document (an absent or odd document names nothing). */
function policyNames(policy: unknown): { collections: string[]; fileGroups: string[]; channels: string[] } {
  const doc = isRecord(policy) ? policy : {};
  const names = (v: unknown) => (isRecord(v) ? Object.keys(v) : []);
  return { collections: names(doc.collections), fileGroups: names(doc.fileGroups), channels: names(doc.channels) };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
