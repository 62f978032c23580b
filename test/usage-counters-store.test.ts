// Usage counters fold into usage_daily on both engines: flushes add up.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { realScheduler } from '../src/clock.ts';
import { EventBus } from '../src/events.ts';
import { createLogger } from '../src/log.ts';
import { UsageCounters, utcDay } from '../src/runtime/usage.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

describe.each(ENGINES)('usage counters on %s', (_name, make) => {
  let engine: TestEngine;
  let usage: UsageCounters;
  const now = Date.UTC(2026, 10, 26, 12);
  beforeAll(async () => {
    engine = await make();
    usage = new UsageCounters({
      sql: engine.sql,
      events: new EventBus(() => {}),
      log: createLogger('silent'),
      now: () => now,
      scheduler: realScheduler,
    });
  });
  afterAll(() => engine.close());

  test('counts made between flushes add to the day row; other canvases and days stay apart', async () => {
    usage.add('a', 'requests');
    usage.add('a', 'kvReads', 3);
    usage.add('b', 'fileBytesIn', 1000);
    await usage.flush();
    usage.add('a', 'requests', 2);
    usage.add('a', 'fileBytesOut', 5_000_000_000);
    await usage.flush();
    await usage.flush();
    expect(await usage.read('a', '2026-11-26')).toEqual({
      requests: 3,
      kvReads: 3,
      kvWrites: 0,
      fileBytesIn: 0,
      fileBytesOut: 5_000_000_000,
    });
    expect(await usage.read('b', '2026-11-26')).toMatchObject({ fileBytesIn: 1000, requests: 0 });
    expect(await usage.read('a', '2026-11-25')).toBeNull();
  });
});

describe('utcDay', () => {
  test('names the UTC day of any moment, also when moments go back and forth across midnight', () => {
    const midnight = Date.UTC(2026, 10, 27);
    const moments = [midnight - 1, midnight, midnight + 1, midnight - 1, Date.UTC(1969, 11, 31, 23, 59), 0, Date.UTC(2028, 1, 29, 12)];
    for (const ms of moments) expect(utcDay(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
    expect(utcDay(midnight - 1)).toBe('2026-11-26');
    expect(utcDay(midnight)).toBe('2026-11-27');
  });
});
