// Where realtime keeps its shared state in Redis. Everything is under
// `easel:rt:` in the configured database; the pub/sub channel carries the
// database number too, because pub/sub ignores databases (two instances on
// one Redis, each in its own database, must not hear each other).
import type { PresenceUser } from '../frames.ts';

const NS = 'easel:rt:';
const PRESENCE = `${NS}p:`;

export const keys = {
  /** Sorted set: node id → the deadline its heartbeat renews (liveness.ts). */
  nodes: `${NS}nodes`,
  /** Set: the slot and presence keys a node has entries in (what reaping it must visit). */
  node: (nodeId: string) => `${NS}node:${nodeId}`,
  /** Hash: one field per open socket of the canvas, on any node → its person's id. */
  slots: (canvasId: string) => `${NS}c:${canvasId}`,
  /** Hash: one field per socket counted in the channel's presence → a presence entry (below). */
  presence: (canvasId: string, channel: string) => `${PRESENCE}${canvasId}:${channel}`,
  presencePrefix: PRESENCE,
  bus: (db: number) => `${NS}bus:${db}`,
};

/** A socket's field in the slot and presence hashes. Node ids hold no `|`. */
export const field = (nodeId: string, connectionId: string): string => `${nodeId}|${connectionId}`;

/** A presence key's canvas and channel (canvas ids never hold `:`; a channel may). */
export function presenceKeyParts(key: string): { canvasId: string; channel: string } | null {
  if (!key.startsWith(PRESENCE)) return null;
  const rest = key.slice(PRESENCE.length);
  const colon = rest.indexOf(':');
  return colon < 0 ? null : { canvasId: rest.slice(0, colon), channel: rest.slice(colon + 1) };
}

/**
 * A presence entry: `<seq>\t<actorId>\t<name>`. `seq` orders arrivals (the
 * hash's `#seq` field counts them), so everyone is listed in the order they
 * came, as one process lists them.
 */
export interface PresenceEntry {
  seq: number;
  user: PresenceUser;
}

export function parsePresenceEntry(entry: string): PresenceEntry | null {
  const a = entry.indexOf('\t');
  const b = a < 0 ? -1 : entry.indexOf('\t', a + 1);
  if (b < 0) return null;
  return { seq: Number(entry.slice(0, a)), user: { id: entry.slice(a + 1, b), name: entry.slice(b + 1) } };
}

/** Everyone once, in order of their first socket's arrival. */
export function presenceList(entries: string[]): PresenceUser[] {
  const first = new Map<string, PresenceEntry>();
  for (const raw of entries) {
    const entry = parsePresenceEntry(raw);
    if (!entry) continue;
    const seen = first.get(entry.user.id);
    if (!seen || entry.seq < seen.seq) first.set(entry.user.id, entry);
  }
  return [...first.values()].sort((x, y) => x.seq - y.seq).map((e) => e.user);
}
