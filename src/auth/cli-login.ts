// `easel login` through the browser (issue 22 item 2): the CLI opens
// /auth/cli with a PKCE-style challenge and a loopback port; the signed-in
// person approves; the browser is sent to the loopback port with a one-time
// code; the CLI trades the code and its verifier for a personal access token.
// The token never passes through the browser, and a code is useless without
// the verifier only the CLI that asked holds.
import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids.ts';

/** How long an approval waits for the CLI to collect its token. */
export const CLI_CODE_TTL_MS = 5 * 60 * 1000;
/** Approvals kept at once (a flood of approvals cannot grow memory without bound). */
const MAX_PENDING = 1000;

export interface CliRequest {
  port: number;
  state: string;
  challenge: string;
  /** What the token will be called, e.g. "easel CLI on laptop". */
  name: string;
}

/** The query of /auth/cli, checked; null when anything is off. */
export function parseCliRequest(query: URLSearchParams): CliRequest | null {
  const port = Number(query.get('port'));
  const state = query.get('state') ?? '';
  const challenge = query.get('challenge') ?? '';
  const name = (query.get('name') ?? 'easel CLI').trim();
  if (!Number.isInteger(port) || port < 1024 || port > 65535) return null;
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(state) || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) return null;
  if (name.length === 0 || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) return null;
  return { port, state, challenge, name };
}

export const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export class CliLogins {
  private readonly pending = new Map<string, { userId: string; challenge: string; name: string; expiresAt: number }>();

  constructor(private readonly now: () => number) {}

  /** The person approved: a one-time code for the CLI's loopback port. */
  approve(userId: string, request: CliRequest): string {
    this.sweep();
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    const code = randomBase62(32);
    this.pending.set(code, { userId, challenge: request.challenge, name: request.name, expiresAt: this.now() + CLI_CODE_TTL_MS });
    return code;
  }

  /** Who approved, once: the code is spent whether or not the verifier matches. */
  exchange(code: string, verifier: string): { userId: string; name: string } | null {
    const grant = this.pending.get(code);
    if (!grant) return null;
    this.pending.delete(code);
    if (grant.expiresAt <= this.now() || challengeOf(verifier) !== grant.challenge) return null;
    return { userId: grant.userId, name: grant.name };
  }

  private sweep(): void {
    const now = this.now();
    for (const [code, grant] of this.pending) if (grant.expiresAt <= now) this.pending.delete(code);
  }
}
