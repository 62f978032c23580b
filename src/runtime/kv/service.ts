import { AppError } from '../../errors.ts';
import { parseJsonText, TOO_DEEP_MESSAGE } from '../../http/json-text.ts';
import { Value } from '@sinclair/typebox/value';
import { KvIncrementBody, RESERVED_SHARED_KEY } from './model.ts';
import type { RuntimeCaller } from '../pipeline.ts';
import type { UsageCounters } from '../usage.ts';
import type { KvRow, KvScope, KvSpace, KvStore } from './store.ts';

export const KV_LIMITS = {
  keyBytes: 512,
  valueBytes: 64 * 1024,
  /** Quota keys kv.keys.shared and kv.keys.user: new keys only, updates always succeed. */
  sharedKeys: 10_000,
  userKeys: 1_000,
  listDefault: 100,
  listMax: 1_000,
} as const;

export interface ListQuery {
  prefix?: string | null;
  cursor?: string | null;
  limit?: string | null;
}

export interface KvPage {
  entries: KvRow[];
  nextCursor: string | null;
}

const utf8 = new TextEncoder();
/** UTF-8 length over `max`? A UTF-16 unit is 1 to 3 bytes, so most strings need no encoding to tell. */
export function overBytes(s: string, max: number): boolean {
  if (s.length > max) return true;
  if (s.length * 3 <= max) return false;
  return utf8.encode(s).byteLength > max;
}

/**
 * The KV rules: shared keys (everyone admitted reads, owners and editors
 * write) and per-viewer keys (bound to the server-resolved caller id; the
 * client never names whose). Values travel as JSON text.
 */
export class KvService {
  constructor(
    private readonly store: KvStore,
    private readonly usage: UsageCounters,
    private readonly now: () => number,
  ) {}

  /** How many shared keys a canvas holds (its page of the management API shows it against the quota). */
  sharedKeyCount(canvasId: string): Promise<number> {
    return this.store.count({ canvasId, scope: 'shared', ownerId: '' });
  }

  /** Role check for set, delete and increment. */
  assertWritable(caller: RuntimeCaller, scope: KvScope): void {
    if (scope === 'shared' && caller.role !== 'owner' && caller.role !== 'editor') {
      throw new AppError('PERMISSION_DENIED', 'only owners and editors may change shared keys');
    }
  }

  /**
   * A key from its (decoded) path segment: at most 512 bytes of UTF-8. The
   * shared key `user` cannot be written: /kv/user is the per-viewer list.
   */
  checkKey(key: string | null, scope: KvScope): string {
    // A NUL is no key on either engine (Postgres cannot store one): the same answer everywhere.
    if (key === null || key === '' || key.includes('\0')) throw new AppError('INVALID_BODY', 'malformed key');
    if (scope === 'shared' && key === RESERVED_SHARED_KEY) {
      throw new AppError('INVALID_BODY', 'the shared key name "user" is reserved: /kv/user is the per-viewer scope');
    }
    if (overBytes(key, KV_LIMITS.keyBytes)) {
      throw new AppError('KEY_TOO_LARGE', `keys are at most ${KV_LIMITS.keyBytes} bytes`);
    }
    return key;
  }

  /** The stored JSON text, or NOT_FOUND. */
  async get(caller: RuntimeCaller, scope: KvScope, key: string): Promise<string> {
    this.usage.add(caller.canvas.id, 'kvReads');
    const value = await this.store.get(spaceOf(caller, scope), key);
    if (value === null) throw new AppError('NOT_FOUND', 'no such key');
    return value;
  }

  /** `contains`: only entries whose key or value text holds it (the dashboard's search; the runtime API has none). */
  async list(caller: RuntimeCaller, scope: KvScope, query: ListQuery, contains: string | null = null): Promise<KvPage> {
    const prefix = query.prefix ?? '';
    const cursor = query.cursor ?? '';
    if (overBytes(prefix, KV_LIMITS.keyBytes)) throw new AppError('INVALID_BODY', 'prefix longer than a key');
    if (overBytes(cursor, KV_LIMITS.keyBytes)) throw new AppError('INVALID_BODY', 'malformed cursor');
    const limit = clampLimit(query.limit);
    this.usage.add(caller.canvas.id, 'kvReads');
    const rows = await this.store.list(spaceOf(caller, scope), { prefix, cursor, limit: limit + 1, contains });
    const more = rows.length > limit;
    const entries = more ? rows.slice(0, limit) : rows;
    return { entries, nextCursor: more ? entries[entries.length - 1]!.key : null };
  }

  /**
   * Stores any JSON value but null. `body` is the raw request text; the
   * checks after the key run in the spec's order: body, value size, key count.
   */
  async put(caller: RuntimeCaller, scope: KvScope, key: string, body: string): Promise<void> {
    const parsed = parseJsonText(body);
    if (!parsed.ok) throw new AppError('INVALID_BODY', parsed.problem === 'too_deep' ? TOO_DEEP_MESSAGE : 'the body must be a JSON value');
    const value = parsed.value;
    if (value === null) throw new AppError('INVALID_BODY', 'null cannot be stored; delete the key instead');
    const text = JSON.stringify(value);
    if (overBytes(text, KV_LIMITS.valueBytes)) throw valueTooLarge();
    this.usage.add(caller.canvas.id, 'kvWrites');
    if ((await this.store.put(spaceOf(caller, scope), key, text, quotaOf(scope), this.now())) === 'key_limit') throw keyLimit(scope);
  }

  async delete(caller: RuntimeCaller, scope: KvScope, key: string): Promise<void> {
    this.usage.add(caller.canvas.id, 'kvWrites');
    await this.store.delete(spaceOf(caller, scope), key);
  }

  /** Adds `by` (default 1) and returns the new value as JSON text. A missing or malformed body is `{}`. */
  async increment(caller: RuntimeCaller, scope: KvScope, key: string, body: string | null): Promise<string> {
    const by = incrementBy(body);
    this.usage.add(caller.canvas.id, 'kvWrites');
    const outcome = await this.store.increment(spaceOf(caller, scope), key, by, quotaOf(scope), this.now());
    if (outcome === 'not_numeric') throw new AppError('NOT_NUMERIC', 'the stored value is not a number');
    if (outcome === 'key_limit') throw keyLimit(scope);
    if (outcome === 'not_finite') throw new AppError('INVALID_BODY', 'the result would not be a finite number');
    return outcome.value;
  }
}

export const valueTooLarge = () => new AppError('VALUE_TOO_LARGE', `values are at most ${KV_LIMITS.valueBytes} bytes once serialized`);

function keyLimit(scope: KvScope): AppError {
  const quota = scope === 'shared' ? 'kv.keys.shared' : 'kv.keys.user';
  return new AppError('KEY_LIMIT', `key limit reached (${quota}: ${quotaOf(scope)})`, { quota });
}

function quotaOf(scope: KvScope): number {
  return scope === 'shared' ? KV_LIMITS.sharedKeys : KV_LIMITS.userKeys;
}

function spaceOf(caller: RuntimeCaller, scope: KvScope): KvSpace {
  return { canvasId: caller.canvas.id, scope, ownerId: scope === 'shared' ? '' : caller.actorId };
}

/** 1..1000, default 100; a value that is not a number is ignored (CONTRACT §9). */
export function clampLimit(raw: string | null | undefined): number {
  if (raw === null || raw === undefined || !/^\s*-?\d+(\.\d+)?\s*$/.test(raw)) return KV_LIMITS.listDefault;
  return Math.min(KV_LIMITS.listMax, Math.max(1, Math.floor(Number(raw))));
}

function incrementBy(body: string | null): number {
  const parsed = body === null || body.trim() === '' ? null : parseJsonText(body);
  const value = parsed?.ok && typeof parsed.value === 'object' && parsed.value !== null && !Array.isArray(parsed.value) ? parsed.value : {};
  const by = (value as { by?: unknown }).by;
  if (by === undefined) return 1;
  if (!Value.Check(KvIncrementBody, { by }) || !Number.isFinite(by)) throw new AppError('INVALID_BODY', '`by` must be a finite number');
  return by as number;
}
