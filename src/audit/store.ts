import { likeLiteral } from '../db/like.ts';
import type { Database } from 'bun:sqlite';

export type ActorKind = 'user' | 'guest' | 'admin' | 'key' | 'token' | 'system';

export interface AuditEvent {
  actorId: string | null;
  actorKind: ActorKind;
  canvasId: string | null;
  action: string;
  /** Metadata only (ids, field names, counts): never values, keys, tokens or passwords. */
  detail?: Record<string, unknown>;
}

export class AuditLog {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  record(e: AuditEvent): void {
    this.db
      .query('INSERT INTO audit_log (at, actor_id, actor_kind, canvas_id, action, detail) VALUES (?, ?, ?, ?, ?, ?)')
      .run(this.now(), e.actorId, e.actorKind, e.canvasId, e.action, e.detail ? JSON.stringify(e.detail) : null);
  }

  forCanvas(
    canvasId: string,
    limit = 100,
  ): Array<{ at: number; actorId: string | null; actorKind: string; action: string; detail: unknown }> {
    return this.db
      .query<{ at: number; actor_id: string | null; actor_kind: string; action: string; detail: string | null }, [string, number]>(
        'SELECT at, actor_id, actor_kind, action, detail FROM audit_log WHERE canvas_id = ? ORDER BY id DESC LIMIT ?',
      )
      .all(canvasId, limit)
      .map((r) => ({
        at: r.at,
        actorId: r.actor_id,
        actorKind: r.actor_kind,
        action: r.action,
        detail: r.detail ? JSON.parse(r.detail) : null,
      }));
  }

  /** The newest entries first, narrowed by any of the filters, at most `limit` (admins' audit viewer). */
  search(filter: { action?: string; canvasId?: string; actorId?: string; before?: number }, limit: number): AuditEntry[] {
    const where: string[] = [];
    const args: Array<string | number> = [];
    if (filter.action) (where.push("action LIKE ? ESCAPE '\\'"), args.push(`${likeLiteral(filter.action)}%`));
    if (filter.canvasId) (where.push('canvas_id = ?'), args.push(filter.canvasId));
    if (filter.actorId) (where.push('actor_id = ?'), args.push(filter.actorId));
    if (filter.before !== undefined) (where.push('id < ?'), args.push(filter.before));
    return this.db
      .query<
        {
          id: number;
          at: number;
          actor_id: string | null;
          actor_kind: string;
          canvas_id: string | null;
          action: string;
          detail: string | null;
        },
        Array<string | number>
      >(
        `SELECT id, at, actor_id, actor_kind, canvas_id, action, detail FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`,
      )
      .all(...args, limit)
      .map((r) => ({
        id: r.id,
        at: r.at,
        actorId: r.actor_id,
        actorKind: r.actor_kind,
        canvasId: r.canvas_id,
        action: r.action,
        detail: r.detail ? JSON.parse(r.detail) : null,
      }));
  }
}

export interface AuditEntry {
  id: number;
  at: number;
  actorId: string | null;
  actorKind: string;
  canvasId: string | null;
  action: string;
  detail: unknown;
}
