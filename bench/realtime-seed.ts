// The realtime benches' canvas: 30 people, the first the owner, the next
// four editors (with the owner, the 5 slots viewers may not take:
// REALTIME_LIMITS.connectionsReservedForManagers), the rest viewers.
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { newId, newToken, sha256Hex } from '../src/ids.ts';
import { REALTIME_LIMITS } from '../src/runtime/realtime/limits.ts';

export const SOCKETS = REALTIME_LIMITS.connectionsPerCanvas;
export const EDITORS = REALTIME_LIMITS.connectionsReservedForManagers - 1;

/** Writes the canvas and its people into the storage `env` names; answers their emails (index 0: the owner). */
export async function seedRealtimeCanvas(env: Record<string, string>, slug: string): Promise<string[]> {
  const emails = Array.from({ length: SOCKETS }, (_, i) => `person${i}@bench.test`);
  const ctx = await createContext(loadConfig({ EASEL_LOG_LEVEL: 'silent', ...env }));
  const users = [];
  for (const [i, e] of emails.entries()) users.push(await ctx.users.ensure(e, `Person ${i}`));
  const now = Date.now();
  const canvas = await ctx.canvases.insert({
    id: newId(),
    slug,
    title: 'bench',
    ownerId: users[0]!.id,
    keyHash: sha256Hex(newToken()),
    publicationToken: newToken(),
    now,
  });
  for (const [i, u] of users.entries()) if (i > 0) await ctx.canvases.setMember(canvas.id, u.id, i <= EDITORS ? 'editor' : 'viewer', now);
  await ctx.sql.close();
  return emails;
}
