import type { Database } from 'bun:sqlite';
import type { Config } from './config.ts';

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
}

export const DEFAULT_AI_PRICES: Record<string, ModelPrice> = {
  'claude-sonnet-5-5': { input: 2, output: 10 },
  // Haiku 5.5 bills prompts over 100,000 tokens at 5x; one rate per model here, so long prompts are under-counted (the admin can raise it).
  'claude-haiku-5-5': { input: 0.1, output: 0.5 },
  'claude-opus-5-5': { input: 4, output: 20 },
};

type Key = keyof InstanceSettings;

/**
 * Instance settings: env gives the defaults, an admin's changes live in the
 * `settings` table and take effect at once. Reads come from memory.
 */
export class SettingsService {
  private cache: InstanceSettings | null = null;

  constructor(private readonly db: Database, private readonly config: Config, private readonly now: () => number) {}

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
    };
  }

  get(): InstanceSettings {
    if (this.cache) return this.cache;
    const merged: Record<string, unknown> = { ...this.defaults() };
    for (const row of this.db.query<{ key: string; value: string }, []>('SELECT key, value FROM settings').all()) {
      if (row.key in merged) merged[row.key] = JSON.parse(row.value);
    }
    this.cache = merged as unknown as InstanceSettings;
    return this.cache;
  }

  /** Saves the given keys (null resets a key to its env default). */
  update(patch: Partial<{ [K in Key]: InstanceSettings[K] | null }>): InstanceSettings {
    const upsert = this.db.query('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at');
    const remove = this.db.query('DELETE FROM settings WHERE key = ?');
    this.db.transaction(() => {
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined) continue;
        if (value === null) remove.run(key);
        else upsert.run(key, JSON.stringify(value), this.now());
      }
    })();
    this.cache = null;
    return this.get();
  }

  /** The settings as admins may read them: the provider key is never returned. */
  publicView(): Omit<InstanceSettings, 'aiApiKey'> & { aiApiKeySet: boolean } {
    const { aiApiKey, ...rest } = this.get();
    return { ...rest, aiApiKeySet: aiApiKey !== null && aiApiKey !== '' };
  }
}
