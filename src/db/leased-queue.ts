// The claiming half of a durable work queue kept in a table (the
// notification outbox, webhook deliveries): rows with `state`,
// `next_attempt_at`, `lease_until` and `lease_node`. Every node may see a row
// due; the conditional UPDATE lets exactly one take its lease and work it. A
// lease outlives only a node that died mid-work; then the row goes again.
import type { Sql } from './sql.ts';

export class LeasedQueue {
  /** `table` is one of ours, never caller input. */
  constructor(
    private readonly sql: Sql,
    private readonly table: string,
  ) {}

  /** Ids of rows due now whose lease (if any) ran out, oldest first. */
  async due(now: number, limit: number): Promise<string[]> {
    const rows = await this.sql.all<{ id: string }>(
      `SELECT id FROM ${this.table} WHERE state = 'pending' AND next_attempt_at <= ?1 AND lease_until <= ?1
       ORDER BY next_attempt_at LIMIT ?2`,
      now,
      limit,
    );
    return rows.map((r) => r.id);
  }

  /** Takes the lease on `id` for `node` until `until`, unless another node holds an unexpired one (false: somebody else works it). */
  async claim(id: string, now: number, until: number, node: string): Promise<boolean> {
    const won = await this.sql.run(
      `UPDATE ${this.table} SET lease_until = ?1, lease_node = ?2
       WHERE id = ?3 AND state = 'pending' AND next_attempt_at <= ?4 AND lease_until <= ?4`,
      until,
      node,
      id,
      now,
    );
    return won === 1;
  }

  /**
   * Frees every lease: at start (one process on its own database) no work of
   * this process is under way, so a lease still held belonged to a process
   * that died mid-work; its rows go again (at least once).
   */
  releaseAll(): Promise<number> {
    return this.sql.run(`UPDATE ${this.table} SET lease_until = 0 WHERE state = 'pending' AND lease_until > 0`);
  }
}
