// The Deploy API's door with what it resolves (src/server/auth-kinds.ts): the
// canvas whose key was sent. `doorOption: 'finalize'` also admits the key a
// staged upload began with (src/deploy/key-auth.ts).
import { doorRoute } from '../http/declared-route.ts';
import type { Canvas } from '../canvases/record.ts';
import type { DeployKeyMode } from './key-auth.ts';

export const deployKeyRoute = doorRoute<{ canvas: Canvas }, { doorOption?: true | DeployKeyMode }>('deployKey');
