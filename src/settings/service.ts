import type { Config } from '../config.ts';
import { HeldSnapshot } from '../db/held-snapshot.ts';
import { tx, type Sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { open, seal, sealedFromJson, sealedToJson, settingPlace } from '../secrets/sealed.ts';

/** Per-model prices in USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

export interface InstanceSettings {
  aiModels: string[];
  aiPrices: Record<string, ModelPrice>;
  /** Write-only through the API; read here for the provider call. */
  aiApiKey: string | null;
  aiUserDailyUsd: number;
  aiCanvasMonthlyUsd: number;
  publicLinks: boolean;
  filesBytesFile: number;
  filesBytesCanvas: number;
  /** Canvases one person may own (deleted ones do not count). */
  userCanvases: number;
  /** Bytes one person's canvases may keep: deployed versions (kept for rollback) and runtime files. */
  userStorageBytes: number;
  /** Canvases one person may create per hour. */
  userCanvasCreatesPerHour: number;
}

export const DEFAULT_AI_PRICES: Record<string, ModelPrice> = {
  'claude-sonnet-5-5': { input: 2, output: 10 },
  // Haiku 5.5 bills prompts over 100,000 tokens at 5x; one rate per model here, so long prompts are under-counted (the admin can raise it).
  'claude-haiku-5-5': { input: 0.1, output: 0.5 },
  'claude-opus-5-5': { input: 4, output: 20 },
};

type Key = keyof InstanceSettings;

/** An `aiPrices` change: per model, a price to set, or null to remove that model's price. */
export type PricePatch = Record<string, ModelPrice | null>;

/**
 * A settings change: null resets a key to its env default. `aiPrices` is
 * merged per model into the effective table rather than replacing it.
 */
export type SettingsUpdate = Partial<{ [K in Exclude<Key, 'aiPrices'>]: InstanceSettings[K] | null }> & { aiPrices?: PricePatch | null };

/**
 * The effective price table: the built-in prices with the admin's changes
 * on top (a null entry removes that model's price).
 */
export function effectivePrices(overrides: PricePatch): Record<string, ModelPrice> {
  const prices: Record<string, ModelPrice> = { ...DEFAULT_AI_PRICES };
  for (const [model, price] of Object.entries(overrides)) {
    if (price === null) delete prices[model];
    else prices[model] = price;
  }
  return prices;
}

const UPSERT = `INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;

/**
 * Instance settings: env gives the defaults, an admin's changes live in the
 * `settings` table and take effect at once. Reads come from memory
 * (HeldSnapshot); this node's own update answers with the new settings.
 */
export class SettingsService {
  private readonly snapshot: HeldSnapshot<InstanceSettings>;

  constructor(
    private readonly sql: Sql,
    private readonly config: Config,
    private readonly now: () => number,
    onReloadError: (err: unknown) => void = () => {},
  ) {
    this.snapshot = new HeldSnapshot(sql, () => this.read(), onReloadError);
  }

  defaults(): InstanceSettings {
    return {
      aiModels: this.config.aiModels,
      aiPrices: DEFAULT_AI_PRICES,
      aiApiKey: this.config.aiApiKey,
      aiUserDailyUsd: this.config.aiUserDailyUsd,
      aiCanvasMonthlyUsd: this.config.aiCanvasMonthlyUsd,
      publicLinks: this.config.publicLinks,
      filesBytesFile: 25 * 1024 * 1024,
      filesBytesCanvas: 1024 * 1024 * 1024,
      userCanvases: this.config.userCanvases,
      userStorageBytes: this.config.userStorageBytes,
      userCanvasCreatesPerHour: this.config.userCanvasCreatesPerHour,
    };
  }

  /** Reads the stored settings into memory: at start, and after a change. */
  load(): Promise<InstanceSettings> {
    return this.snapshot.load();
  }

  get(): InstanceSettings {
    return this.snapshot.get();
  }

  /** The settings once a reload begun by a read has landed (tests wait on it). */
  settled(): Promise<InstanceSettings> {
    return this.snapshot.settled();
  }

  private async read(): Promise<InstanceSettings> {
    const merged: Record<string, unknown> = { ...this.defaults() };
    for (const row of await this.sql.all<{ key: string; value: string }>('SELECT key, value FROM settings')) {
      if (!(row.key in merged)) continue;
      const value = JSON.parse(row.value) as unknown;
      // The stored aiPrices are the admin's changes, not the whole table.
      if (row.key === 'aiPrices') merged[row.key] = effectivePrices(value as PricePatch);
      else if (row.key === 'aiApiKey') merged[row.key] = this.openKey(value);
      else merged[row.key] = value;
    }
    return merged as unknown as InstanceSettings;
  }

  /**
   * Saves the given keys (null resets a key to its env default). `aiPrices`
   * merges per model: a price sets that model's price, null removes it, and
   * models not named keep theirs (built-in ones included); `aiPrices: null`
   * puts the whole table back to the built-in prices.
   */
  async update(patch: SettingsUpdate): Promise<InstanceSettings> {
    const now = this.now();
    // Sealed before the transaction: a missing EASEL_SECRET_KEY refuses the whole update.
    const sealedKey =
      typeof patch.aiApiKey === 'string' ? sealedToJson(seal(this.secretKey(), settingPlace('aiApiKey'), patch.aiApiKey)) : null;
    await this.sql.write(function* () {
      // Two admins changing prices at once each merge into the other's table.
      yield* tx.lock('settings');
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined) continue;
        if (value === null) yield* tx.run('DELETE FROM settings WHERE key = ?1', key);
        else if (key === 'aiPrices') {
          const row = yield* tx.get<{ value: string }>('SELECT value FROM settings WHERE key = ?1', key);
          const overrides = mergePrices(row ? (JSON.parse(row.value) as PricePatch) : {}, value as PricePatch);
          if (Object.keys(overrides).length === 0) yield* tx.run('DELETE FROM settings WHERE key = ?1', key);
          else yield* tx.run(UPSERT, key, JSON.stringify(overrides), now);
        } else if (key === 'aiApiKey') yield* tx.run(UPSERT, key, sealedKey, now);
        else yield* tx.run(UPSERT, key, JSON.stringify(value), now);
      }
    });
    return this.load();
  }

  /**
   * The provider key as stored: sealed under EASEL_SECRET_KEY (null when it
   * does not open: the key is missing or another one), or a plaintext string
   * written before keys were sealed.
   */
  private openKey(stored: unknown): string | null {
    const sealed = sealedFromJson(stored);
    if (!sealed) return typeof stored === 'string' ? stored : null;
    const key = this.config.secretKey;
    return key ? open(key, settingPlace('aiApiKey'), sealed) : null;
  }

  private secretKey(): Uint8Array {
    const key = this.config.secretKey;
    if (!key)
      throw new AppError('SECRET_KEY_MISSING', 'the AI provider key is encrypted with EASEL_SECRET_KEY, which is not set on this instance');
    return key;
  }

  /**
   * Seals a provider key stored in plaintext by an older release, when
   * EASEL_SECRET_KEY is set; run once at start. `plaintext` when one is
   * stored and cannot be sealed yet (the caller warns).
   */
  async sealStoredSecrets(): Promise<'none' | 'sealed' | 'plaintext'> {
    const row = await this.sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?1', 'aiApiKey');
    if (!row) return 'none';
    const stored = JSON.parse(row.value) as unknown;
    if (typeof stored !== 'string') return 'none';
    if (!this.config.secretKey) return 'plaintext';
    const sealed = sealedToJson(seal(this.config.secretKey, settingPlace('aiApiKey'), stored));
    await this.sql.run('UPDATE settings SET value = ?1 WHERE key = ?2', sealed, 'aiApiKey');
    await this.load();
    return 'sealed';
  }

  /** The settings as admins may read them: the provider key is never returned. */
  publicView(): Omit<InstanceSettings, 'aiApiKey'> & { aiApiKeySet: boolean } {
    const { aiApiKey, ...rest } = this.get();
    return { ...rest, aiApiKeySet: aiApiKey !== null && aiApiKey !== '' };
  }
}

/** The admin's stored price changes with `patch` applied. A removal is kept only where it hides a built-in price. */
function mergePrices(overrides: PricePatch, patch: PricePatch): PricePatch {
  const next: PricePatch = { ...overrides };
  for (const [model, price] of Object.entries(patch)) {
    if (price !== null) next[model] = price;
    else if (Object.hasOwn(DEFAULT_AI_PRICES, model)) next[model] = null;
    else delete next[model];
  }
  return next;
}
