import { tx, type Sql, type TxSteps } from '../db/sql.ts';
import { newId } from '../ids.ts';
import { LISTED_IDS } from '../canvases/store.ts';

export type AuthoringAccess = 'private' | 'whole_org' | 'public_link' | 'password';

/** What authoring keeps beside an ordinary canvas row. */
export interface AuthoredRecord {
  canvasId: string;
  sourceCanvasId: string;
  createdBy: string;
  access: AuthoringAccess;
  tags: string[];
  metadata: Record<string, unknown>;
  revokedAt: number | null;
}

interface Row {
  canvas_id: string;
  source_canvas_id: string;
  created_by: string;
  access: AuthoringAccess;
  tags: string;
  metadata: string;
  revoked_at: number | null;
}

const toRecord = (r: Row): AuthoredRecord => ({
  canvasId: r.canvas_id,
  sourceCanvasId: r.source_canvas_id,
  createdBy: r.created_by,
  access: r.access,
  tags: JSON.parse(r.tags) as string[],
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  revokedAt: r.revoked_at,
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** A creation counted before its canvas exists: its ledger row names `pending:<id>` until settled. */
const PENDING = 'pending:';

export interface AuthoringLimits {
  daily: number;
  total: number;
}

export class AuthoringStore {
  constructor(private readonly sql: Sql) {}

  async insert(r: AuthoredRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO authored_canvases (canvas_id, source_canvas_id, created_by, access, tags, metadata, revoked_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
      r.canvasId,
      r.sourceCanvasId,
      r.createdBy,
      r.access,
      JSON.stringify(r.tags),
      JSON.stringify(r.metadata),
      r.revokedAt,
    );
  }

  async byCanvas(canvasId: string): Promise<AuthoredRecord | null> {
    const r = await this.sql.get<Row>('SELECT * FROM authored_canvases WHERE canvas_id = ?1', canvasId);
    return r ? toRecord(r) : null;
  }

  /** The authored records of every canvas in `userId`'s list, by canvas id: one read for the home list. */
  async listedFor(userId: string): Promise<Map<string, AuthoredRecord>> {
    const rows = await this.sql.all<Row>(`SELECT * FROM authored_canvases WHERE canvas_id IN (${LISTED_IDS})`, userId);
    return new Map(rows.map((r) => [r.canvas_id, toRecord(r)]));
  }

  async update(
    canvasId: string,
    patch: { access?: AuthoringAccess; tags?: string[]; metadata?: Record<string, unknown>; revokedAt?: number | null },
  ): Promise<void> {
    const columns = {
      access: patch.access,
      tags: patch.tags && JSON.stringify(patch.tags),
      metadata: patch.metadata && JSON.stringify(patch.metadata),
      revoked_at: patch.revokedAt,
    };
    const entries = Object.entries(columns).filter(([, v]) => v !== undefined) as Array<[string, string | number | null]>;
    if (entries.length === 0) return;
    await this.sql.run(
      `UPDATE authored_canvases SET ${entries.map(([k], i) => `${k} = ?${i + 1}`).join(', ')} WHERE canvas_id = ?${entries.length + 1}`,
      ...entries.map(([, v]) => v),
      canvasId,
    );
  }

  /** Authored canvases (not deleted) that `userId` owns or edits, newest first. */
  async managedBy(userId: string): Promise<AuthoredRecord[]> {
    const rows = await this.sql.all<Row>(
      `SELECT a.* FROM authored_canvases a JOIN canvases c ON c.id = a.canvas_id
       WHERE c.deleted_at IS NULL
         AND (c.owner_id = ?1 OR EXISTS (SELECT 1 FROM canvas_members m WHERE m.canvas_id = c.id AND m.user_id = ?1 AND m.role = 'editor'))
         AND a.created_by = ?1
       ORDER BY c.created_at DESC, c.id`,
      userId,
    );
    return rows.map(toRecord);
  }

  /**
   * Counts a creation against the quotas, or says which one it would pass.
   * The check and the count are one step under the user's lock, so creations
   * made at once cannot pass a quota together; a claim counts toward the
   * total until its canvas exists. Settle it with the canvas, or drop it
   * when the canvas could not be made.
   */
  claimCreation(userId: string, now: number, limits: AuthoringLimits): Promise<{ claim: string } | 'user_daily' | 'user_total'> {
    const claim = PENDING + newId();
    return this.sql.write(function* () {
      yield* tx.lock('authoring', userId);
      const used = yield* usageOf(userId, now);
      if (used.today >= limits.daily) return 'user_daily';
      if (used.total >= limits.total) return 'user_total';
      yield* tx.run('INSERT INTO authoring_creations (user_id, canvas_id, created_at) VALUES (?1, ?2, ?3)', userId, claim, now);
      return { claim };
    });
  }

  /** The claim's canvas exists: the ledger names it. */
  async settleClaim(claim: string, canvasId: string): Promise<void> {
    await this.sql.run('UPDATE authoring_creations SET canvas_id = ?2 WHERE canvas_id = ?1', claim, canvasId);
  }

  /** No canvas came of the claim: it counts for nothing. */
  async dropClaim(claim: string): Promise<void> {
    await this.sql.run('DELETE FROM authoring_creations WHERE canvas_id = ?1', claim);
  }
}

/** Creations in the UTC day of `now`, and authored canvases the user still owns (with claims still pending). */
function* usageOf(userId: string, now: number): TxSteps<{ today: number; total: number }> {
  const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
  const today = (yield* tx.get<{ n: number }>(
    'SELECT COUNT(*) AS n FROM authoring_creations WHERE user_id = ?1 AND created_at >= ?2',
    userId,
    dayStart,
  ))!.n;
  const owned = (yield* tx.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM authored_canvases a JOIN canvases c ON c.id = a.canvas_id
     WHERE a.created_by = ?1 AND c.owner_id = ?1 AND c.deleted_at IS NULL`,
    userId,
  ))!.n;
  const pending = (yield* tx.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM authoring_creations WHERE user_id = ?1 AND substr(canvas_id, 1, ${PENDING.length}) = '${PENDING}'`,
    userId,
  ))!.n;
  return { today, total: owned + pending };
}
