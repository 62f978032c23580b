// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// OIDC in Chromium (issue 17 item 4): the whole browser flow against a real
// OpenID provider on a loopback port: sign in from the dashboard, the
// provider, the callback, the session, returnTo, and signing out at both ends.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Events, OAuth2Server } from 'oauth2-mock-server';
import type { Browser, BrowserContext } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { closeBrowserSuite, launchChromium } from './helpers.ts';

let provider: OAuth2Server;
let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  provider = new OAuth2Server();
  await provider.issuer.keys.generate('RS256');
  await provider.start(0, '127.0.0.1');
  provider.service.on(Events.BeforeTokenSigning, (token) =>
    Object.assign(token.payload, { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' }),
  );
  app = await startTestApp({
    listen: true,
    env: {
      EASEL_AUTH_MODE: 'oidc',
      EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on',
      EASEL_OIDC_ISSUER: provider.issuer.url!,
      EASEL_OIDC_CLIENT_ID: 'easel-browser-test',
      EASEL_OIDC_CLIENT_SECRET: 'not-a-real-secret',
    },
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await closeBrowserSuite(contexts, browser, app);
  await provider?.stop();
});

describe('oidc in the browser', () => {
  test('sign in from the dashboard through the provider, land back signed in, sign out at both ends', async () => {
    const origin = dashboardOrigin(app.ctx.config);
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.locator('#who a', { hasText: 'Sign in' }).click();
    await page.waitForURL(`${origin}/`);
    await page.locator('#who', { hasText: 'Signed in as Grace Hopper (grace@example.com)' }).waitFor();
    const session = (await context.cookies()).find((c) => c.name === 'easel_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', domain: 'localhost' });

    // A page that needed sign-in comes back to where it was.
    await page.goto(`${origin}/auth/login?returnTo=${encodeURIComponent('/?from=returnTo')}`);
    await page.waitForURL(`${origin}/?from=returnTo`);

    const visited: string[] = [];
    page.on('request', (r) => visited.push(new URL(r.url()).pathname));
    await page.locator('#who button', { hasText: 'Sign out' }).click();
    await page.waitForURL(`${origin}/`);
    await page.locator('#who', { hasText: 'Not signed in.' }).waitFor();
    expect(visited).toContain('/endsession');
    expect((await context.cookies()).some((c) => c.name === 'easel_session' && c.value !== '')).toBe(false);
  });
});
