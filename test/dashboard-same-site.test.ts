// passes: embedded — a pure function of two addresses, no server
// The canvas page's live preview frames a canvas that needs sign-in only when
// it is on the dashboard's site (src/dashboard/ui/same-site.ts): a frame of
// another site can neither send nor set the canvas host's SameSite=Lax
// session. The registrable domain is guessed without the public suffix list,
// leaning to "another site" when unsure.
import { describe, expect, test } from 'bun:test';
import { frameable } from '../src/dashboard/ui/canvas-preview.ts';
import { sameSite, siteOf } from '../src/dashboard/ui/same-site.ts';

const url = (s: string) => new URL(s);

describe('same site', () => {
  test('the registrable domain: two labels, three under a short second label of a country code, a host of its own otherwise', () => {
    expect(siteOf('poll.canvas.example.com')).toBe('example.com');
    expect(siteOf('Easel.Example.com.')).toBe('example.com');
    expect(siteOf('poll.easel.example.co.uk')).toBe('example.co.uk');
    expect(siteOf('team-room.localhost')).toBe('team-room.localhost');
    expect(siteOf('localhost')).toBe('localhost');
    expect(siteOf('10.0.0.7')).toBe('10.0.0.7');
  });

  test('canvas hosts under the dashboard’s domain are its site; *.localhost, another domain or another scheme are not', () => {
    expect(sameSite(url('https://poll.canvas.example.com/'), url('https://easel.example.com/#/canvas/x'))).toBe(true);
    expect(sameSite(url('http://poll.easel.localhost:8080/'), url('http://easel.localhost:8080/'))).toBe(true);
    expect(sameSite(url('http://localhost:8080/c/poll/'), url('http://localhost:8080/'))).toBe(true);
    // Chromium counts each *.localhost as a site of its own (the README's laptop set-up).
    expect(sameSite(url('http://poll.localhost:8080/'), url('http://localhost:8080/'))).toBe(false);
    expect(sameSite(url('https://poll.easel-canvas.net/'), url('https://easel.example.com/'))).toBe(false);
    expect(sameSite(url('http://poll.canvas.example.com/'), url('https://easel.example.com/'))).toBe(false);
    expect(sameSite(url('https://poll.example.co.uk/'), url('https://other.co.uk/'))).toBe(false);
    expect(sameSite(url('http://10.0.0.8/'), url('http://10.0.0.7/'))).toBe(false);
  });

  test('the live preview frames what needs no sign-in anywhere, and what does only on the dashboard’s site', () => {
    const dashboard = url('http://localhost:8080/');
    const at = (accessMode: 'restricted' | 'whole_org' | 'public_link', hasPassword = false, where = 'http://poll.localhost:8080/') => ({
      url: where,
      accessMode,
      hasPassword,
    });
    expect(frameable(at('public_link'), dashboard)).toBe(true);
    expect(frameable(at('public_link', true), dashboard)).toBe(false);
    expect(frameable(at('restricted'), dashboard)).toBe(false);
    expect(frameable(at('whole_org'), dashboard)).toBe(false);
    expect(frameable(at('restricted', false, 'http://localhost:8080/c/poll/'), dashboard)).toBe(true);
  });
});
