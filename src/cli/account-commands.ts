// `easel login <url>`, `easel logout`, `easel whoami`. Login opens the
// instance's approval page in the browser and waits on a loopback port for
// the one-time code, which it trades (with the verifier only it holds) for a
// personal access token; or, with --with-token, reads a token from stdin.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { challengeOf } from '../auth/cli-login.ts';
import { signInCardPage } from '../auth/login-page.ts';
import { ApiError, DeployApi } from './api-client.ts';
import { baseUrl, DEFAULT_INSTANCE, parseArgs, UsageError } from './args.ts';
import { session, type Env } from './people-api.ts';
import { findLink } from './project-link.ts';
import type { CliIO } from './progress.ts';
import { openInBrowser, runCommand } from './run.ts';
import { readUserConfig, writeUserConfig } from './user-config.ts';

export const LOGIN_USAGE = `Usage: easel login [<instance URL>] [--with-token] [--no-browser] [--json]

  Without a URL: EASEL_API_BASE_URL, the folder's link (.easel.json), the instance you
  signed in to last, else http://localhost:8080.

  Signs the CLI in: opens the instance in your browser, where you approve it,
  and stores a personal access token in ~/.config/easel/config.json (mode 0600).
  --with-token   read a personal access token from stdin instead (made in the dashboard)
  --no-browser   print the approval URL without opening a browser`;
export const LOGOUT_USAGE = `Usage: easel logout [--api <url>]   revokes the stored token and forgets it`;
export const WHOAMI_USAGE = `Usage: easel whoami [--api <url>] [--json]`;

/** How long the browser has to come back with the code. */
const LOGIN_WAIT_MS = 5 * 60 * 1000;

export interface AccountDeps {
  cwd: string;
  /** Reads all of stdin (--with-token). */
  readStdin: () => Promise<string>;
  openUrl?: (url: string) => boolean;
}

export function loginCommand(argv: string[], env: Env, io: CliIO, deps: AccountDeps): Promise<number> {
  return runCommand('login', LOGIN_USAGE, argv, io, async () => {
    const args = parseArgs(argv, { flags: ['--with-token', '--no-browser'] });
    if (args.help) return io.stdout(LOGIN_USAGE + '\n');
    if (args.positional.length > 1) throw new UsageError('one instance at a time, e.g. easel login https://easel.example.com');
    const base = baseUrl(
      args.positional[0] ?? env.EASEL_API_BASE_URL ?? findLink(deps.cwd)?.link.instance ?? readUserConfig(env).current ?? DEFAULT_INSTANCE,
      'the instance URL',
    );
    let login: { token: string; tokenId: string | null; email: string };
    if (args.flags.has('--with-token')) {
      const token = (await deps.readStdin()).trim();
      if (!token) throw new UsageError('--with-token reads the token from stdin, and it was empty');
      const me = await new DeployApi(base, token).send({ method: 'GET', path: '/api/me' }).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401)
          throw new ApiError('unauthorized', `${base} does not accept this token`, 401, null);
        throw err;
      });
      login = { token, tokenId: null, email: String(me.body?.email) };
    } else {
      login = await browserLogin(base, io, args.flags.has('--no-browser') ? undefined : (deps.openUrl ?? openInBrowser));
    }
    const config = readUserConfig(env);
    config.instances[base] = login;
    config.current = base;
    const path = writeUserConfig(env, config);
    if (args.flags.has('--json')) io.stdout(JSON.stringify({ instance: base, email: login.email, config: path }, null, 2) + '\n');
    else io.stdout(`signed in to ${base} as ${login.email} (token stored in ${path})\n`);
  });
}

async function browserLogin(base: string, io: CliIO, open: ((url: string) => boolean) | undefined) {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  let answer!: (result: { code: string } | { error: string }) => void;
  const answered = new Promise<{ code: string } | { error: string }>((resolve) => (answer = resolve));
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== '/callback' || url.searchParams.get('state') !== state) return new Response('not found', { status: 404 });
      const code = url.searchParams.get('code');
      answer(code ? { code } : { error: url.searchParams.get('error') ?? 'denied' });
      const text = code
        ? 'The Easel CLI is signed in. You can close this tab and go back to the terminal.'
        : 'Sign-in cancelled. You can close this tab.';
      return new Response(signInCardPage('Easel CLI', code ? 'Signed in' : 'Sign-in cancelled', text), {
        headers: { 'content-type': 'text/html; charset=utf-8', connection: 'close' },
      });
    },
  });
  try {
    const approve = new URL('/auth/cli', base);
    approve.search = new URLSearchParams({
      port: String(server.port),
      state,
      challenge: challengeOf(verifier),
      name: `easel CLI on ${hostname()}`.slice(0, 100),
    }).toString();
    const opened = open?.(approve.href) ?? false;
    io.stderr(
      `${opened ? 'Opened your browser to approve the CLI. If it did not open, visit' : 'To sign in, open'}:\n  ${approve.href}\nwaiting for the browser…\n`,
    );
    let timer: Timer | undefined;
    const result = await Promise.race([
      answered,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new ApiError('LOGIN_TIMEOUT', 'no answer from the browser within 5 minutes: run easel login again', 0, null)),
          LOGIN_WAIT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    if ('error' in result) throw new ApiError('LOGIN_CANCELLED', 'the sign-in was cancelled in the browser', 0, null);
    const reply = await new DeployApi(base, '').send({
      method: 'POST',
      path: '/auth/cli/token',
      body: () => JSON.stringify({ code: result.code, verifier }),
      contentType: 'application/json',
    });
    const body = reply.body as { token: string; tokenId: string; user: { email: string } };
    return { token: body.token, tokenId: body.tokenId, email: body.user.email };
  } finally {
    // Not forced: the browser's page must still get its answer.
    void server.stop();
  }
}

export function logoutCommand(argv: string[], env: Env, io: CliIO, deps: AccountDeps): Promise<number> {
  return runCommand('logout', LOGOUT_USAGE, argv, io, async () => {
    const args = parseArgs(argv, { values: ['--api'] });
    if (args.help) return io.stdout(LOGOUT_USAGE + '\n');
    const config = readUserConfig(env);
    const base = args.values['--api'] ? baseUrl(args.values['--api'], '--api') : config.current;
    const login = base ? config.instances[base] : undefined;
    if (!base || !login) {
      io.stdout('not signed in\n');
      return;
    }
    let revoked = false;
    if (login.tokenId) {
      // The server forgets the token too; a server that cannot be reached does not keep you signed in here.
      revoked = await session(base, { ...env, EASEL_TOKEN: login.token }, deps.cwd)
        .call('DELETE', `/api/tokens/${encodeURIComponent(login.tokenId)}`)
        .then(
          () => true,
          () => false,
        );
    }
    delete config.instances[base];
    if (config.current === base) config.current = Object.keys(config.instances)[0] ?? null;
    writeUserConfig(env, config);
    io.stdout(
      `signed out of ${base}${revoked ? ' (token revoked)' : login.tokenId ? ' (the server could not be reached: revoke the token in the dashboard)' : ' (revoke a pasted token in the dashboard)'}\n`,
    );
  });
}

export function whoamiCommand(argv: string[], env: Env, io: CliIO, deps: AccountDeps): Promise<number> {
  return runCommand('whoami', WHOAMI_USAGE, argv, io, async () => {
    const args = parseArgs(argv, { values: ['--api'] });
    if (args.help) return io.stdout(WHOAMI_USAGE + '\n');
    const s = session(args.values['--api'], env, deps.cwd);
    const me = await s.call('GET', '/api/me');
    if (args.flags.has('--json')) io.stdout(JSON.stringify({ instance: s.base, ...me }, null, 2) + '\n');
    else io.stdout(`${String(me.email)}${me.name ? ` (${String(me.name)})` : ''} on ${s.base}${me.isAdmin ? ', instance admin' : ''}\n`);
  });
}
