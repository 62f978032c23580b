// The editor preview's address token (src/drafts/preview-token.ts): good for
// its canvas and its hour only, and not forgeable.
import { expect, test } from 'bun:test';
import { PREVIEW_TOKEN_MS, previewToken, previewTokenUser } from '../src/drafts/preview-token.ts';

const secret = Buffer.alloc(32, 7);
const now = Date.UTC(2026, 10, 26, 12);

test('its canvas, its hour, its signature', () => {
  const token = previewToken(secret, 'canvas-a', 'user1', now);
  expect(previewTokenUser(secret, 'canvas-a', token, now)).toBe('user1');
  expect(previewTokenUser(secret, 'canvas-a', token, now + PREVIEW_TOKEN_MS - 1)).toBe('user1');
  expect(previewTokenUser(secret, 'canvas-a', token, now + PREVIEW_TOKEN_MS)).toBeNull();
  expect(previewTokenUser(secret, 'canvas-b', token, now)).toBeNull();
  expect(previewTokenUser(Buffer.alloc(32, 8), 'canvas-a', token, now)).toBeNull();
  const [user, exp, sig] = token.split('.');
  // Another person or a later expiry under the same signature.
  expect(previewTokenUser(secret, 'canvas-a', `user2.${exp}.${sig}`, now)).toBeNull();
  expect(previewTokenUser(secret, 'canvas-a', `${user}.${(now + 10 * PREVIEW_TOKEN_MS).toString(36)}.${sig}`, now)).toBeNull();
  for (const bad of ['', 'a', 'a.b', 'a.b.c.d', `${user}.${exp}.`, `${user}.${exp}.${sig}x`])
    expect(previewTokenUser(secret, 'canvas-a', bad, now)).toBeNull();
});
