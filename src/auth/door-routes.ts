// The management doors with what they resolve (src/server/auth-kinds.ts): a
// signed-in person (a session or a personal access token), or an instance
// admin. Route files declare with these; they live here, below canvases/, so
// auth's own routes (tokens) use the same builders.
import { doorRoute } from '../http/declared-route.ts';
import type { User } from './users.ts';

/** Who is calling the management API (canvases/authority.ts decides what they may do). */
export interface Actor {
  user: User;
  isAdmin: boolean;
  /** The personal access token the caller sent, when it came with one rather than a session. */
  tokenId?: string;
}

export const sessionRoute = doorRoute<{ actor: Actor }>('session');
export const adminRoute = doorRoute<{ actor: Actor }>('admin');
