import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { statSync } from 'node:fs';
import { isCidrOrAddress } from './net/ip.ts';
import { parseBlobUrl } from './blobs/remote.ts';
import type { S3Settings } from './blobs/s3-remote.ts';

// The environment table of CONTRACT §2: one row per variable, parsed once at
// start. An invalid value stops the start with one line naming the variable.

export type UrlMode = 'path' | 'subdomain';

/** EASEL_REDIS_URL, checked: what the Redis clients connect to. */
export interface RedisSettings {
  /** As configured (it may hold a password: never logged). */
  url: string;
  /** The logical database (`/db`, default 0). Pub/sub ignores databases, so channel names carry it. */
  db: number;
  /** The URL without credentials, for the start line and logs. */
  display: string;
}
/** EASEL_DATABASE_URL, checked: the Postgres database every node of a cluster shares. */
export interface DatabaseSettings {
  /** As configured (it may hold a password: never logged). */
  url: string;
  /** The URL without credentials, for the start line. */
  display: string;
}

/** EASEL_SMTP_URL, checked: the mail relay notifications go through. */
export interface SmtpSettings {
  /** As configured (it may hold a user and password: never logged). */
  url: string;
  /** The URL without credentials, for the start line and logs. */
  display: string;
}

export type AuthMode = 'dev' | 'proxy' | 'oidc';

export interface Config {
  dataDir: string;
  host: string;
  port: number;
  baseUrl: string;
  apiBaseUrl: string;
  urlMode: UrlMode;
  /** Path mode under proxy or oidc sign-in: the operator's word that every author is trusted (see checkPathMode). */
  pathModeTrustedAuthors: boolean;
  canvasHost: string;
  /** A Content-Security-Policy for canvas files (EASEL_CANVAS_CSP); null: only Easel's frame-ancestors. */
  canvasCsp: string | null;
  authMode: AuthMode;
  adminEmails: string[];
  /** EASEL_COOKIE_DOMAIN as set; no cookie uses it (every session is host-only), so the start line warns that it is ignored. */
  cookieDomain: string | null;
  tenancy: boolean;
  publicLinks: boolean;
  rateLimitEnabled: boolean;
  rateLimitDeployPerMin: number;
  rateLimitAiPerMin: number;
  rateLimitCanvasApiPerMin: number;
  rateLimitManagementPerMin: number;
  aiApiKey: string | null;
  aiBaseUrl: string | null;
  aiModels: string[];
  aiUserDailyUsd: number;
  aiCanvasMonthlyUsd: number;
  /** Per-person limits (admins may change them at runtime): canvases owned, bytes kept, creations per hour. */
  userCanvases: number;
  userStorageBytes: number;
  userCanvasCreatesPerHour: number;
  realtime: boolean;
  authoring: boolean;
  authoringAllowedRungs: string[];
  authoringMaxExpiryDays: number;
  authoringRequireExpiry: boolean;
  authoringUserDailyMax: number;
  authoringUserTotalMax: number;
  secretKey: Uint8Array | null;
  connectionsCaFile: string | null;
  connectionsResolve: string | null;
  proxyEmailHeader: string;
  proxyNameHeader: string;
  proxyTrustedCidrs: string[];
  oidcIssuer: string | null;
  oidcClientId: string | null;
  oidcClientSecret: string | null;
  oidcScopes: string;
  oidcEmailClaim: string;
  oidcNameClaim: string;
  /** The claim listing the person's groups at the provider (EASEL_OIDC_GROUPS_CLAIM). */
  oidcGroupsClaim: string;
  /** Members of any of these provider groups are instance admins, besides adminEmails (EASEL_OIDC_ADMIN_GROUPS). */
  oidcAdminGroups: string[];
  sessionTtlHours: number;
  /** Audit rows older than this many days are removed by housekeeping. */
  auditRetentionDays: number;
  /** Writes are refused (507) when less than this many bytes would stay free on the data directory's disk. */
  minFreeDiskBytes: number;
  /** EASEL_BLOB_URL with the S3 variables: blobs kept on S3, the data directory caching copies; null: blobs in the data directory. */
  blobStore: S3Settings | null;
  /** The local cache's bound with a remote blob store (EASEL_BLOB_CACHE_MB). */
  blobCacheBytes: number;
  /** EASEL_REDIS_URL: realtime shared with the other nodes through this Redis; null: one process, in memory. */
  redis: RedisSettings | null;
  /** EASEL_DATABASE_URL: Postgres instead of the SQLite database in the data directory (null). */
  database: DatabaseSettings | null;
  /** EASEL_SMTP_URL: notifications are mailed through this relay; null: no email is sent. */
  smtp: SmtpSettings | null;
  /** EASEL_SMTP_FROM: the From address of every notification. */
  smtpFrom: string;
  /** Bearer token that may read GET /metrics (admins may always); null: admins only. */
  metricsToken: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

/** Variables whose value must never be echoed, not even in a refusal. */
const SECRET_VARIABLES = new Set([
  'EASEL_SECRET_KEY',
  'EASEL_AI_API_KEY',
  'EASEL_OIDC_CLIENT_SECRET',
  'EASEL_METRICS_TOKEN',
  'EASEL_BLOB_URL',
  // redis://user:password@host: the URL may carry a password.
  'EASEL_REDIS_URL',
  'EASEL_DATABASE_URL',
  // smtp://user:password@relay: the URL may carry a password.
  'EASEL_SMTP_URL',
]);

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    expected: string,
    value: string,
  ) {
    const shown = SECRET_VARIABLES.has(variable) ? `a value of ${value.length} characters (not shown)` : JSON.stringify(value);
    super(`${variable}: expected ${expected}, got ${shown}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * A row's type: a TypeBox schema the converted value must satisfy, plus an
 * optional step that turns the checked value into what Config holds.
 */
interface Parser<T> {
  expected: string;
  parse(raw: string): T | undefined;
}

function typed<S extends TSchema, T = Static<S>>(
  expected: string,
  schema: S,
  prepare: (raw: string) => unknown = (r) => r.trim(),
  finish: (v: Static<S>) => T | undefined = (v) => v as unknown as T,
): Parser<T> {
  return {
    expected,
    parse(raw) {
      const value = Value.Convert(schema, prepare(raw));
      return Value.Check(schema, value) ? finish(value as Static<S>) : undefined;
    },
  };
}

const str = typed('a non-empty string', Type.String({ minLength: 1 }));
const bool = typed('on/off, true/false, 1/0 or yes/no', Type.Boolean(), (r) => {
  const v = r.trim().toLowerCase();
  return (
    (
      { on: true, yes: true, true: true, '1': true, off: false, no: false, false: false, '0': false } as Record<string, boolean | undefined>
    )[v] ?? v
  );
});
const int = (minimum: number, maximum: number) =>
  typed(`an integer from ${minimum} to ${maximum}`, Type.Integer({ minimum, maximum }), (r) =>
    /^\d+$/.test(r.trim()) ? Number(r.trim()) : Number.NaN,
  );
const usd = typed('a non-negative number of US dollars', Type.Number({ minimum: 0 }), (r) =>
  /^\d+(\.\d+)?$/.test(r.trim()) ? Number(r.trim()) : Number.NaN,
);
const oneOf = <T extends string>(...values: T[]) =>
  typed(values.join(' or '), Type.Union(values.map((v) => Type.Literal(v))), (r) => r.trim().toLowerCase()) as Parser<T>;
const list = (item: RegExp, what: string) =>
  typed(`a comma-separated list of ${what}`, Type.Array(Type.String({ pattern: item.source }), { minItems: 1 }), (r) =>
    r
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
const urlOf = (expected: string, accept: (u: URL) => boolean, finish: (u: URL, raw: string) => string) =>
  typed(
    expected,
    Type.String({ pattern: '^https?://' }),
    (r) => r.trim(),
    (raw) => {
      try {
        const u = new URL(raw);
        return accept(u) ? finish(u, raw) : undefined;
      } catch {
        return undefined;
      }
    },
  );
const httpUrl = urlOf(
  'an http(s) URL without path, query or fragment',
  (u) => (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash && !u.username,
  (u) => u.origin,
);
const anyUrl = urlOf(
  'an http(s) URL',
  () => true,
  (_u, raw) => raw.replace(/\/+$/, ''),
);
const hostname = typed('a host name, optionally with :port', Type.String({ pattern: '^[a-z0-9.-]+(:\\d{1,5})?$' }), (r) =>
  r.trim().toLowerCase(),
);
// One header value: printable ASCII, directives separated by ";".
const cspPolicy = typed(
  'a Content-Security-Policy (printable ASCII, at most 4096 characters)',
  Type.String({ pattern: '^[\\x20-\\x7e]{1,4096}$' }),
);
// A cookie Domain attribute carries no port; one leading dot is legacy syntax browsers ignore.
const cookieDomain = typed(
  'a domain name such as example.com',
  Type.String({ pattern: '^\\.?[a-z0-9-]+(\\.[a-z0-9-]+)*$' }),
  (r) => r.trim().toLowerCase(),
  (v) => v.replace(/^\./, ''),
);
// Checked at start so a typo fails now, not at the first outbound call.
const existingFile = typed(
  'the path of an existing file',
  Type.String({ minLength: 1 }),
  (r) => r.trim(),
  (v) => (isFile(v) ? v : undefined),
);
const secretKey = typed(
  '32 bytes as base64 or hex',
  Type.String({ pattern: '^[A-Za-z0-9+/_=-]+$' }),
  (r) => r.trim(),
  (v) => {
    const bytes = /^[0-9a-f]{64}$/i.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
    return bytes.length === 32 ? Uint8Array.from(bytes) : undefined;
  },
);
const resolvePins = typed(
  'host:port:address entries separated by commas',
  Type.Array(Type.String({ pattern: '^[a-z0-9.-]+:\\d{1,5}:(\\[[0-9a-f:.]+\\]|[0-9a-f:.]+)$' }), { minItems: 1 }),
  (r) =>
    r
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  (v) => v.join(','),
);
/** Long enough that guessing it is hopeless; printable, so it fits a scrape config. */
const metricsToken = typed(
  'at least 24 printable ASCII characters (e.g. openssl rand -hex 24)',
  Type.String({ minLength: 24, pattern: '^[\\x21-\\x7e]+$' }),
);
const cidrList = typed(
  'a comma-separated list of IP addresses or CIDR ranges',
  Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  (r) =>
    r
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  (v) => (v.every(isCidrOrAddress) ? v : undefined),
);
// RFC 9110 token characters.
const headerName = typed(
  'an HTTP header name',
  Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" }),
  (r) => r.trim(),
  (v) => v.toLowerCase(),
);

export const DEFAULT_AI_MODELS = ['claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-5-5'];

function read<T>(env: Env, name: string, parser: Parser<T>): T | undefined;
function read<T>(env: Env, name: string, parser: Parser<T>, fallback: T): T;
function read<T>(env: Env, name: string, parser: Parser<T>, fallback?: T): T | undefined {
  KNOWN.add(name);
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = parser.parse(raw);
  if (value === undefined) throw new ConfigError(name, parser.expected, raw);
  return value;
}

/** Every EASEL_* variable the configuration reads (filled as loadConfig reads them), and the CLI's. */
const KNOWN = new Set<string>(['EASEL_CANVAS_KEY', 'EASEL_TOKEN']);

/**
 * EASEL_* variables set in `env` that nothing reads (a typo, or one from
 * another release), each with the known name closest to it, if any is close.
 * Call after loadConfig.
 */
export function unknownVariables(env: Env): Array<{ name: string; closest: string | null }> {
  return Object.keys(env)
    .filter((name) => name.startsWith('EASEL_') && !KNOWN.has(name))
    .sort()
    .map((name) => ({ name, closest: closestName(name, KNOWN) }));
}

/** The known name nearest to `name` by edit distance, when it is near enough to be a typo; else null. */
export function closestName(name: string, known: Iterable<string>): string | null {
  let closest: string | null = null;
  let best = Infinity;
  for (const k of known) {
    const d = editDistance(name, k);
    if (d < best) [best, closest] = [d, k];
  }
  return best <= Math.max(2, Math.floor(name.length / 5)) ? closest : null;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Builds the Config from an environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env): Config {
  const port = read(env, 'EASEL_PORT', int(0, 65535), 8080);
  const host = read(env, 'EASEL_HOST', str, '127.0.0.1');
  const baseUrl = read(env, 'EASEL_BASE_URL', httpUrl, `http://localhost:${port}`);
  const authMode = read(env, 'EASEL_AUTH_MODE', oneOf<AuthMode>('dev', 'proxy', 'oidc'), 'dev');
  const config: Config = {
    dataDir: read(env, 'EASEL_DATA_DIR', str, './data'),
    host,
    port,
    baseUrl,
    apiBaseUrl: read(env, 'EASEL_API_BASE_URL', httpUrl, baseUrl),
    urlMode: read(env, 'EASEL_URL_MODE', oneOf<UrlMode>('path', 'subdomain'), 'path'),
    pathModeTrustedAuthors: read(env, 'EASEL_PATH_MODE_TRUSTED_AUTHORS', bool, false),
    canvasHost: read(env, 'EASEL_CANVAS_HOST', hostname, new URL(baseUrl).host),
    canvasCsp: read(env, 'EASEL_CANVAS_CSP', cspPolicy) ?? null,
    authMode,
    adminEmails: read(env, 'EASEL_ADMIN_EMAILS', list(/^[^\s@,]+@[^\s@,]+$/, 'email addresses'), []).map((e) => e.toLowerCase()),
    cookieDomain: read(env, 'EASEL_COOKIE_DOMAIN', cookieDomain) ?? null,
    tenancy: read(env, 'EASEL_TENANCY', bool, false),
    publicLinks: read(env, 'EASEL_PUBLIC_LINKS', bool, true),
    rateLimitEnabled: read(env, 'EASEL_RATELIMIT_ENABLED', bool, true),
    rateLimitDeployPerMin: read(env, 'EASEL_RATELIMIT_DEPLOY_PER_MIN', int(1, 1_000_000), 10),
    rateLimitAiPerMin: read(env, 'EASEL_RATELIMIT_AI_PER_MIN', int(1, 1_000_000), 10),
    rateLimitCanvasApiPerMin: read(env, 'EASEL_RATELIMIT_CANVAS_API_PER_MIN', int(1, 1_000_000), 120),
    rateLimitManagementPerMin: read(env, 'EASEL_RATELIMIT_MANAGEMENT_PER_MIN', int(1, 1_000_000), 600),
    aiApiKey: read(env, 'EASEL_AI_API_KEY', str) ?? null,
    aiBaseUrl: read(env, 'EASEL_AI_BASE_URL', anyUrl) ?? null,
    aiModels: read(env, 'EASEL_AI_MODELS', list(/^[A-Za-z0-9._:-]{1,100}$/, 'model names'), DEFAULT_AI_MODELS),
    aiUserDailyUsd: read(env, 'EASEL_AI_USER_DAILY_USD', usd, 5),
    aiCanvasMonthlyUsd: read(env, 'EASEL_AI_CANVAS_MONTHLY_USD', usd, 50),
    userCanvases: read(env, 'EASEL_USER_CANVASES', int(1, 1_000_000), 200),
    userStorageBytes: read(env, 'EASEL_USER_STORAGE_BYTES', int(1, 2 ** 50), 20 * 1024 ** 3),
    userCanvasCreatesPerHour: read(env, 'EASEL_USER_CANVAS_CREATES_PER_HOUR', int(1, 1_000_000), 60),
    realtime: read(env, 'EASEL_REALTIME', bool, true),
    authoring: read(env, 'EASEL_AUTHORING', bool, false),
    authoringAllowedRungs: read(
      env,
      'EASEL_AUTHORING_ALLOWED_RUNGS',
      list(/^(private|specific_people|whole_org|public_link)$/, 'private, specific_people, whole_org, public_link'),
      ['private', 'specific_people', 'whole_org', 'public_link'],
    ),
    authoringMaxExpiryDays: read(env, 'EASEL_AUTHORING_MAX_EXPIRY_DAYS', int(0, 36_500), 0),
    authoringRequireExpiry: read(env, 'EASEL_AUTHORING_REQUIRE_EXPIRY', bool, false),
    authoringUserDailyMax: read(env, 'EASEL_AUTHORING_USER_DAILY_MAX', int(0, 1_000_000), 20),
    authoringUserTotalMax: read(env, 'EASEL_AUTHORING_USER_TOTAL_MAX', int(0, 1_000_000), 200),
    secretKey: read(env, 'EASEL_SECRET_KEY', secretKey) ?? null,
    connectionsCaFile: read(env, 'EASEL_CONNECTIONS_CA_FILE', existingFile) ?? null,
    connectionsResolve: read(env, 'EASEL_CONNECTIONS_RESOLVE', resolvePins) ?? null,
    proxyEmailHeader: read(env, 'EASEL_PROXY_EMAIL_HEADER', headerName, 'x-forwarded-email'),
    proxyNameHeader: read(env, 'EASEL_PROXY_NAME_HEADER', headerName, 'x-forwarded-user'),
    proxyTrustedCidrs: read(env, 'EASEL_PROXY_TRUSTED_CIDRS', cidrList, ['127.0.0.0/8', '::1/128']),
    oidcIssuer: read(env, 'EASEL_OIDC_ISSUER', anyUrl) ?? null,
    oidcClientId: read(env, 'EASEL_OIDC_CLIENT_ID', str) ?? null,
    oidcClientSecret: read(env, 'EASEL_OIDC_CLIENT_SECRET', str) ?? null,
    oidcScopes: read(env, 'EASEL_OIDC_SCOPES', str, 'openid email profile'),
    oidcEmailClaim: read(env, 'EASEL_OIDC_EMAIL_CLAIM', str, 'email'),
    oidcNameClaim: read(env, 'EASEL_OIDC_NAME_CLAIM', str, 'name'),
    oidcGroupsClaim: read(env, 'EASEL_OIDC_GROUPS_CLAIM', str, 'groups'),
    oidcAdminGroups: read(env, 'EASEL_OIDC_ADMIN_GROUPS', list(/^[^,]{1,256}$/, 'group names (up to 256 characters each)'), []),
    sessionTtlHours: read(env, 'EASEL_SESSION_TTL_HOURS', int(1, 24 * 365), 24 * 14),
    auditRetentionDays: read(env, 'EASEL_AUDIT_RETENTION_DAYS', int(1, 36_500), 90),
    minFreeDiskBytes: read(env, 'EASEL_MIN_FREE_DISK_MB', int(0, 1_000_000), 256) * 1024 * 1024,
    blobStore: blobStoreSettings(env),
    blobCacheBytes: read(env, 'EASEL_BLOB_CACHE_MB', int(16, 100_000_000), 2048) * 1024 * 1024,
    redis: read(env, 'EASEL_REDIS_URL', redisUrl) ?? null,
    database: read(env, 'EASEL_DATABASE_URL', databaseUrl) ?? null,
    smtp: read(env, 'EASEL_SMTP_URL', smtpUrl) ?? null,
    smtpFrom: read(env, 'EASEL_SMTP_FROM', mailbox) ?? `easel@${new URL(baseUrl).hostname}`,
    metricsToken: read(env, 'EASEL_METRICS_TOKEN', metricsToken) ?? null,
    logLevel: read(env, 'EASEL_LOG_LEVEL', oneOf('debug', 'info', 'warn', 'error', 'silent'), 'info'),
  };
  if (authMode === 'oidc') checkOidc(config, env);
  if (config.urlMode === 'path') checkPathMode(config, env);
  return config;
}

// redis://[user:password@]host[:port][/db], or rediss:// for TLS. Bun's client speaks both.
const redisUrl = typed(
  'redis://host:port or redis://host:port/db (rediss:// for TLS)',
  Type.String({ pattern: '^rediss?://' }),
  (r) => r.trim(),
  (raw): RedisSettings | undefined => {
    const u = URL.parse(raw);
    if (!u) return undefined;
    const db = /^\/?$/.test(u.pathname) ? 0 : /^\/(\d{1,5})$/.exec(u.pathname)?.[1];
    if (u.hostname === '' || db === undefined || u.search || u.hash) return undefined;
    return { url: raw, db: Number(db), display: `${u.protocol}//${u.host}/${db}` };
  },
);

// smtp://[user[:password]@]host[:port] (STARTTLS when the relay offers it) or smtps:// (TLS from the first byte).
const smtpUrl = typed(
  'smtp://[user:password@]host[:port] or smtps://…',
  Type.String({ pattern: '^smtps?://' }),
  (r) => r.trim(),
  (raw): SmtpSettings | undefined => {
    const u = URL.parse(raw);
    if (!u || u.hostname === '' || !/^\/?$/.test(u.pathname) || u.search || u.hash) return undefined;
    return { url: raw, display: `${u.protocol}//${u.host}` };
  },
);

// One address, optionally with a display name: `Easel <easel@example.com>`.
const mailbox = typed(
  'an address such as easel@example.com or "Easel <easel@example.com>"',
  Type.String({ pattern: '^([^<>\\r\\n]{0,100}<[^\\s<>@]+@[^\\s<>@]+>|[^\\s<>@]+@[^\\s<>@]+)$' }),
  (r) => r.trim(),
);

// postgres://[user[:password]@]host[:port]/database[?sslmode=…], as libpq and Bun.sql read it.
const databaseUrl = typed(
  'postgres://user:password@host:port/database',
  Type.String({ pattern: '^postgres(ql)?://' }),
  (r) => r.trim(),
  (raw): DatabaseSettings | undefined => {
    const u = URL.parse(raw);
    if (!u || u.hostname === '' || !/^\/[^/]+$/.test(u.pathname) || u.hash) return undefined;
    return { url: raw, display: `postgres://${u.host}${u.pathname}` };
  },
);

const blobUrl = typed(
  's3://bucket or s3://bucket/prefix',
  Type.String({ minLength: 1 }),
  (r) => r.trim(),
  (v) => (parseBlobUrl(v) === null ? undefined : v),
);

/**
 * EASEL_BLOB_URL and the standard S3 variables (Bun's `S3_*`, else the AWS
 * CLI's `AWS_*`), or null when blobs stay in the data directory. The CLI's
 * backup reads it too, without the rest of the configuration.
 */
export function blobStoreSettings(env: Env): S3Settings | null {
  const raw = read(env, 'EASEL_BLOB_URL', blobUrl);
  const virtualHostedStyle = read(env, 'EASEL_S3_VIRTUAL_HOSTED', bool, false);
  if (raw === undefined) return null;
  const { bucket, prefix } = parseBlobUrl(raw)!;
  const first = (...names: string[]) => names.map((n) => env[n]?.trim()).find((v) => v !== undefined && v !== '') ?? null;
  const endpoint = first('S3_ENDPOINT', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL');
  if (endpoint !== null && !/^https?:\/\/[^\s/]+\/?$/.test(endpoint))
    throw new ConfigError('S3_ENDPOINT', 'an http(s) URL of the S3 service, e.g. https://s3.eu-west-1.amazonaws.com', endpoint);
  return {
    bucket,
    prefix,
    endpoint,
    region: first('S3_REGION', 'AWS_REGION', 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    accessKeyId: first('S3_ACCESS_KEY_ID', 'AWS_ACCESS_KEY_ID'),
    secretAccessKey: first('S3_SECRET_ACCESS_KEY', 'AWS_SECRET_ACCESS_KEY'),
    sessionToken: first('S3_SESSION_TOKEN', 'AWS_SESSION_TOKEN'),
    virtualHostedStyle,
  };
}

/**
 * oidc sign-in needs the issuer and the client's id and secret; the issuer
 * must be https (a loopback issuer may be http: local identity providers and
 * tests). Whether the issuer answers is checked as the server starts.
 */
function checkOidc(config: Config, env: Env): void {
  for (const [variable, value] of [
    ['EASEL_OIDC_ISSUER', config.oidcIssuer],
    ['EASEL_OIDC_CLIENT_ID', config.oidcClientId],
    ['EASEL_OIDC_CLIENT_SECRET', config.oidcClientSecret],
  ] as const) {
    if (value === null) throw new ConfigError(variable, 'set (required with EASEL_AUTH_MODE=oidc)', '');
  }
  const issuer = new URL(config.oidcIssuer!);
  // All of 127.0.0.0/8 is loopback (a second local provider often listens on 127.0.0.2).
  const loopback =
    issuer.hostname === 'localhost' || issuer.hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(issuer.hostname);
  if (issuer.protocol !== 'https:' && !loopback) {
    throw new ConfigError('EASEL_OIDC_ISSUER', 'an https URL (http only on a loopback address)', env.EASEL_OIDC_ISSUER ?? '');
  }
}

/**
 * Path mode puts the dashboard, the APIs and every canvas on one origin: a
 * canvas page can call them all with its visitor's cookie, so any author can
 * act as anyone who opens their canvas. Fine on a laptop (dev sign-in) or
 * where every author is trusted; a company sign-in (proxy, oidc) must say so.
 */
function checkPathMode(config: Config, env: Env): void {
  if (config.authMode === 'dev' || config.pathModeTrustedAuthors) return;
  throw new ConfigError(
    'EASEL_PATH_MODE_TRUSTED_AUTHORS',
    `on to run path mode with ${config.authMode} sign-in (every canvas shares the dashboard's origin, so any canvas author can act as any visitor; EASEL_URL_MODE=subdomain isolates them)`,
    env.EASEL_PATH_MODE_TRUSTED_AUTHORS ?? '',
  );
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * With EASEL_PORT=0 the port is known only once the socket is bound; the URLs
 * that defaulted to `http://localhost:<port>` carry `:0` until then. Fills in
 * the real port (explicitly configured URLs are left alone: they never say :0).
 */
export function withBoundPort(config: Config, port: number): void {
  if (config.port !== 0) return;
  const fix = (s: string) => s.replace(/^(https?:\/\/[^/:]+):0$/, `$1:${port}`);
  config.baseUrl = fix(config.baseUrl);
  config.apiBaseUrl = fix(config.apiBaseUrl);
  config.canvasHost = config.canvasHost.replace(/:0$/, `:${port}`);
}
