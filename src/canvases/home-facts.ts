// What the dashboard's home shows of each canvas in a person's list besides
// its view: how many people are on its list, and when a version was last
// deployed. Two grouped reads for the whole list, not two per canvas.
import type { Sql } from '../db/sql.ts';
import { LISTED_IDS } from './store.ts';

export interface HomeFacts {
  /** People on the canvas's list (editors and viewers; the owner is not on it). */
  people: number;
  /** When its newest ready version was made (a deploy, a preview, a publish from the editor); null before the first. */
  lastDeployAt: number | null;
}

export async function homeFacts(sql: Sql, userId: string): Promise<Map<string, HomeFacts>> {
  const [people, deploys] = await Promise.all([
    sql.all<{ canvas_id: string; n: number }>(
      `SELECT canvas_id, COUNT(*) AS n FROM canvas_members WHERE canvas_id IN (${LISTED_IDS}) GROUP BY canvas_id`,
      userId,
    ),
    sql.all<{ canvas_id: string; at: number }>(
      `SELECT canvas_id, MAX(created_at) AS at FROM versions WHERE status = 'ready' AND canvas_id IN (${LISTED_IDS}) GROUP BY canvas_id`,
      userId,
    ),
  ]);
  const facts = new Map<string, HomeFacts>();
  const of = (id: string) => facts.get(id) ?? facts.set(id, { people: 0, lastDeployAt: null }).get(id)!;
  for (const r of people) of(r.canvas_id).people = Number(r.n);
  for (const r of deploys) of(r.canvas_id).lastDeployAt = Number(r.at);
  return facts;
}
