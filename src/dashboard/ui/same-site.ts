// Whether two addresses are the same site in the browser's sense (scheme and
// registrable domain: "example.com" for easel.example.com and
// poll.canvas.example.com). It matters for the canvas page's live preview: a
// frame of another site gets no SameSite=Lax cookie, and cannot be given one,
// so a canvas that needs sign-in cannot sign its visitor in inside it.
//
// The browser's list of public suffixes is not available to a page, and
// shipping it would weigh more than the dashboard itself, so the registrable
// domain is guessed: the last two labels, or three under a two-letter country
// code whose second label is short (co.uk, com.au). A wrong guess of "other
// site" costs a link instead of a frame; a wrong "same site" the frame the
// preview had before, so the guess leans to "other site": a single-label host
// (localhost, whose *.localhost subdomains Chromium counts as sites of their
// own) and an IP address are their own sites.

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** The registrable domain of `host` as guessed above (the host itself for an IP address or a single label). */
export function siteOf(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (IPV4.test(host) || host.startsWith('[')) return host;
  const labels = host.split('.');
  if (labels.length < 2) return host;
  const tld = labels[labels.length - 1]!;
  const second = labels[labels.length - 2]!;
  const keep = tld.length === 2 && second.length <= 3 && labels.length >= 3 ? 3 : 2;
  return labels.slice(-keep).join('.');
}

/** True when `a` and `b` are the same site: same scheme, same registrable domain (ports do not count). */
export function sameSite(a: URL, b: URL): boolean {
  if (a.protocol !== b.protocol) return false;
  if (a.hostname === b.hostname) return true;
  const site = siteOf(a.hostname);
  // A single label or an address is a site only of itself.
  return site.includes('.') && !IPV4.test(site) && site === siteOf(b.hostname);
}
