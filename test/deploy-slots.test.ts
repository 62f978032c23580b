// The ZIP deploy gate (src/deploy/zip/slots.ts): at most `limit` deploys read
// at once; the next in line gets a freed slot first; giving a slot back twice
// frees it once.
import { expect, test } from 'bun:test';
import { DeploySlots } from '../src/deploy/zip/slots.ts';

test('at most the limit at once, first come first served, a release counts once', async () => {
  const slots = new DeploySlots(2);
  const order: string[] = [];
  const a = await slots.acquire();
  const b = await slots.acquire();
  const c = slots.acquire().then((release) => (order.push('c'), release));
  const d = slots.acquire().then((release) => (order.push('d'), release));
  await Promise.resolve();
  expect(order).toEqual([]);
  a();
  a(); // twice: still one slot
  const releaseC = await c;
  // Let every settled promise run: a second slot freed by the double release would let d in here.
  for (let i = 0; i < 5; i++) await Promise.resolve();
  expect(order).toEqual(['c']);
  b();
  const releaseD = await d;
  expect(order).toEqual(['c', 'd']);
  releaseC();
  releaseD();
  // Both free again: two more go at once.
  const [e, f] = await Promise.all([slots.acquire(), slots.acquire()]);
  e();
  f();
});
