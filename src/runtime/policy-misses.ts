// Remembers what a canvas's pages asked for that its runtime policy does not
// configure, so the canvas page can say "your live page uses the collection
// "poll", which the policy does not configure". Noted from the
// 'policy.unconfigured' event off the request's path; a name is written at
// most once a minute per node (an upsert), and read back only while the
// policy still lacks it.
import type { Sql } from '../db/sql.ts';
import type { EventBus } from '../events.ts';
import type { Logger } from '../log.ts';
import { collectionPolicy, fileGroupPolicy } from '../policy/entries.ts';
import type { RuntimeCaller } from './pipeline.ts';

export type MissKind = 'collection' | 'fileGroup';

/**
 * Tells the bus a page asked for a collection or file group its policy does
 * not configure. The dashboard and MCP acting under the runtime's rules
 * (`caller.managing`: browsing, exporting, deleting) are not a page asking.
 */
export function notePolicyMiss(events: EventBus, caller: RuntimeCaller, kind: MissKind, name: string): void {
  if (!caller.managing) events.emit('policy.unconfigured', { canvasId: caller.canvas.id, kind, name });
}

export interface PolicyMiss {
  kind: MissKind;
  name: string;
  /** When a page last asked for it (epoch ms). */
  lastAt: number;
}

const QUIET_MS = 60_000;
/** Names remembered for the once-a-minute rule; past this the oldest are forgotten (a page cannot grow memory). */
const MAX_REMEMBERED = 10_000;
/** Misses older than this are not shown: the page that asked may be long gone. */
const SHOWN_FOR_MS = 30 * 24 * 3600_000;

const UPSERT = `INSERT INTO policy_misses (canvas_id, kind, name, last_at) VALUES (?1, ?2, ?3, ?4)
  ON CONFLICT (canvas_id, kind, name) DO UPDATE SET last_at = excluded.last_at`;

export class PolicyMisses {
  private readonly noted = new Map<string, number>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  /** Records the miss unless this node wrote it in the last minute; never throws (a failed write is only logged). */
  note(canvasId: string, kind: MissKind, name: string): void {
    const key = `${canvasId}\u0000${kind}\u0000${name}`;
    const at = this.now();
    const last = this.noted.get(key);
    if (last !== undefined && at - last < QUIET_MS) return;
    this.noted.delete(key);
    this.noted.set(key, at);
    if (this.noted.size > MAX_REMEMBERED) this.noted.delete(this.noted.keys().next().value!);
    const write = this.sql.run(UPSERT, canvasId, kind, name, at).then(
      () => undefined,
      (err: unknown) => this.log.warn('policy miss not recorded', { canvasId, error: err instanceof Error ? err.message : String(err) }),
    );
    this.writing = Promise.all([this.writing, write]).then(() => undefined);
  }

  /** Resolves once every miss noted so far is written (tests wait on this; the server never does). */
  settled(): Promise<void> {
    return this.writing;
  }

  /** The recent misses `runtimePolicy` (the canvas's live document) still does not configure, most recent first. */
  async stillMissing(canvasId: string, runtimePolicy: unknown): Promise<PolicyMiss[]> {
    const rows = await this.sql.all<{ kind: MissKind; name: string; last_at: number }>(
      'SELECT kind, name, last_at FROM policy_misses WHERE canvas_id = ?1 AND last_at > ?2 ORDER BY last_at DESC LIMIT 50',
      canvasId,
      this.now() - SHOWN_FOR_MS,
    );
    const configured = (kind: MissKind, name: string) =>
      (kind === 'collection' ? collectionPolicy(runtimePolicy, name) : fileGroupPolicy(runtimePolicy, name)) !== null;
    return rows.filter((r) => !configured(r.kind, r.name)).map((r) => ({ kind: r.kind, name: r.name, lastAt: Number(r.last_at) }));
  }
}
