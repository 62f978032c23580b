// The runtime API's door with what it resolves (src/server/auth-kinds.ts): the
// caller, after the runtime pipeline for the canvas in the path ran with the
// declared capability (or options).
import { doorRoute } from '../http/declared-route.ts';
import type { PipelineOptions, RuntimeCaller } from './pipeline.ts';

export const runtimeRoute = doorRoute<{ caller: RuntimeCaller }, { doorOption: PipelineOptions['capability'] | PipelineOptions }>(
  'runtime',
);
