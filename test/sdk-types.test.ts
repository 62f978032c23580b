// sdk/v1.d.ts is generated from the SDK's sources (src/serve/sdk-types.ts);
// this keeps the committed copy (served from source) honest. The first test
// fails when it is stale (`bun run sdk:types` rewrites it); `bun run
// typecheck` fails when the bundle's client and the published types drift
// apart (in either direction); the last test checks the runtime side.
import { expect, test } from 'bun:test';
import { SDK_TYPES } from '../src/serve/sdk-bundle.ts';
import { generateSdkTypes } from '../src/serve/sdk-types.ts';
import { createClient, type Easel as Built } from '../sdk/client.ts';
import type { Easel as Declared } from '../sdk/v1.d.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const builtMatchesDeclared: Same<Built, Declared> = true;

test(
  'sdk/v1.d.ts is what the SDK sources generate now (run `bun run sdk:types` after changing them)',
  async () => {
    expect(await Bun.file(SDK_TYPES).text()).toBe(await generateSdkTypes());
  },
  // The TypeScript compiler runs on the SDK's files: seconds on a loaded machine.
  120_000,
);

test('the client the bundle builds has every member v1.d.ts declares', () => {
  expect(builtMatchesDeclared).toBe(true);
  const client: Declared = createClient({ version: 'test', target: () => ({ apiBase: 'http://localhost:1', slug: 's' }) });
  expect(Object.keys(client).sort()).toEqual(
    [
      'CapabilityDisabledError',
      'EaselError',
      'PermissionDeniedError',
      'QuotaExceededError',
      'UnauthorizedError',
      'ai',
      'canvases',
      'collections',
      'connections',
      'files',
      'kv',
      'me',
      'realtime',
      'signIn',
      'submissions',
      'version',
    ].sort(),
  );
  expect(Object.keys(client.collections('c')).sort()).toEqual(
    ['clear', 'count', 'create', 'delete', 'get', 'increment', 'list', 'permissions', 'update'].sort(),
  );
  expect(Object.keys(client.submissions('s')).sort()).toEqual(['clear', 'list', 'mine', 'remove', 'submit', 'withdraw']);
  expect(Object.keys(client.canvases).sort()).toEqual(['create', 'list', 'revoke', 'update', 'zip']);
  expect(Object.keys(client.kv).sort()).toEqual(['delete', 'get', 'increment', 'list', 'set', 'user']);
  expect(Object.keys(client.kv.user).sort()).toEqual(['delete', 'get', 'increment', 'list', 'set']);
  expect(Object.keys(client.files).sort()).toEqual(['delete', 'list', 'rename', 'upload', 'url']);
  expect(Object.keys(client.ai).sort()).toEqual(['chat', 'stream']);
  expect(Object.keys(client.connections)).toEqual(['fetch']);
  expect(Object.keys(client.realtime).sort()).toEqual(['channel', 'onClose', 'onError', 'onOpen']);
  expect(Object.keys(client.realtime.channel('x')).sort()).toEqual([
    'close',
    'name',
    'onJoin',
    'onLeave',
    'presence',
    'publish',
    'subscribe',
  ]);
});
