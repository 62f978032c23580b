// What an instance admin changes, done as the admin does it: through the
// admin API (PATCH /api/admin/settings, PATCH /api/admin/users/{id}), so a
// test's setup goes through the same checks, events and audit as the product.
import { expect } from 'bun:test';
import { body, type TestApp } from './harness.ts';

/** PATCH /api/admin/settings (null resets a key to its default); the new settings view. */
export async function adminSettings(app: TestApp, adminCookie: string, patch: Record<string, unknown>): Promise<any> {
  const res = await app.request('/api/admin/settings', { method: 'PATCH', cookie: adminCookie, json: patch });
  const answer = await body(res);
  expect({ status: res.status, answer }).toEqual({ status: 200, answer: expect.anything() });
  return answer;
}

/** PATCH /api/admin/users/{id} (active, canPublishPublic, orgId…); the user's new view. */
export async function adminUser(app: TestApp, adminCookie: string, userId: string, patch: Record<string, unknown>): Promise<any> {
  const res = await app.request(`/api/admin/users/${userId}`, { method: 'PATCH', cookie: adminCookie, json: patch });
  const answer = await body(res);
  expect({ status: res.status, answer }).toEqual({ status: 200, answer: expect.anything() });
  return answer;
}
