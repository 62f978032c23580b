// HeldSnapshot (src/db/held-snapshot.ts): what a node holds whole in memory follows every change it hears.
import { expect, test } from 'bun:test';
import { ChangeCount } from '../src/db/change-signal.ts';
import { HeldSnapshot } from '../src/db/held-snapshot.ts';
import type { Sql } from '../src/db/sql.ts';

class Signal extends ChangeCount {
  storable(): boolean {
    return true;
  }
  hear(): void {
    this.move();
  }
}

test('a change heard while a reload reads is followed by another reload: the copy that lands is not older than the change', async () => {
  const changes = new Signal();
  const sql = { engine: 'postgres', changes } as unknown as Sql;
  let stored = 'v0';
  const reads: Array<PromiseWithResolvers<void>> = [];
  // Resolves once the n-th read has started: the snapshot's own signal that it began a reload.
  const readStarted: Array<PromiseWithResolvers<void>> = Array.from({ length: 4 }, () => Promise.withResolvers<void>());
  const errors: unknown[] = [];
  const snapshot = new HeldSnapshot(
    sql,
    async () => {
      const seen = stored;
      const gate = Promise.withResolvers<void>();
      reads.push(gate);
      readStarted[reads.length - 1]!.resolve();
      await gate.promise;
      return seen;
    },
    (err) => errors.push(err),
  );
  const loading = snapshot.load();
  reads[0]!.resolve();
  expect(await loading).toBe('v0');

  // Another node writes v1: the notification starts a reload, which reads v1 and is still on its way…
  stored = 'v1';
  changes.hear();
  await readStarted[1]!.promise;
  expect(reads).toHaveLength(2);
  // …when a second write (v2) commits and its notification arrives.
  stored = 'v2';
  changes.hear();
  reads[1]!.resolve();
  // The first reload landed v1, read before v2: the node reloads again at once, without waiting for a read.
  await readStarted[2]!.promise;
  expect(reads).toHaveLength(3);
  reads[2]!.resolve();
  expect(await snapshot.settled()).toBe('v2');
  expect(snapshot.get()).toBe('v2');
  expect(reads).toHaveLength(3);
  expect(errors).toEqual([]);
});
