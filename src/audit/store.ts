import { likeLiteral } from '../db/like.ts';
import { findsNothing } from '../db/unstorable-text.ts';
import { tx, type Sql, type TxSteps } from '../db/sql.ts';
import type { AuditEntry } from './entry.ts';

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

interface NamedEntryRow extends EntryRow {
  actor_name: string | null;
  actor_email: string | null;
  canvas_title: string | null;
  canvas_slug: string | null;
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
    if (findsNothing(filter.action, filter.canvasId, filter.actorId)) return [];
    const where: string[] = [];
    const args: Array<string | number> = [];
    const param = (clause: string, value: string | number) => {
      args.push(value);
      where.push(clause.replace('?', `?${args.length}`));
    };
    if (filter.action) param("a.action LIKE ? ESCAPE '\\'", `${likeLiteral(filter.action)}%`);
    if (filter.canvasId) param('a.canvas_id = ?', filter.canvasId);
    if (filter.actorId) param('a.actor_id = ?', filter.actorId);
    if (filter.before !== undefined) param('a.id < ?', filter.before);
    args.push(limit);
    // Names are read now, not stored with the entry: the log says who did it as they are called today.
    const rows = await this.sql.all<NamedEntryRow>(
      `SELECT a.id, a.at, a.actor_id, a.actor_kind, a.canvas_id, a.action, a.detail,
              u.name AS actor_name, u.email AS actor_email, c.title AS canvas_title, c.slug AS canvas_slug
         FROM audit_log a
         LEFT JOIN users u ON u.id = a.actor_id
         LEFT JOIN canvases c ON c.id = a.canvas_id
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY a.id DESC LIMIT ?${args.length}`,
      ...args,
    );
    return rows.map((r) => ({
      id: r.id,
      at: r.at,
      actorId: r.actor_id,
      actorKind: r.actor_kind,
      actor: r.actor_email !== null ? { name: r.actor_name ?? '', email: r.actor_email } : null,
      canvasId: r.canvas_id,
      canvas: r.canvas_slug !== null ? { title: r.canvas_title ?? '', slug: r.canvas_slug } : null,
      action: r.action,
      detail: r.detail ? JSON.parse(r.detail) : null,
    }));
  }
}
