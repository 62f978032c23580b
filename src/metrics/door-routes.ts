// The metrics door (GET /metrics): an instance admin's session or the
// EASEL_METRICS_TOKEN bearer, checked by the route itself (src/metrics/routes.ts),
// so the door resolves nothing for the handler.
import { doorRoute } from '../http/declared-route.ts';

export const metricsRoute = doorRoute<unknown>('metrics');
