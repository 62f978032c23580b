// The configuration reference's words for each setting: its default as people
// read it and what it means. Which settings exist, and in which order, comes
// from src/config.ts (scripts/config-table.ts); a setting missing here, or one
// config.ts no longer reads, fails the generation and test/docs-config.test.ts.

export interface SettingDoc {
  /** The default as the table shows it (Markdown). */
  default: string;
  /** What it does (Markdown, one line). */
  meaning: string;
}

export const SETTING_DOCS: Record<string, SettingDoc> = {
  EASEL_DATA_DIR: {
    default: '`./data`',
    meaning: 'Data directory, created on first start: `easel.db` (SQLite, WAL) and `blobs/`. Nothing is written anywhere else.',
  },
  EASEL_HOST: {
    default: '`127.0.0.1`',
    meaning: 'Listen address (`0.0.0.0` for every interface).',
  },
  EASEL_PORT: {
    default: '`8080`',
    meaning: 'Listen port; `0` picks a free one (the start line shows it).',
  },
  EASEL_BASE_URL: {
    default: '`http://localhost:<port>`',
    meaning: 'Public origin of the instance (scheme, host, optional port; no path). Cookies are `Secure` when it is https.',
  },
  EASEL_API_BASE_URL: {
    default: '`EASEL_BASE_URL`',
    meaning: 'Origin of the Deploy and runtime APIs (`{base}` in the spec).',
  },
  EASEL_URL_MODE: {
    default: '`path`',
    meaning: '`path`: canvases at `{base}/c/{slug}/`; `subdomain`: at `{slug}.{EASEL_CANVAS_HOST}`.',
  },
  EASEL_PATH_MODE_TRUSTED_AUTHORS: {
    default: 'off',
    meaning:
      "Path mode with `proxy` or `oidc` sign-in starts only when this is `on`: in path mode every canvas shares the dashboard's origin, so a canvas author can act as anyone who opens their canvas (see [Security model](security.md)). Dev sign-in and subdomain mode need nothing.",
  },
  EASEL_CANVAS_HOST: {
    default: 'host of `EASEL_BASE_URL`',
    meaning: 'Parent host of canvas subdomains (may carry a port).',
  },
  EASEL_CANVAS_CSP: {
    default: 'unset',
    meaning:
      "A Content-Security-Policy for every canvas file (e.g. `default-src 'self' 'unsafe-inline'; connect-src 'self'` keeps canvases from calling other sites); Easel adds its `frame-ancestors` unless the policy names one. Easel's own pages keep their strict policy. Unset: canvases may load anything (only framing is restricted).",
  },
  EASEL_AUTH_MODE: {
    default: '`dev`',
    meaning:
      '`dev` (sign in as anyone, for trying it out), `proxy` (trust an authenticating reverse proxy) or `oidc` (sign in through your identity provider, see `EASEL_OIDC_*`).',
  },
  EASEL_ADMIN_EMAILS: {
    default: 'empty',
    meaning: 'Comma-separated emails of instance admins.',
  },
  EASEL_COOKIE_DOMAIN: {
    default: 'unset',
    meaning:
      'Ignored, with a warning at start. Every session cookie is host-only: in subdomain mode a canvas host gets its own session through a one-time handoff from the base host (see [Security model](security.md)).',
  },
  EASEL_TENANCY: {
    default: '`off`',
    meaning: '`off`: one implicit org holding every user; `on`: users have a home org.',
  },
  EASEL_PUBLIC_LINKS: {
    default: '`on`',
    meaning: 'Instance switch for Public link canvases.',
  },
  EASEL_RATELIMIT_ENABLED: {
    default: '`true`',
    meaning: 'Switches the HTTP rate-limit classes (deploy, canvas, ai, management).',
  },
  EASEL_RATELIMIT_DEPLOY_PER_MIN: {
    default: '`10`',
    meaning: 'Deploy class, per canvas.',
  },
  EASEL_RATELIMIT_AI_PER_MIN: {
    default: '`10`',
    meaning: 'Runtime AI class.',
  },
  EASEL_RATELIMIT_CANVAS_API_PER_MIN: {
    default: '`120`',
    meaning: 'Runtime canvas class.',
  },
  EASEL_RATELIMIT_MANAGEMENT_PER_MIN: {
    default: '`600`',
    meaning: 'Management class (`/api/*`).',
  },
  EASEL_AI_API_KEY: {
    default: 'unset',
    meaning: 'Anthropic API key (admins can also set one at runtime).',
  },
  EASEL_AI_BASE_URL: {
    default: 'provider default',
    meaning: 'Provider base URL (tests point it at a local fake).',
  },
  EASEL_AI_MODELS: {
    default: '`claude-sonnet-5-5,claude-haiku-5-5,claude-opus-5-5`',
    meaning: 'Allowed models.',
  },
  EASEL_AI_USER_DAILY_USD: {
    default: '`5`',
    meaning: 'AI spend cap per user per day.',
  },
  EASEL_AI_CANVAS_MONTHLY_USD: {
    default: '`50`',
    meaning: 'AI spend cap per canvas per month.',
  },
  EASEL_USER_CANVASES: {
    default: '`200`',
    meaning: 'Canvases one person may own (`QUOTA_EXCEEDED` `canvases.user`).',
  },
  EASEL_USER_STORAGE_BYTES: {
    default: '`21474836480` (20 GiB)',
    meaning: "Bytes one person's canvases may keep: kept versions and runtime files (`QUOTA_EXCEEDED` `storage.user`).",
  },
  EASEL_USER_CANVAS_CREATES_PER_HOUR: {
    default: '`60`',
    meaning: 'Canvases one person may create per hour (429 `rate_limited`; off with `EASEL_RATELIMIT_ENABLED=false`).',
  },
  EASEL_REALTIME: {
    default: '`on`',
    meaning: 'Realtime switch.',
  },
  EASEL_AUTHORING: {
    default: '`off`',
    meaning: 'Authoring switch (canvases creating canvases).',
  },
  EASEL_AUTHORING_ALLOWED_RUNGS: {
    default: '`private,specific_people,whole_org,public_link`',
    meaning: 'Sharing rungs authoring may use.',
  },
  EASEL_AUTHORING_MAX_EXPIRY_DAYS: {
    default: '`0`',
    meaning: 'Longest share expiry authoring may set; `0` = no cap.',
  },
  EASEL_AUTHORING_REQUIRE_EXPIRY: {
    default: '`off`',
    meaning: 'Authored shares must expire.',
  },
  EASEL_AUTHORING_USER_DAILY_MAX: {
    default: '`20`',
    meaning: 'Authored canvases per user per day.',
  },
  EASEL_AUTHORING_USER_TOTAL_MAX: {
    default: '`200`',
    meaning: 'Authored canvases per user in total.',
  },
  EASEL_SECRET_KEY: {
    default: 'unset',
    meaning:
      '32 bytes (base64 or 64 hex digits) encrypting Connection protected headers and the AI provider key an admin sets in the dashboard (without it, setting either is `409 SECRET_KEY_MISSING`; a key stored in plaintext by an older release is encrypted at the next start with it). Generate with `openssl rand -base64 32`.',
  },
  EASEL_CONNECTIONS_CA_FILE: {
    default: 'unset',
    meaning: 'Extra trusted CA certificates (PEM) for Connections; the file must exist.',
  },
  EASEL_CONNECTIONS_RESOLVE: {
    default: 'unset',
    meaning: "`host:port:address[,\u2026]` like curl's `--resolve`: pinned answers you vouch for (split-horizon intranets, tests).",
  },
  EASEL_PROXY_EMAIL_HEADER: {
    default: '`X-Forwarded-Email`',
    meaning: 'Proxy mode: header carrying the signed-in email.',
  },
  EASEL_PROXY_NAME_HEADER: {
    default: '`X-Forwarded-User`',
    meaning: 'Proxy mode: header carrying the display name.',
  },
  EASEL_PROXY_TRUSTED_CIDRS: {
    default: '`127.0.0.0/8,::1/128`',
    meaning: 'Proxy mode: the proxy headers count only from these addresses.',
  },
  EASEL_OIDC_ISSUER: {
    default: 'unset',
    meaning:
      "`oidc` mode: the identity provider's issuer URL (https; http only on a loopback address). Discovered at start: an issuer that does not answer stops the start with one line.",
  },
  EASEL_OIDC_CLIENT_ID: {
    default: 'unset',
    meaning: '`oidc` mode: the client registered at the provider, with the redirect URI `{EASEL_BASE_URL}/auth/callback`.',
  },
  EASEL_OIDC_CLIENT_SECRET: {
    default: 'unset',
    meaning: "`oidc` mode: that client's secret.",
  },
  EASEL_OIDC_SCOPES: {
    default: '`openid email profile`',
    meaning: '`oidc` mode: the scopes asked for.',
  },
  EASEL_OIDC_EMAIL_CLAIM: {
    default: '`email`',
    meaning:
      '`oidc` mode: the claim holding the email, from the ID token or else UserInfo (required; it must be an address; refused when `email_verified` is false). Entra ID: `preferred_username` or `upn`. See [Sign-in](sign-in.md).',
  },
  EASEL_OIDC_GROUPS_CLAIM: {
    default: '`groups`',
    meaning:
      "`oidc` mode: the claim listing the person's groups at the provider (an array, or one string), read for `EASEL_OIDC_ADMIN_GROUPS`. Entra ID app roles: `roles`.",
  },
  EASEL_OIDC_ADMIN_GROUPS: {
    default: 'unset',
    meaning:
      '`oidc` mode: comma-separated provider groups whose members are instance admins, besides `EASEL_ADMIN_EMAILS`. Read at each sign-in: leaving the group ends the right at the next sign-in.',
  },
  EASEL_OIDC_NAME_CLAIM: {
    default: '`name`',
    meaning: '`oidc` mode: the ID token claim holding the display name.',
  },
  EASEL_SESSION_TTL_HOURS: {
    default: '`336`',
    meaning: 'Sign-in session lifetime (14 days).',
  },
  EASEL_MIN_FREE_DISK_MB: {
    default: '`256`',
    meaning:
      "Deploys, staged uploads, runtime files and authoring answer 507 `INSUFFICIENT_STORAGE` before writing a byte when less than this would stay free on the data directory's disk.",
  },
  EASEL_BLOB_URL: {
    default: 'unset',
    meaning:
      "`s3://bucket/prefix`: keep blobs (deployed files, runtime files, staged uploads) on S3 or an S3-compatible server; the data directory then caches copies. Endpoint and credentials come from the standard variables: `S3_ENDPOINT`, `S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY`, `S3_SESSION_TOKEN`, `S3_REGION` (Bun's names), else `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`/`AWS_DEFAULT_REGION` (default region `us-east-1`). See [Blobs on S3](scale-out.md#blobs-on-s3).",
  },
  EASEL_BLOB_CACHE_MB: {
    default: '`2048`',
    meaning: 'With `EASEL_BLOB_URL`: the bound of the local cache of blob copies (least recently used copies go first).',
  },
  EASEL_S3_VIRTUAL_HOSTED: {
    default: '`off`',
    meaning:
      'With `EASEL_BLOB_URL`: address the bucket as `bucket.endpoint` instead of `endpoint/bucket` (path style, which S3-compatible servers expect).',
  },
  EASEL_DATABASE_URL: {
    default: 'unset',
    meaning:
      '`postgres://user:password@host:port/database`: keep every record in this Postgres (13 or later) instead of SQLite in the data directory, so several Easel nodes can share it (with `EASEL_BLOB_URL` and `EASEL_REDIS_URL`; see [Several nodes](scale-out.md#several-nodes-postgres-s3-redis)). Migrated at start (or by `easel migrate`). Never echoed: the URL may carry a password. Unset: SQLite in the data directory.',
  },
  EASEL_SMTP_URL: {
    default: 'unset',
    meaning:
      '`smtp://[user:password@]relay[:port]` (STARTTLS when the relay offers it) or `smtps://…`: notifications are mailed through this relay (see [Notifications](notifications.md)). Never echoed: the URL may carry a password. Unset: no email is sent.',
  },
  EASEL_SMTP_FROM: {
    default: '`easel@` and the host of `EASEL_BASE_URL`',
    meaning: 'The From address of every notification.',
  },
  EASEL_REDIS_URL: {
    default: 'unset',
    meaning:
      "`redis://host:port[/db]` (`rediss://` for TLS; `redis://:password@host:port/db` with a password): realtime shared with the other Easel nodes through this Redis (7 or later, or Valkey). Messages reach subscribers on every node, presence lists each person once, and the connection limits count every node's sockets; a node that dies is forgotten within 25 s. The rate limits count in the same windows on every node. Unset: realtime and rate limits stay in this process. See [Realtime across nodes](scale-out.md#realtime-across-nodes-redis) and [Rate limits across nodes](scale-out.md#rate-limits-across-nodes-redis).",
  },
  EASEL_METRICS_TOKEN: {
    default: 'unset',
    meaning:
      'A bearer token (24+ printable characters) that may read `GET /metrics`; instance admins may always read it with their session. See [Metrics](operate.md#metrics).',
  },
  EASEL_AUDIT_RETENTION_DAYS: {
    default: '`90`',
    meaning:
      'Audit rows older than this are removed by the hourly housekeeping (which also removes expired sessions, sign-in handoffs, and personal access tokens 30 days after they expired).',
  },
  EASEL_LOG_LEVEL: {
    default: '`info`',
    meaning: '`debug`, `info`, `warn`, `error` or `silent`; logs are JSON lines on stdout.',
  },
};
