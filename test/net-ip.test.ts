// src/net/ip.ts: the one place addresses are parsed (on ipaddr.js). Strict
// forms only: notations other parsers read as other addresses are not
// addresses here, so neither the proxy trust list nor the SSRF policy can be
// talked around with them.
import { describe, expect, test } from 'bun:test';
import { classifyAddress } from '../src/connections/ip.ts';
import { ipInAny, ipInCidr, isCidrOrAddress, isIpAddress, networkOf, parseIPv6 } from '../src/net/ip.ts';

describe('parsing', () => {
  test.each([
    '127.1',
    '0x7f.1',
    '0x7f000001',
    '2130706433',
    '010.0.0.1',
    '1.2.3.04',
    '1.2.3.4.5',
    '256.0.0.1',
    'fe80::1%eth0',
    '::1::2',
    'localhost',
    '',
  ])('%p is not an address (and the SSRF policy refuses it as not-an-address)', (s) => {
    expect(isIpAddress(s)).toBe(false);
    expect(classifyAddress(s)).toEqual({ public: false, range: 'not-an-address' });
  });

  test('IPv6 with brackets, embedded IPv4 in the RFC 4291 sense', () => {
    expect(isIpAddress('[::1]')).toBe(true);
    expect(Array.from(parseIPv6('::127.0.0.1')!)).toEqual([...Array(12).fill(0), 127, 0, 0, 1]);
    expect(classifyAddress('::127.0.0.1')).toEqual({ public: false, range: 'ipv4-compatible:loopback' });
    expect(classifyAddress('[::ffff:127.0.0.1]')).toEqual({ public: false, range: 'ipv4-mapped:loopback' });
    expect(classifyAddress('::ffff:7f00:1')).toEqual({ public: false, range: 'ipv4-mapped:loopback' });
  });
});

describe('CIDR matching (EASEL_PROXY_TRUSTED_CIDRS)', () => {
  test('IPv4, IPv6, and IPv4-mapped peers against IPv4 ranges', () => {
    expect(ipInCidr('10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(ipInCidr('11.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(ipInCidr('::ffff:10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(ipInCidr('10.1.2.3', '::ffff:10.0.0.0/104')).toBe(true);
    expect(ipInCidr('::1', '::1/128')).toBe(true);
    expect(ipInCidr('::2', '::1/128')).toBe(false);
    expect(ipInCidr('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(ipInCidr('127.1', '127.0.0.0/8')).toBe(false);
    expect(ipInAny(null, ['0.0.0.0/0'])).toBe(false);
    expect(ipInAny('192.168.1.1', ['10.0.0.0/8', '192.168.0.0/16'])).toBe(true);
  });

  test.each([
    ['10.0.0.0/8', true],
    ['::1/128', true],
    ['127.0.0.1', true],
    ['300.1.1.1/8', false],
    ['10.0.0.0/33', false],
    ['::1/129', false],
    ['10.0.0.0/8/8', false],
    ['fe80::/10%eth0', false],
  ])('%p is a valid entry: %p', (entry, valid) => {
    expect(isCidrOrAddress(entry)).toBe(valid);
  });
});

describe('networkOf (anonymous rate-limit keys)', () => {
  test('IPv4 as itself, mapped IPv4 as IPv4, IPv6 as its /64 in one spelling', () => {
    expect(networkOf('203.0.113.9')).toBe('203.0.113.9');
    expect(networkOf('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(networkOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:0db8:0001:0002::9')).toBe('2001:db8:1:2::/64');
    expect(networkOf(null)).toBe('unknown');
  });
});
