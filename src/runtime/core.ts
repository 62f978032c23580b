import type { RuntimePipeline } from './pipeline.ts';
import type { UsageCounters } from './usage.ts';

/** What every runtime route needs: the one pipeline, and the usage counters it and the routes count into. */
export interface RuntimeCore {
  pipeline: RuntimePipeline;
  usage: UsageCounters;
}
