import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, DEFAULT_AI_MODELS, loadConfig, withBoundPort, type Config } from '../src/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'easel-config-'));
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEX_KEY = 'ab'.repeat(32);
const B64_KEY = Buffer.alloc(32, 7).toString('base64');

interface Row {
  variable: string;
  field: keyof Config;
  default: unknown;
  /** [raw value, what Config holds] */
  good: Array<[string, unknown]>;
  bad: string[];
  /** Other variables a good value needs (proxy sign-in in path mode needs the trusted-authors switch). */
  with?: Record<string, string>;
}

const S3_DEFAULTS = {
  bucket: 'easel-blobs',
  prefix: '',
  endpoint: null,
  region: 'us-east-1',
  accessKeyId: null,
  secretAccessKey: null,
  sessionToken: null,
  virtualHostedStyle: false,
};

// Every EASEL_* variable src/config.ts reads: its default, values it accepts, values it refuses.
const ROWS: Row[] = [
  { variable: 'EASEL_DATA_DIR', field: 'dataDir', default: './data', good: [['/var/lib/easel/data', '/var/lib/easel/data']], bad: ['   '] },
  { variable: 'EASEL_HOST', field: 'host', default: '127.0.0.1', good: [['0.0.0.0', '0.0.0.0']], bad: ['  '] },
  {
    variable: 'EASEL_PORT',
    field: 'port',
    default: 8080,
    good: [
      ['0', 0],
      ['9000', 9000],
    ],
    bad: ['abc', '70000', '-1', '80.5'],
  },
  {
    variable: 'EASEL_BASE_URL',
    field: 'baseUrl',
    default: 'http://localhost:8080',
    good: [['https://Easel.Example.com/', 'https://easel.example.com']],
    bad: ['easel.example.com', 'https://easel.example.com/sub', 'ftp://easel.example.com'],
  },
  {
    variable: 'EASEL_API_BASE_URL',
    field: 'apiBaseUrl',
    default: 'http://localhost:8080',
    good: [['https://api.example.com', 'https://api.example.com']],
    bad: ['api.example.com', 'https://api.example.com/?x=1'],
  },
  { variable: 'EASEL_URL_MODE', field: 'urlMode', default: 'path', good: [['PATH', 'path']], bad: ['host'] },
  {
    variable: 'EASEL_CANVAS_HOST',
    field: 'canvasHost',
    default: 'localhost:8080',
    good: [
      ['Canvas.Example.com', 'canvas.example.com'],
      ['canvas.test:8443', 'canvas.test:8443'],
    ],
    bad: ['https://canvas.example.com', 'a b'],
  },
  {
    variable: 'EASEL_CANVAS_CSP',
    field: 'canvasCsp',
    default: null,
    good: [["default-src 'self'; connect-src 'self'", "default-src 'self'; connect-src 'self'"]],
    bad: ["default-src 'self'\nX-Evil: 1", 'x'.repeat(4097), 'caf\u00e9'],
  },
  {
    variable: 'EASEL_AUTH_MODE',
    field: 'authMode',
    default: 'dev',
    good: [
      ['proxy', 'proxy'],
      ['dev', 'dev'],
    ],
    bad: ['ldap', 'saml'],
    with: { EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on' },
  },
  {
    variable: 'EASEL_ADMIN_EMAILS',
    field: 'adminEmails',
    default: [],
    good: [['Ann@Example.com, bob@example.org', ['ann@example.com', 'bob@example.org']]],
    bad: ['not-an-email', 'a@b.c,,x y@z'],
  },
  {
    variable: 'EASEL_COOKIE_DOMAIN',
    field: 'cookieDomain',
    default: null,
    good: [['.Example.com', 'example.com']],
    bad: ['example.com:8080', 'https://example.com'],
  },
  {
    variable: 'EASEL_TENANCY',
    field: 'tenancy',
    default: false,
    good: [
      ['on', true],
      ['OFF', false],
    ],
    bad: ['maybe'],
  },
  {
    variable: 'EASEL_PUBLIC_LINKS',
    field: 'publicLinks',
    default: true,
    good: [
      ['off', false],
      ['yes', true],
    ],
    bad: ['2'],
  },
  {
    variable: 'EASEL_RATELIMIT_ENABLED',
    field: 'rateLimitEnabled',
    default: true,
    good: [
      ['false', false],
      ['1', true],
    ],
    bad: ['nope'],
  },
  { variable: 'EASEL_RATELIMIT_DEPLOY_PER_MIN', field: 'rateLimitDeployPerMin', default: 10, good: [['30', 30]], bad: ['0', 'ten'] },
  { variable: 'EASEL_RATELIMIT_AI_PER_MIN', field: 'rateLimitAiPerMin', default: 10, good: [['5', 5]], bad: ['1.5'] },
  { variable: 'EASEL_RATELIMIT_CANVAS_API_PER_MIN', field: 'rateLimitCanvasApiPerMin', default: 120, good: [['600', 600]], bad: ['lots'] },
  { variable: 'EASEL_RATELIMIT_MANAGEMENT_PER_MIN', field: 'rateLimitManagementPerMin', default: 600, good: [['60', 60]], bad: ['-5'] },
  { variable: 'EASEL_AI_API_KEY', field: 'aiApiKey', default: null, good: [['sk-ant-test', 'sk-ant-test']], bad: ['   '] },
  {
    variable: 'EASEL_AI_BASE_URL',
    field: 'aiBaseUrl',
    default: null,
    good: [['http://127.0.0.1:9999/', 'http://127.0.0.1:9999']],
    bad: ['127.0.0.1:9999'],
  },
  {
    variable: 'EASEL_AI_MODELS',
    field: 'aiModels',
    default: DEFAULT_AI_MODELS,
    good: [['claude-a, claude-b', ['claude-a', 'claude-b']]],
    bad: ['bad model!'],
  },
  {
    variable: 'EASEL_AI_USER_DAILY_USD',
    field: 'aiUserDailyUsd',
    default: 5,
    good: [
      ['2.5', 2.5],
      ['0', 0],
    ],
    bad: ['-1', 'five'],
  },
  { variable: 'EASEL_AI_CANVAS_MONTHLY_USD', field: 'aiCanvasMonthlyUsd', default: 50, good: [['100', 100]], bad: ['1e9'] },
  { variable: 'EASEL_USER_CANVASES', field: 'userCanvases', default: 200, good: [['5', 5]], bad: ['0', 'many'] },
  {
    variable: 'EASEL_USER_STORAGE_BYTES',
    field: 'userStorageBytes',
    default: 20 * 1024 ** 3,
    good: [['1048576', 1048576]],
    bad: ['-1', '1.5'],
  },
  { variable: 'EASEL_USER_CANVAS_CREATES_PER_HOUR', field: 'userCanvasCreatesPerHour', default: 60, good: [['10', 10]], bad: ['0'] },
  { variable: 'EASEL_REALTIME', field: 'realtime', default: true, good: [['off', false]], bad: ['sometimes'] },
  { variable: 'EASEL_AUTHORING', field: 'authoring', default: false, good: [['on', true]], bad: ['enabled'] },
  {
    variable: 'EASEL_AUTHORING_ALLOWED_RUNGS',
    field: 'authoringAllowedRungs',
    default: ['private', 'specific_people', 'whole_org', 'public_link'],
    good: [['private, whole_org', ['private', 'whole_org']]],
    bad: ['public'],
  },
  { variable: 'EASEL_AUTHORING_MAX_EXPIRY_DAYS', field: 'authoringMaxExpiryDays', default: 0, good: [['30', 30]], bad: ['-1'] },
  { variable: 'EASEL_PATH_MODE_TRUSTED_AUTHORS', field: 'pathModeTrustedAuthors', default: false, good: [['on', true]], bad: ['sure'] },
  { variable: 'EASEL_AUTHORING_REQUIRE_EXPIRY', field: 'authoringRequireExpiry', default: false, good: [['yes', true]], bad: ['y'] },
  { variable: 'EASEL_AUTHORING_USER_DAILY_MAX', field: 'authoringUserDailyMax', default: 20, good: [['0', 0]], bad: ['x'] },
  { variable: 'EASEL_AUTHORING_USER_TOTAL_MAX', field: 'authoringUserTotalMax', default: 200, good: [['1000', 1000]], bad: ['1e3'] },
  {
    variable: 'EASEL_SECRET_KEY',
    field: 'secretKey',
    default: null,
    good: [
      [HEX_KEY, new Uint8Array(32).fill(0xab)],
      [B64_KEY, new Uint8Array(32).fill(7)],
    ],
    bad: ['tooshort', 'ab'.repeat(31)],
  },
  {
    variable: 'EASEL_CONNECTIONS_CA_FILE',
    field: 'connectionsCaFile',
    default: null,
    good: [[caFile, caFile]],
    bad: [join(dir, 'missing.pem'), dir],
  },
  {
    variable: 'EASEL_CONNECTIONS_RESOLVE',
    field: 'connectionsResolve',
    default: null,
    good: [['API.internal:443:10.0.0.5, b.internal:80:[::1]', 'api.internal:443:10.0.0.5,b.internal:80:[::1]']],
    bad: ['api.internal:10.0.0.5'],
  },
  {
    variable: 'EASEL_PROXY_EMAIL_HEADER',
    field: 'proxyEmailHeader',
    default: 'x-forwarded-email',
    good: [['X-Auth-Request-Email', 'x-auth-request-email']],
    bad: ['X Auth Email'],
  },
  {
    variable: 'EASEL_PROXY_NAME_HEADER',
    field: 'proxyNameHeader',
    default: 'x-forwarded-user',
    good: [['X-Auth-Request-User', 'x-auth-request-user']],
    bad: ['name:'],
  },
  {
    variable: 'EASEL_PROXY_TRUSTED_CIDRS',
    field: 'proxyTrustedCidrs',
    default: ['127.0.0.0/8', '::1/128'],
    good: [['10.0.0.0/8, 192.168.1.1, fd00::/8', ['10.0.0.0/8', '192.168.1.1', 'fd00::/8']]],
    bad: ['everyone', '300.1.1.1', '10.0.0.0/40'],
  },
  {
    variable: 'EASEL_OIDC_ISSUER',
    field: 'oidcIssuer',
    default: null,
    good: [['https://id.example.com/', 'https://id.example.com']],
    bad: ['id.example.com'],
  },
  { variable: 'EASEL_OIDC_CLIENT_ID', field: 'oidcClientId', default: null, good: [['easel', 'easel']], bad: ['  '] },
  { variable: 'EASEL_OIDC_CLIENT_SECRET', field: 'oidcClientSecret', default: null, good: [['s3cret', 's3cret']], bad: ['  '] },
  {
    variable: 'EASEL_OIDC_SCOPES',
    field: 'oidcScopes',
    default: 'openid email profile',
    good: [['openid email', 'openid email']],
    bad: ['  '],
  },
  { variable: 'EASEL_OIDC_EMAIL_CLAIM', field: 'oidcEmailClaim', default: 'email', good: [['upn', 'upn']], bad: ['  '] },
  {
    variable: 'EASEL_OIDC_NAME_CLAIM',
    field: 'oidcNameClaim',
    default: 'name',
    good: [['preferred_username', 'preferred_username']],
    bad: ['  '],
  },
  { variable: 'EASEL_OIDC_GROUPS_CLAIM', field: 'oidcGroupsClaim', default: 'groups', good: [['roles', 'roles']], bad: ['  '] },
  {
    variable: 'EASEL_OIDC_ADMIN_GROUPS',
    field: 'oidcAdminGroups',
    default: [],
    good: [['easel-admins, /platform/ops', ['easel-admins', '/platform/ops']]],
    bad: [',,', `${'g'.repeat(257)}`],
  },
  { variable: 'EASEL_SESSION_TTL_HOURS', field: 'sessionTtlHours', default: 336, good: [['24', 24]], bad: ['0', '9000'] },
  {
    variable: 'EASEL_METRICS_TOKEN',
    field: 'metricsToken',
    default: null,
    good: [['0123456789abcdef01234567', '0123456789abcdef01234567']],
    bad: ['too-short', 'a token with spaces in it 0123'],
  },
  { variable: 'EASEL_AUDIT_RETENTION_DAYS', field: 'auditRetentionDays', default: 90, good: [['30', 30]], bad: ['0', 'ninety'] },
  {
    variable: 'EASEL_MIN_FREE_DISK_MB',
    field: 'minFreeDiskBytes',
    default: 256 * 1024 * 1024,
    good: [
      ['0', 0],
      ['1', 1024 * 1024],
    ],
    bad: ['-1', 'lots'],
  },
  {
    variable: 'EASEL_BLOB_URL',
    field: 'blobStore',
    default: null,
    good: [
      ['s3://easel-blobs/site/a/', { ...S3_DEFAULTS, bucket: 'easel-blobs', prefix: 'site/a/' }],
      ['s3://easel-blobs', { ...S3_DEFAULTS, bucket: 'easel-blobs', prefix: '' }],
    ],
    bad: ['http://easel-blobs', 's3://', 's3://Upper_Case', 's3://key:secret@bucket', 's3://easel-blobs/a/../b'],
  },
  {
    variable: 'EASEL_DATABASE_URL',
    field: 'database',
    default: null,
    good: [
      [
        'postgres://easel:pw@db.internal:5432/easel',
        { url: 'postgres://easel:pw@db.internal:5432/easel', display: 'postgres://db.internal:5432/easel' },
      ],
      ['postgresql://db/easel?sslmode=require', { url: 'postgresql://db/easel?sslmode=require', display: 'postgres://db/easel' }],
    ],
    bad: ['mysql://db/easel', 'postgres://', 'postgres://db', 'postgres://db/', 'postgres://db/a/b', 'db.internal/easel'],
  },
  {
    variable: 'EASEL_SMTP_URL',
    field: 'smtp',
    default: null,
    good: [
      ['smtp://relay.internal:25', { url: 'smtp://relay.internal:25', display: 'smtp://relay.internal:25' }],
      ['smtps://u:pw@mail.example.com', { url: 'smtps://u:pw@mail.example.com', display: 'smtps://mail.example.com' }],
    ],
    bad: ['http://relay:25', 'smtp://', 'smtp://relay/x', 'smtp://relay?tls=1', 'relay:25'],
  },
  {
    variable: 'EASEL_SMTP_FROM',
    field: 'smtpFrom',
    default: 'easel@localhost',
    good: [
      ['noreply@example.com', 'noreply@example.com'],
      ['Easel <easel@example.com>', 'Easel <easel@example.com>'],
    ],
    bad: ['easel', 'a b@example.com', 'Easel <easel@example.com', 'x@y\r\nBcc: z@w'],
  },
  {
    variable: 'EASEL_REDIS_URL',
    field: 'redis',
    default: null,
    good: [
      ['redis://127.0.0.1:6379', { url: 'redis://127.0.0.1:6379', db: 0, display: 'redis://127.0.0.1:6379/0' }],
      ['redis://:pw@cache.internal:6380/3', { url: 'redis://:pw@cache.internal:6380/3', db: 3, display: 'redis://cache.internal:6380/3' }],
      ['rediss://cache.internal/', { url: 'rediss://cache.internal/', db: 0, display: 'rediss://cache.internal/0' }],
    ],
    bad: ['http://cache:6379', 'redis://', 'redis://cache:6379/x', 'redis://cache/1/2', 'redis://cache?db=1', 'cache:6379'],
  },
  {
    variable: 'EASEL_BLOB_CACHE_MB',
    field: 'blobCacheBytes',
    default: 2048 * 1024 * 1024,
    good: [['16', 16 * 1024 * 1024]],
    bad: ['0', '15', 'lots'],
  },
  {
    variable: 'EASEL_S3_VIRTUAL_HOSTED',
    field: 'blobStore',
    default: null,
    good: [['on', { ...S3_DEFAULTS, virtualHostedStyle: true }]],
    bad: ['maybe'],
    with: { EASEL_BLOB_URL: 's3://easel-blobs' },
  },
  {
    variable: 'EASEL_LOG_LEVEL',
    field: 'logLevel',
    default: 'info',
    good: [
      ['debug', 'debug'],
      ['silent', 'silent'],
    ],
    bad: ['verbose'],
  },
];

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('configuration table', () => {
  test('the table covers every EASEL_* variable config.ts reads', () => {
    const source = readFileSync(join(import.meta.dir, '../src/config.ts'), 'utf8');
    const read = [...source.matchAll(/read\(\s*env,\s*'(EASEL_[A-Z0-9_]+)'/g)].map((m) => m[1]!).sort();
    expect(ROWS.map((r) => r.variable).sort()).toEqual(read);
  });

  test('the configuration reference documents every variable', () => {
    const readme = readFileSync(join(import.meta.dir, '../docs/configuration.md'), 'utf8');
    const missing = ROWS.map((r) => r.variable).filter((v) => !readme.includes(`\`${v}\``));
    expect(missing).toEqual([]);
  });

  for (const row of ROWS) {
    describe(row.variable, () => {
      test('default', () => {
        expect(loadConfig({})[row.field]).toEqual(row.default as never);
        // An empty value counts as unset (systemd's `Environment=X=`).
        expect(loadConfig({ [row.variable]: '' })[row.field]).toEqual(row.default as never);
      });
      for (const [raw, expected] of row.good) {
        test(`accepts ${JSON.stringify(raw)}`, () => {
          expect(loadConfig({ ...row.with, [row.variable]: raw })[row.field]).toEqual(expected as never);
        });
      }
      for (const raw of row.bad) {
        test(`refuses ${JSON.stringify(raw)} with one line naming the variable`, () => {
          const err = refusal({ [row.variable]: raw });
          expect(err.variable).toBe(row.variable);
          expect(err.message.startsWith(`${row.variable}: expected `)).toBe(true);
          expect(err.message).not.toContain('\n');
        });
      }
    });
  }
});

describe('configuration rules across variables', () => {
  test("EASEL_BLOB_URL takes the endpoint and credentials from Bun's S3_* variables first, then the AWS CLI's; a secret is never echoed", () => {
    const aws = {
      EASEL_BLOB_URL: 's3://easel-blobs/p',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9000',
      AWS_ACCESS_KEY_ID: 'AKIDAWS',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      AWS_REGION: 'eu-west-1',
    };
    expect(loadConfig(aws).blobStore).toEqual({
      ...S3_DEFAULTS,
      prefix: 'p/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      accessKeyId: 'AKIDAWS',
      secretAccessKey: 'aws-secret',
    });
    const both = { ...aws, S3_ENDPOINT: 'https://s3.example.com', S3_ACCESS_KEY_ID: 'AKIDBUN', S3_SECRET_ACCESS_KEY: 'bun-secret' };
    expect(loadConfig(both).blobStore).toMatchObject({
      endpoint: 'https://s3.example.com',
      accessKeyId: 'AKIDBUN',
      secretAccessKey: 'bun-secret',
    });
    const wrong = refusal({ ...aws, S3_ENDPOINT: 'ftp://nope' });
    expect(wrong.variable).toBe('S3_ENDPOINT');
    const leaked = refusal({ EASEL_BLOB_URL: 's3://AKID:topsecret@bucket' });
    expect(leaked.message).not.toContain('topsecret');
  });

  test('EASEL_DATABASE_URL may carry a password: a refusal never echoes it', () => {
    const leaked = refusal({ EASEL_DATABASE_URL: 'postgres://easel:topsecret@db/a/b' });
    expect(leaked.variable).toBe('EASEL_DATABASE_URL');
    expect(leaked.message).not.toContain('topsecret');
  });

  test('EASEL_REDIS_URL may carry a password: a refusal never echoes it', () => {
    const leaked = refusal({ EASEL_REDIS_URL: 'redis://:topsecret@cache/x' });
    expect(leaked.variable).toBe('EASEL_REDIS_URL');
    expect(leaked.message).not.toContain('topsecret');
  });

  test('path mode under proxy sign-in starts only with EASEL_PATH_MODE_TRUSTED_AUTHORS=on (issue 23 item 1); dev sign-in and subdomain mode need nothing', () => {
    const refused = refusal({ EASEL_AUTH_MODE: 'proxy' });
    expect(refused.variable).toBe('EASEL_PATH_MODE_TRUSTED_AUTHORS');
    expect(refused.message).toContain('any canvas author can act as any visitor');
    expect(refused.message).toContain('EASEL_URL_MODE=subdomain');
    expect(refusal({ EASEL_AUTH_MODE: 'proxy', EASEL_PATH_MODE_TRUSTED_AUTHORS: 'off' }).variable).toBe('EASEL_PATH_MODE_TRUSTED_AUTHORS');
    expect(loadConfig({ EASEL_AUTH_MODE: 'proxy', EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on' }).urlMode).toBe('path');
    expect(loadConfig({}).authMode).toBe('dev');
    expect(
      loadConfig({ EASEL_AUTH_MODE: 'proxy', EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: 'https://easel.example.com' })
        .pathModeTrustedAuthors,
    ).toBe(false);
  });

  test('base URL follows the port; API base and canvas host follow the base URL', () => {
    const c = loadConfig({ EASEL_PORT: '9000' });
    expect([c.baseUrl, c.apiBaseUrl, c.canvasHost]).toEqual(['http://localhost:9000', 'http://localhost:9000', 'localhost:9000']);
    const d = loadConfig({ EASEL_BASE_URL: 'https://easel.example.com' });
    expect([d.apiBaseUrl, d.canvasHost]).toEqual(['https://easel.example.com', 'easel.example.com']);
  });

  test('subdomain mode starts without a cookie domain (canvas hosts get their own sessions); one given is read, and ignored', () => {
    const sub = { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: 'https://easel.example.com', EASEL_CANVAS_HOST: 'apps.example.com' };
    expect(loadConfig(sub)).toMatchObject({ urlMode: 'subdomain', cookieDomain: null, canvasHost: 'apps.example.com' });
    // Kept only so the start line can say it is ignored (src/main.ts).
    expect(loadConfig({ ...sub, EASEL_COOKIE_DOMAIN: '.example.com' }).cookieDomain).toBe('example.com');
    expect(loadConfig({ ...sub, EASEL_COOKIE_DOMAIN: 'other.com', EASEL_API_BASE_URL: 'https://api.elsewhere.net' }).urlMode).toBe(
      'subdomain',
    );
    // The canvas host defaults to the base URL's host.
    expect(loadConfig({ EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: 'https://easel.example.com:8443' }).canvasHost).toBe(
      'easel.example.com:8443',
    );
  });

  test('oidc needs the issuer, the client id and secret, and an https issuer unless it is on loopback', () => {
    const oidc = {
      EASEL_AUTH_MODE: 'oidc',
      EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on',
      EASEL_OIDC_ISSUER: 'https://id.example.com',
      EASEL_OIDC_CLIENT_ID: 'easel',
      EASEL_OIDC_CLIENT_SECRET: 's3cret',
    };
    expect(loadConfig(oidc)).toMatchObject({ authMode: 'oidc', oidcIssuer: 'https://id.example.com', oidcEmailClaim: 'email' });
    for (const missing of ['EASEL_OIDC_ISSUER', 'EASEL_OIDC_CLIENT_ID', 'EASEL_OIDC_CLIENT_SECRET']) {
      expect(refusal({ ...oidc, [missing]: '' }).variable).toBe(missing);
    }
    expect(refusal({ ...oidc, EASEL_OIDC_ISSUER: 'http://id.example.com' }).variable).toBe('EASEL_OIDC_ISSUER');
    expect(loadConfig({ ...oidc, EASEL_OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidcIssuer).toBe('http://127.0.0.1:9000');
    expect(loadConfig({ ...oidc, EASEL_OIDC_ISSUER: 'http://localhost:9000/realms/x' }).authMode).toBe('oidc');
    // All of 127.0.0.0/8 is loopback; a name that only starts like it is not.
    expect(loadConfig({ ...oidc, EASEL_OIDC_ISSUER: 'http://127.0.0.2:9000' }).oidcIssuer).toBe('http://127.0.0.2:9000');
    expect(refusal({ ...oidc, EASEL_OIDC_ISSUER: 'http://127.0.0.2.example.com' }).variable).toBe('EASEL_OIDC_ISSUER');
    // Like proxy sign-in, path mode with oidc needs the trusted-authors switch.
    expect(refusal({ ...oidc, EASEL_PATH_MODE_TRUSTED_AUTHORS: '' }).variable).toBe('EASEL_PATH_MODE_TRUSTED_AUTHORS');
  });

  test('secret values are never echoed in a refusal', () => {
    for (const [variable, raw] of [
      ['EASEL_SECRET_KEY', 'hunter2-not-a-key'],
      ['EASEL_AI_API_KEY', '   '],
      ['EASEL_OIDC_CLIENT_SECRET', '   '],
    ] as const) {
      const err = refusal({ [variable]: raw });
      expect(err.message).toContain('(not shown)');
      if (raw.trim()) expect(err.message).not.toContain(raw);
    }
    expect(refusal({ EASEL_PORT: 'abc' }).message).toBe('EASEL_PORT: expected an integer from 0 to 65535, got "abc"');
  });

  test('the first bad variable is named when several are wrong', () => {
    expect(refusal({ EASEL_PORT: 'x', EASEL_LOG_LEVEL: 'loud' }).variable).toBe('EASEL_PORT');
  });

  test('withBoundPort fills the real port into URLs that defaulted to port 0, and nothing else', () => {
    const c = loadConfig({ EASEL_PORT: '0' });
    withBoundPort(c, 41234);
    expect([c.baseUrl, c.apiBaseUrl, c.canvasHost]).toEqual(['http://localhost:41234', 'http://localhost:41234', 'localhost:41234']);
    const explicit = loadConfig({ EASEL_PORT: '0', EASEL_BASE_URL: 'https://easel.example.com', EASEL_CANVAS_HOST: 'canvas.example.com' });
    withBoundPort(explicit, 41234);
    expect([explicit.baseUrl, explicit.canvasHost]).toEqual(['https://easel.example.com', 'canvas.example.com']);
    const fixed = loadConfig({ EASEL_PORT: '8080' });
    withBoundPort(fixed, 41234);
    expect(fixed.baseUrl).toBe('http://localhost:8080');
  });
});
