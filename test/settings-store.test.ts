// Instance settings on both engines: held in memory, saved through the
// port; price changes made at once merge; on Postgres another node's change
// reaches this node's memory once it hears of it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { loadConfig } from '../src/config.ts';
import type { Sql } from '../src/db/sql.ts';
import { DEFAULT_AI_PRICES, SettingsService } from '../src/settings/service.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

const config = loadConfig({ EASEL_DATA_DIR: '/nonexistent-settings-test', EASEL_AI_USER_DAILY_USD: '7' });

describe.each(ENGINES)('instance settings on %s', (name, make) => {
  let engine: TestEngine;
  let settings: SettingsService;
  beforeAll(async () => {
    engine = await make();
    settings = new SettingsService(engine.sql, config, () => 0);
    await settings.load();
  });
  afterAll(() => engine.close());

  test('defaults come from the configuration; an update answers with, and holds, the new settings; null resets', async () => {
    expect(settings.get().aiUserDailyUsd).toBe(7);
    expect((await settings.update({ aiUserDailyUsd: 3, publicLinks: false })).aiUserDailyUsd).toBe(3);
    expect(settings.get()).toMatchObject({ aiUserDailyUsd: 3, publicLinks: false });
    await settings.update({ aiUserDailyUsd: null });
    expect(settings.get().aiUserDailyUsd).toBe(7);
  });

  test('ten price changes at once, each for its own model, all land', async () => {
    await Promise.all(Array.from({ length: 10 }, (_, i) => settings.update({ aiPrices: { [`model-${i}`]: { input: i, output: i } } })));
    const prices = (await settings.load()).aiPrices;
    for (let i = 0; i < 10; i++) expect(prices[`model-${i}`]).toEqual({ input: i, output: i });
    expect(Object.keys(prices)).toEqual(expect.arrayContaining(Object.keys(DEFAULT_AI_PRICES)));
  });

  test.if(name === 'postgres')("another node's change reaches this node's memory once it hears of it", async () => {
    const peer: Sql = await engine.peer!();
    const other = new SettingsService(peer, config, () => 0);
    while (!peer.changes.storable()) await peer.changes.next();
    await other.load();
    expect(other.get().userCanvases).toBe(config.userCanvases);
    const heard = peer.changes.next();
    await settings.update({ userCanvases: 3 });
    await heard;
    // The first read after the change starts the reload (it answers the old settings, or the new ones when a
    // reload begun earlier has landed since: a change heard mid-reload starts another when it lands).
    expect([config.userCanvases, 3]).toContain(other.get().userCanvases);
    expect((await other.settled()).userCanvases).toBe(3);
    expect(other.get().userCanvases).toBe(3);
  });
});
