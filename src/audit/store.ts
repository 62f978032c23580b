import { likeLiteral } from '../db/like.ts';
import { tx, type Sql, type TxSteps } from '../db/sql.ts';

export type ActorKind = 'user' | 'guest' | 'admin' | 'key' | 'token' | 'system';

export interface AuditEvent {
  actorId: string | null;
  actorKind: ActorKind;
  canvasId: string | null;
  action: string;
  /** Metadata only (ids, field names, counts): never values, keys, tokens or passwords. */
  detail?: Record<string, unknown>;
}

const INSERT = 'INSERT INTO audit_log (at, actor_id, actor_kind, canvas_id, action, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)';

interface EntryRow {
  id: number;
  at: number;
  actor_id: string | null;
  actor_kind: string;
  canvas_id: string | null;
  action: string;
  detail: string | null;
}

export class AuditLog {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number,
  ) {}

  async record(e: AuditEvent): Promise<void> {
    await this.sql.run(INSERT, ...this.values(e));
  }

  /** The same entry as a step of a write transaction, so it rolls back with it. */
  *steps(e: AuditEvent): TxSteps<void> {
    yield* tx.run(INSERT, ...this.values(e));
  }

  private values(e: AuditEvent): [number, string | null, string, string | null, string, string | null] {
    return [this.now(), e.actorId, e.actorKind, e.canvasId, e.action, e.detail ? JSON.stringify(e.detail) : null];
  }

  async forCanvas(
    canvasId: string,
    limit = 100,
  ): Promise<Array<{ at: number; actorId: string | null; actorKind: string; action: string; detail: unknown }>> {
    const rows = await this.sql.all<EntryRow>(
      'SELECT id, at, actor_id, actor_kind, canvas_id, action, detail FROM audit_log WHERE canvas_id = ?1 ORDER BY id DESC LIMIT ?2',
      canvasId,
      limit,
    );
    return rows.map((r) => ({
      at: r.at,
      actorId: r.actor_id,
      actorKind: r.actor_kind,
      action: r.action,
      detail: r.detail ? JSON.parse(r.detail) : null,
    }));
  }

  /** The newest entries first, narrowed by any of the filters, at most `limit` (admins' audit viewer). */
  async search(filter: { action?: string; canvasId?: string; actorId?: string; before?: number }, limit: number): Promise<AuditEntry[]> {
    const where: string[] = [];
    const args: Array<string | number> = [];
    const param = (clause: string, value: string | number) => {
      args.push(value);
      where.push(clause.replace('?', `?${args.length}`));
    };
    if (filter.action) param("action LIKE ? ESCAPE '\\'", `${likeLiteral(filter.action)}%`);
    if (filter.canvasId) param('canvas_id = ?', filter.canvasId);
    if (filter.actorId) param('actor_id = ?', filter.actorId);
    if (filter.before !== undefined) param('id < ?', filter.before);
    args.push(limit);
    const rows = await this.sql.all<EntryRow>(
      `SELECT id, at, actor_id, actor_kind, canvas_id, action, detail FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?${args.length}`,
      ...args,
    );
    return rows.map((r) => ({
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
