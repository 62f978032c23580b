// The session door for auth's own routes (personal access tokens): the
// management builders in canvases/door-routes.ts are a layer above auth.
import { doorRoute } from '../http/declared-route.ts';
import type { User } from './users.ts';

/** What the session door resolves (src/server/auth-kinds.ts): canvases' Actor has this shape. */
export interface SignedInActor {
  user: User;
  isAdmin: boolean;
  /** The personal access token the caller sent, when it came with one rather than a session. */
  tokenId?: string;
}

export const signedInRoute = doorRoute<{ actor: SignedInActor }>('session');
