import type { Config } from '../config.ts';

// Over https the credential cookies carry the `__Host-` prefix: a browser
// then accepts them only host-only, Secure and on Path=/, so a sibling host
// (another canvas) cannot plant one with a Domain that reaches this host.
/** Cookies are `Secure` when the instance is served over https. */
export const secureCookies = (config: Pick<Config, 'baseUrl'>) => config.baseUrl.startsWith('https:');

const named = (config: Pick<Config, 'baseUrl'>, name: string) => (secureCookies(config) ? `__Host-${name}` : name);

/** The signed-in session (base host) or a canvas host's own session. */
export const sessionCookieName = (config: Pick<Config, 'baseUrl'>) => named(config, 'easel_session');
/** A legacy guest's session. */
export const guestCookieName = (config: Pick<Config, 'baseUrl'>) => named(config, 'easel_guest');
/** The canvas host's half of a sign-in handoff: only the browser that began it can finish it. */
export const handoffStateCookieName = (config: Pick<Config, 'baseUrl'>) => named(config, 'easel_handoff');
/** oidc mode: binds a sign-in at the provider to the browser that began it. */
export const oidcBrowserCookieName = (config: Pick<Config, 'baseUrl'>) => named(config, 'easel_oidc');
