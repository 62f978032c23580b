// The one check for an error answer: the exact status and body `code`, with a
// human message beside it. Returns the parsed body for further checks.
import { expect } from 'bun:test';
import { body } from './harness.ts';

export async function expectCode(res: Response, status: number, code: string): Promise<any> {
  const b = await body(res);
  expect({ status: res.status, code: b?.code }).toEqual({ status, code });
  expect(typeof b.message).toBe('string');
  return b;
}

/** The `{error}` shape (Deploy API auth and throttling, 401 of the gateway, the management 401/429): the whole body. */
export async function expectError(res: Response, status: number, error: string): Promise<any> {
  const b = await body(res);
  expect({ status: res.status, body: b }).toEqual({ status, body: { error } });
  return b;
}
