// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The dashboard's Tokens section in Chromium (issue 17 item 5): create (shown
// once, with the MCP configuration filled in), list, use, revoke.
import { describe, expect, test } from 'bun:test';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { dashboardPage, useBrowserSuite } from './helpers.ts';

const suite = useBrowserSuite();

describe('the Tokens section', () => {
  test('create one, copy its MCP configuration, see it listed and used, revoke it', async () => {
    const origin = dashboardOrigin(suite.app.ctx.config);
    const cookie = await suite.app.signIn('agent-owner@example.com', 'Agent Owner');
    const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
    await page.locator('#tokens').waitFor();

    await page.fill('#token-form input[name="name"]', 'my agent');
    await page.click('#token-form button');
    await page.locator('#token-created').waitFor();
    const token = await page.locator('#token-value').innerText();
    expect(token).toMatch(/^easel_pat_[0-9A-Za-z]{40}$/);
    const config = JSON.parse(await page.locator('#token-mcp').innerText());
    expect(config).toEqual({
      mcpServers: { easel: { type: 'http', url: `${origin}/mcp`, headers: { Authorization: `Bearer ${token}` } } },
    });

    const row = page.locator('#token-list tbody tr', { hasText: 'my agent' });
    await row.waitFor();
    expect(await row.locator('td').nth(2).innerText()).toBe('never');
    const me = await fetch(`${suite.app.base}/api/me`, { headers: { authorization: `Bearer ${token}` } });
    expect((await me.json()).email).toBe('agent-owner@example.com');
    // The token is shown once: a reload lists it without its secret.
    await page.reload();
    await page.locator('#token-list[data-ready="true"]').waitFor({ state: 'attached' });
    expect(await page.content()).not.toContain(token);
    await page.locator('#token-list tbody tr', { hasText: 'my agent' }).locator('button.revoke-token').click();
    await page.locator('#token-list tbody tr', { hasText: 'my agent' }).waitFor({ state: 'detached' });
    expect((await fetch(`${suite.app.base}/api/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  test('a token revoked while its secret is on show takes the secret and its MCP configuration away with it', async () => {
    const cookie = await suite.app.signIn('revoker@example.com', 'Revoker');
    const page = await dashboardPage(suite.browser, suite.app, cookie, suite.contexts);
    await page.locator('#tokens').waitFor();
    for (const name of ['kept', 'short-lived']) {
      await page.fill('#token-form input[name="name"]', name);
      await page.click('#token-form button');
      await page.locator('#token-list tbody tr', { hasText: name }).waitFor();
    }
    const secret = await page.locator('#token-value').innerText();
    // Revoking another token leaves the one on show.
    await page.locator('#token-list tbody tr', { hasText: 'kept' }).locator('button.revoke-token').click();
    await page.locator('#token-list tbody tr', { hasText: 'kept' }).waitFor({ state: 'detached' });
    expect(await page.locator('#token-created').isVisible()).toBe(true);
    await page.locator('#token-list tbody tr', { hasText: 'short-lived' }).locator('button.revoke-token').click();
    await page.locator('#token-created').waitFor({ state: 'hidden' });
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator('#token-none').isVisible()).toBe(true);
  });
});
