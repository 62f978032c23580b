// The management doors with what they resolve (src/server/auth-kinds.ts): a
// signed-in person, or an instance admin. Route files declare with these.
import { doorRoute } from '../http/declared-route.ts';
import type { Actor } from './authority.ts';

export const sessionRoute = doorRoute<{ actor: Actor }>('session');
export const adminRoute = doorRoute<{ actor: Actor }>('admin');
