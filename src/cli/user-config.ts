// Where `easel login` keeps its tokens: $XDG_CONFIG_HOME/easel/config.json
// (else ~/.config/easel/config.json), readable by the user alone, one entry
// per instance and the one used last. EASEL_TOKEN overrides it (CI).
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Login {
  token: string;
  /** The token's id, to revoke it at logout (unknown for a pasted token). */
  tokenId: string | null;
  email: string;
}

export interface UserConfig {
  current: string | null;
  instances: Record<string, Login>;
}

type Env = Record<string, string | undefined>;

export function configPath(env: Env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'easel', 'config.json');
}

export function readUserConfig(env: Env): UserConfig {
  const path = configPath(env);
  if (!existsSync(path)) return { current: null, instances: {} };
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<UserConfig>;
    return {
      current: typeof raw.current === 'string' ? raw.current : null,
      instances: raw.instances && typeof raw.instances === 'object' ? raw.instances : {},
    };
  } catch {
    throw new Error(`${path} is not valid JSON: fix or delete it, then run easel login again`);
  }
}

/** Written beside and renamed, mode 0600 in a 0700 folder: a token is a password. */
export function writeUserConfig(env: Env, config: UserConfig): string {
  const path = configPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return path;
}

/** The token for an instance: EASEL_TOKEN first, then the stored login. */
export function tokenFor(env: Env, instance: string): string | null {
  const fromEnv = env.EASEL_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  return readUserConfig(env).instances[instance]?.token ?? null;
}
