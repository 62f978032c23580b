// SQL for Connection profiles, their sealed protected headers and grants.
import type { Database } from 'bun:sqlite';
import type { HttpMethod } from '../policy/document.ts';
import type { Sealed } from '../secrets/sealed.ts';

export interface Profile {
  name: string;
  /** Normalized https origin, e.g. `https://api.example.com` or `https://api.example.com:8443`. */
  origin: string;
  methods: HttpMethod[];
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface SealedHeader extends Sealed {
  header: string;
}

interface ProfileRow {
  name: string;
  origin: string;
  methods: string;
  enabled: number;
  created_at: number;
  updated_at: number;
}

interface HeaderRow {
  header: string;
  key_id: string;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
}

const toProfile = (r: ProfileRow): Profile => ({
  name: r.name,
  origin: r.origin,
  methods: JSON.parse(r.methods) as HttpMethod[],
  enabled: r.enabled === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class ConnectionStore {
  constructor(private readonly db: Database) {}

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  get(name: string): Profile | null {
    const r = this.db.query<ProfileRow, [string]>('SELECT * FROM connection_profiles WHERE name = ?').get(name);
    return r ? toProfile(r) : null;
  }

  list(): Profile[] {
    return this.db.query<ProfileRow, []>('SELECT * FROM connection_profiles ORDER BY name').all().map(toProfile);
  }

  insert(p: Profile): void {
    this.db
      .query('INSERT INTO connection_profiles (name, origin, methods, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(p.name, p.origin, JSON.stringify(p.methods), p.enabled ? 1 : 0, p.createdAt, p.updatedAt);
  }

  update(p: Profile): void {
    this.db
      .query('UPDATE connection_profiles SET origin = ?, methods = ?, enabled = ?, updated_at = ? WHERE name = ?')
      .run(p.origin, JSON.stringify(p.methods), p.enabled ? 1 : 0, p.updatedAt, p.name);
  }

  delete(name: string): boolean {
    this.db.query('DELETE FROM connection_grants WHERE profile_name = ?').run(name);
    this.db.query('DELETE FROM connection_protected_headers WHERE profile_name = ?').run(name);
    return this.db.query('DELETE FROM connection_profiles WHERE name = ?').run(name).changes > 0;
  }

  headers(name: string): SealedHeader[] {
    return this.db
      .query<HeaderRow, [string]>(
        'SELECT header, key_id, nonce, ciphertext FROM connection_protected_headers WHERE profile_name = ? ORDER BY header',
      )
      .all(name)
      .map((r) => ({ header: r.header, keyId: r.key_id, nonce: r.nonce, ciphertext: r.ciphertext }));
  }

  /** Header names and the key each was sealed with (no ciphertext): enough to tell if a profile is usable. */
  headerKeys(name: string): Array<{ header: string; keyId: string }> {
    return this.db
      .query<{ header: string; key_id: string }, [string]>(
        'SELECT header, key_id FROM connection_protected_headers WHERE profile_name = ? ORDER BY header',
      )
      .all(name)
      .map((r) => ({ header: r.header, keyId: r.key_id }));
  }

  putHeader(name: string, h: SealedHeader): void {
    this.db
      .query(
        `INSERT INTO connection_protected_headers (profile_name, header, key_id, nonce, ciphertext) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (profile_name, header) DO UPDATE SET key_id = excluded.key_id, nonce = excluded.nonce, ciphertext = excluded.ciphertext`,
      )
      .run(name, h.header, h.keyId, h.nonce, h.ciphertext);
  }

  deleteHeader(name: string, header: string): void {
    this.db.query('DELETE FROM connection_protected_headers WHERE profile_name = ? AND header = ?').run(name, header);
  }

  /** Idempotent: `created` is false when the grant existed (its grantedAt is kept). */
  grant(canvasId: string, name: string, now: number): { grantedAt: number; created: boolean } {
    const created =
      this.db
        .query('INSERT INTO connection_grants (canvas_id, profile_name, granted_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
        .run(canvasId, name, now).changes > 0;
    const row = this.db
      .query<{ granted_at: number }, [string, string]>('SELECT granted_at FROM connection_grants WHERE canvas_id = ? AND profile_name = ?')
      .get(canvasId, name)!;
    return { grantedAt: row.granted_at, created };
  }

  revoke(canvasId: string, name: string): boolean {
    return this.db.query('DELETE FROM connection_grants WHERE canvas_id = ? AND profile_name = ?').run(canvasId, name).changes > 0;
  }

  isGranted(canvasId: string, name: string): boolean {
    return this.db.query('SELECT 1 FROM connection_grants WHERE canvas_id = ? AND profile_name = ?').get(canvasId, name) !== null;
  }

  grantsOf(canvasId: string): Array<{ name: string; grantedAt: number }> {
    return this.db
      .query<{ profile_name: string; granted_at: number }, [string]>(
        'SELECT profile_name, granted_at FROM connection_grants WHERE canvas_id = ? ORDER BY profile_name',
      )
      .all(canvasId)
      .map((r) => ({ name: r.profile_name, grantedAt: r.granted_at }));
  }

  /** Ids of the (not deleted) canvases a profile is granted to. */
  canvasesOf(name: string): string[] {
    return this.db
      .query<{ canvas_id: string }, [string]>(
        `SELECT g.canvas_id FROM connection_grants g JOIN canvases c ON c.id = g.canvas_id
         WHERE g.profile_name = ? AND c.deleted_at IS NULL ORDER BY g.canvas_id`,
      )
      .all(name)
      .map((r) => r.canvas_id);
  }
}
