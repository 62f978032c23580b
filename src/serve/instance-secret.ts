import { randomBytes } from 'node:crypto';
import type { Sql } from '../db/sql.ts';

/** The settings row holding the gate-cookie signing secret (SettingsService ignores keys it does not know). */
export const GATE_SECRET_KEY = 'instance.gateSecret';

/**
 * A random 32-byte secret for this instance (gate passes, draft preview
 * tokens), created on first start and kept in the database so passes survive
 * restarts. Inserted if missing, then read back: nodes starting at once end up
 * with the same secret.
 */
export async function loadInstanceSecret(sql: Sql, now: () => number): Promise<Buffer> {
  await sql.run(
    'INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING',
    GATE_SECRET_KEY,
    JSON.stringify(randomBytes(32).toString('hex')),
    now(),
  );
  const row = (await sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?1', GATE_SECRET_KEY))!;
  return Buffer.from(JSON.parse(row.value) as string, 'hex');
}
