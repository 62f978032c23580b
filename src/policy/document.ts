// The runtime policy document (spec: Runtime policy document, Permission
// presets, Limits "Policy documents"): its types and its validation. Pure: no
// IO. Validation is plain code so every refusal names the exact path.
import { AppError } from '../errors.ts';
import { CREATE_RIGHTS, OPERATIONS, PRESETS, RIGHTS, type CreateRight, type Overrides, type Preset, type Right } from './presets.ts';

export { effectiveRights, PRESETS, OPERATIONS, RIGHTS, CREATE_RIGHTS } from './presets.ts';
export type { Preset, Operation, Right, CreateRight, Rights, Overrides } from './presets.ts';

export const DEFAULT_MODES = ['read_only', 'participation', 'collaboration'] as const;
export type DefaultMode = (typeof DEFAULT_MODES)[number];

export const AUDIENCE_RIGHTS = ['none', 'editors', 'viewers'] as const;
/** Who may do something that has no author: nobody, owners and editors, or every participant. */
export type AudienceRight = (typeof AUDIENCE_RIGHTS)[number];

export const CONNECTION_AUDIENCES = ['editors', 'viewers'] as const;
export type ConnectionAudience = (typeof CONNECTION_AUDIENCES)[number];

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface CollectionPolicy {
  preset: Preset;
  overrides?: Overrides;
  /** Who may call `count`; absent means nobody. */
  aggregateCount?: AudienceRight;
}

export interface FileGroupPolicy {
  preset: Preset;
  overrides?: Overrides;
}

export interface ChannelPolicy {
  subscribe: AudienceRight;
  publish: AudienceRight;
  seePresence: AudienceRight;
  participatePresence: AudienceRight;
}

export interface ConnectionPolicy {
  audience: ConnectionAudience;
  /** Absent: every method the profile's grant allows. */
  methods?: HttpMethod[];
}

export interface PolicyDocument {
  /** Only the dashboard's starting choice for new resources; grants nothing. */
  defaultMode?: DefaultMode;
  collections?: Record<string, CollectionPolicy>;
  fileGroups?: Record<string, FileGroupPolicy>;
  channels?: Record<string, ChannelPolicy>;
  connections?: Record<string, ConnectionPolicy>;
}

export const MAX_ENTRIES_PER_TYPE = 50;
export const RESOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9.:_-]{0,79}$/;

/**
 * Names a lookup like `doc.collections[name]` would find on every object.
 * Most start with "_" and fail RESOURCE_NAME anyway; the rest are refused here.
 */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

export function isReservedName(name: string): boolean {
  return PROTOTYPE_NAMES.has(name);
}

type Json = Record<string, unknown>;

class Checker {
  constructor(private readonly root: string) {}

  fail(path: string[], message: string): never {
    throw new AppError('INVALID_BODY', `${[this.root, ...path].join('.')}: ${message}`);
  }

  object(value: unknown, path: string[]): Json {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(path, 'expected an object');
    return value as Json;
  }

  /** Refuses any key outside `allowed` ("Unknown fields ... are rejected"). */
  fields(value: Json, allowed: readonly string[], path: string[]): void {
    for (const key of Object.keys(value)) if (!allowed.includes(key)) this.fail([...path, key], 'unknown field');
  }

  oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string[]): T {
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
      this.fail(path, `expected one of ${allowed.join(', ')}`);
    return value as T;
  }

  /** A name → entry map: at most 50 entries, each name valid and not an Object.prototype name. */
  map<T>(value: unknown, path: string[], entry: (v: unknown, path: string[]) => T): Record<string, T> {
    const obj = this.object(value, path);
    const names = Object.keys(obj);
    if (names.length > MAX_ENTRIES_PER_TYPE) this.fail(path, `at most ${MAX_ENTRIES_PER_TYPE} entries (got ${names.length})`);
    const out: Record<string, T> = {};
    for (const name of names) {
      if (!RESOURCE_NAME.test(name))
        this.fail([...path, name], 'names are 1-80 ASCII letters, digits, ".", ":", "_" or "-", starting with a letter or digit');
      if (isReservedName(name)) this.fail([...path, name], 'reserved name');
      out[name] = entry(obj[name], [...path, name]);
    }
    return out;
  }

  overrides(value: unknown, path: string[]): Overrides {
    const obj = this.object(value, path);
    this.fields(obj, OPERATIONS, path);
    const out: Overrides = {};
    for (const op of OPERATIONS) {
      if (obj[op] === undefined) continue;
      if (op === 'create') out.create = this.oneOf<CreateRight>(obj[op], CREATE_RIGHTS, [...path, op]);
      else out[op] = this.oneOf<Right>(obj[op], RIGHTS, [...path, op]);
    }
    return out;
  }

  collection = (value: unknown, path: string[]): CollectionPolicy => {
    const obj = this.object(value, path);
    this.fields(obj, ['preset', 'overrides', 'aggregateCount'], path);
    const out: CollectionPolicy = { preset: this.oneOf(obj.preset, PRESETS, [...path, 'preset']) };
    if (obj.overrides !== undefined) out.overrides = this.overrides(obj.overrides, [...path, 'overrides']);
    if (obj.aggregateCount !== undefined) out.aggregateCount = this.oneOf(obj.aggregateCount, AUDIENCE_RIGHTS, [...path, 'aggregateCount']);
    return out;
  };

  fileGroup = (value: unknown, path: string[]): FileGroupPolicy => {
    const obj = this.object(value, path);
    this.fields(obj, ['preset', 'overrides'], path);
    const out: FileGroupPolicy = { preset: this.oneOf(obj.preset, PRESETS, [...path, 'preset']) };
    if (obj.overrides !== undefined) out.overrides = this.overrides(obj.overrides, [...path, 'overrides']);
    return out;
  };

  channel = (value: unknown, path: string[]): ChannelPolicy => {
    const obj = this.object(value, path);
    const keys = ['subscribe', 'publish', 'seePresence', 'participatePresence'] as const;
    this.fields(obj, keys, path);
    // The spec gives channels no defaults, so every right is stated.
    const right = (k: (typeof keys)[number]) =>
      obj[k] === undefined ? this.fail([...path, k], 'required') : this.oneOf(obj[k], AUDIENCE_RIGHTS, [...path, k]);
    return {
      subscribe: right('subscribe'),
      publish: right('publish'),
      seePresence: right('seePresence'),
      participatePresence: right('participatePresence'),
    };
  };

  connection = (value: unknown, path: string[]): ConnectionPolicy => {
    const obj = this.object(value, path);
    this.fields(obj, ['audience', 'methods'], path);
    const out: ConnectionPolicy = { audience: this.oneOf(obj.audience, CONNECTION_AUDIENCES, [...path, 'audience']) };
    if (obj.methods !== undefined) {
      if (!Array.isArray(obj.methods)) this.fail([...path, 'methods'], 'expected an array');
      const methods = obj.methods.map((m, i) => this.oneOf(m, HTTP_METHODS, [...path, 'methods', String(i)]));
      if (new Set(methods).size !== methods.length) this.fail([...path, 'methods'], 'each method at most once');
      out.methods = methods;
    }
    return out;
  };
}

/**
 * Checks a policy document sent on capability update and returns a clean copy
 * holding exactly the validated fields. Throws 400 INVALID_BODY whose message
 * starts with the offending path (e.g. `runtimePolicy.collections.notes.preset`).
 */
export function validatePolicyDocument(input: unknown, root = 'runtimePolicy'): PolicyDocument {
  const c = new Checker(root);
  const obj = c.object(input, []);
  c.fields(obj, ['defaultMode', 'collections', 'fileGroups', 'channels', 'connections'], []);
  const doc: PolicyDocument = {};
  if (obj.defaultMode !== undefined) doc.defaultMode = c.oneOf(obj.defaultMode, DEFAULT_MODES, ['defaultMode']);
  if (obj.collections !== undefined) doc.collections = c.map(obj.collections, ['collections'], c.collection);
  if (obj.fileGroups !== undefined) doc.fileGroups = c.map(obj.fileGroups, ['fileGroups'], c.fileGroup);
  if (obj.channels !== undefined) doc.channels = c.map(obj.channels, ['channels'], c.channel);
  if (obj.connections !== undefined) doc.connections = c.map(obj.connections, ['connections'], c.connection);
  return doc;
}
