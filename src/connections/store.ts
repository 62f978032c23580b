// SQL for Connection profiles, their sealed protected headers and grants.
import { HeldSnapshot } from '../db/held-snapshot.ts';
import { tx, type Sql, type TxSteps } from '../db/sql.ts';
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

interface Held {
  profiles: Map<string, Profile>;
  headers: Map<string, SealedHeader[]>;
  /** canvas id → profile name → grantedAt */
  grants: Map<string, Map<string, number>>;
}

/** Profile and header rows as steps of an admin's change (`store.write(function* () { yield* connectionRows.insert(p) })`). */
export const connectionRows = {
  *insert(p: Profile): TxSteps<void> {
    yield* tx.run(
      'INSERT INTO connection_profiles (name, origin, methods, enabled, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)',
      p.name,
      p.origin,
      JSON.stringify(p.methods),
      p.enabled ? 1 : 0,
      p.createdAt,
      p.updatedAt,
    );
  },

  *update(p: Profile): TxSteps<void> {
    yield* tx.run(
      'UPDATE connection_profiles SET origin = ?1, methods = ?2, enabled = ?3, updated_at = ?4 WHERE name = ?5',
      p.origin,
      JSON.stringify(p.methods),
      p.enabled ? 1 : 0,
      p.updatedAt,
      p.name,
    );
  },

  *exists(name: string): TxSteps<boolean> {
    return (yield* tx.get('SELECT 1 AS found FROM connection_profiles WHERE name = ?1', name)) !== undefined;
  },

  *delete(name: string): TxSteps<boolean> {
    yield* tx.run('DELETE FROM connection_grants WHERE profile_name = ?1', name);
    yield* tx.run('DELETE FROM connection_protected_headers WHERE profile_name = ?1', name);
    return (yield* tx.run('DELETE FROM connection_profiles WHERE name = ?1', name)) > 0;
  },

  *putHeader(name: string, h: SealedHeader): TxSteps<void> {
    yield* tx.run(
      `INSERT INTO connection_protected_headers (profile_name, header, key_id, nonce, ciphertext) VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (profile_name, header) DO UPDATE SET key_id = excluded.key_id, nonce = excluded.nonce, ciphertext = excluded.ciphertext`,
      name,
      h.header,
      h.keyId,
      h.nonce,
      h.ciphertext,
    );
  },

  *deleteHeader(name: string, header: string): TxSteps<void> {
    yield* tx.run('DELETE FROM connection_protected_headers WHERE profile_name = ?1 AND header = ?2', name, header);
  },

  *headerCount(name: string): TxSteps<number> {
    return (yield* tx.get<{ n: number }>('SELECT count(*) AS n FROM connection_protected_headers WHERE profile_name = ?1', name))!.n;
  },
};

/**
 * Connection profiles, their sealed protected headers and grants. The
 * runtime's capability gate asks about them on every request, so they are
 * held in memory (a few rows an admin writes) and read without a wait;
 * changes go through the storage port and reload this node's copy before
 * they answer, and reach other nodes through the change signal.
 */
export class ConnectionStore {
  private readonly snapshot: HeldSnapshot<Held>;

  constructor(
    private readonly sql: Sql,
    onReloadError: (err: unknown) => void = () => {},
  ) {
    this.snapshot = new HeldSnapshot(sql, () => this.read(), onReloadError);
  }

  load(): Promise<unknown> {
    return this.snapshot.load();
  }

  /** The held copy once a reload begun by a read has landed (tests wait on it). */
  settled(): Promise<unknown> {
    return this.snapshot.settled();
  }

  /** An admin's change to profiles and headers: one transaction, one at a time, then this node's copy is reloaded. */
  async write<T>(body: () => TxSteps<T>): Promise<T> {
    const result = await this.sql.write(function* () {
      yield* tx.lock('connections');
      return yield* body();
    });
    await this.snapshot.load();
    return result;
  }

  get(name: string): Profile | null {
    return this.snapshot.get().profiles.get(name) ?? null;
  }

  list(): Profile[] {
    return [...this.snapshot.get().profiles.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  headers(name: string): SealedHeader[] {
    return this.snapshot.get().headers.get(name) ?? [];
  }

  /** Header names and the key each was sealed with (no ciphertext): enough to tell if a profile is usable. */
  headerKeys(name: string): Array<{ header: string; keyId: string }> {
    return this.headers(name).map((h) => ({ header: h.header, keyId: h.keyId }));
  }

  /** Idempotent: `created` is false when the grant existed (its grantedAt is kept). */
  async grant(canvasId: string, name: string, now: number): Promise<{ grantedAt: number; created: boolean }> {
    const done = await this.write(function* () {
      const created =
        (yield* tx.run(
          'INSERT INTO connection_grants (canvas_id, profile_name, granted_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING',
          canvasId,
          name,
          now,
        )) > 0;
      const row = yield* tx.get<{ granted_at: number }>(
        'SELECT granted_at FROM connection_grants WHERE canvas_id = ?1 AND profile_name = ?2',
        canvasId,
        name,
      );
      return { grantedAt: row!.granted_at, created };
    });
    return done;
  }

  revoke(canvasId: string, name: string): Promise<boolean> {
    return this.write(function* () {
      return (yield* tx.run('DELETE FROM connection_grants WHERE canvas_id = ?1 AND profile_name = ?2', canvasId, name)) > 0;
    });
  }

  isGranted(canvasId: string, name: string): boolean {
    return this.snapshot.get().grants.get(canvasId)?.has(name) ?? false;
  }

  grantsOf(canvasId: string): Array<{ name: string; grantedAt: number }> {
    const granted = this.snapshot.get().grants.get(canvasId);
    if (!granted) return [];
    return [...granted].map(([name, grantedAt]) => ({ name, grantedAt })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Ids of the (not deleted) canvases a profile is granted to. */
  async canvasesOf(name: string): Promise<string[]> {
    const rows = await this.sql.all<{ canvas_id: string }>(
      `SELECT g.canvas_id FROM connection_grants g JOIN canvases c ON c.id = g.canvas_id
       WHERE g.profile_name = ?1 AND c.deleted_at IS NULL ORDER BY g.canvas_id`,
      name,
    );
    return rows.map((r) => r.canvas_id);
  }

  private async read(): Promise<Held> {
    const [profiles, headers, grants] = await Promise.all([
      this.sql.all<ProfileRow>('SELECT * FROM connection_profiles'),
      this.sql.all<HeaderRow & { profile_name: string }>(
        'SELECT profile_name, header, key_id, nonce, ciphertext FROM connection_protected_headers ORDER BY profile_name, header',
      ),
      this.sql.all<{ canvas_id: string; profile_name: string; granted_at: number }>(
        'SELECT canvas_id, profile_name, granted_at FROM connection_grants',
      ),
    ]);
    const held: Held = { profiles: new Map(), headers: new Map(), grants: new Map() };
    for (const r of profiles) held.profiles.set(r.name, toProfile(r));
    for (const r of headers) {
      const list = held.headers.get(r.profile_name) ?? [];
      list.push({ header: r.header, keyId: r.key_id, nonce: new Uint8Array(r.nonce), ciphertext: new Uint8Array(r.ciphertext) });
      held.headers.set(r.profile_name, list);
    }
    for (const r of grants) {
      const granted = held.grants.get(r.canvas_id) ?? new Map<string, number>();
      granted.set(r.profile_name, r.granted_at);
      held.grants.set(r.canvas_id, granted);
    }
    return held;
  }
}
