import type { Database } from 'bun:sqlite';
import { randomBytes } from 'node:crypto';

/** The settings row holding the gate-cookie signing secret (SettingsService ignores keys it does not know). */
export const GATE_SECRET_KEY = 'instance.gateSecret';

const secrets = new WeakMap<Database, Buffer>();

/**
 * A random 32-byte secret for this instance, created on first use and kept in
 * the database so passes survive restarts. `INSERT OR IGNORE` then read back:
 * two processes racing on first use end up with the same secret.
 */
export function instanceSecret(db: Database, now: () => number = Date.now): Buffer {
  const cached = secrets.get(db);
  if (cached) return cached;
  db.query('INSERT OR IGNORE INTO settings (key, value, updated_at) VALUES (?, ?, ?)').run(
    GATE_SECRET_KEY,
    JSON.stringify(randomBytes(32).toString('hex')),
    now(),
  );
  const row = db.query<{ value: string }, [string]>('SELECT value FROM settings WHERE key = ?').get(GATE_SECRET_KEY)!;
  const secret = Buffer.from(JSON.parse(row.value) as string, 'hex');
  secrets.set(db, secret);
  return secret;
}
