// Name resolution for Connections, done by us before every socket (spec
// "Connections rules" 5): every answer must be a public address, and one
// private answer among public ones refuses the lot (a DNS-rebinding name
// must not get a chance). EASEL_CONNECTIONS_RESOLVE pins are the one way to
// a non-public address: the operator vouched for them.
import { lookup } from 'node:dns/promises';
import { AppError } from '../errors.ts';
import { isIpAddress } from '../net/ip.ts';
import { classifyAddress } from './ip.ts';

/** All A/AAAA answers for a host name. Injectable (tests feed hostile answers). */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** `host:port` → pinned addresses. */
export type Pins = Map<string, string[]>;

/** Parses `host:port:address[,…]` (already shape-checked by the config). */
export function parsePins(spec: string | null): Pins {
  const pins: Pins = new Map();
  for (const entry of (spec ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [host = '', port = '', ...rest] = entry.split(':');
    const address = rest.join(':').replace(/^\[|\]$/g, '');
    if (!isIpAddress(address)) throw new Error(`EASEL_CONNECTIONS_RESOLVE: ${entry}: not an IP address`);
    const key = `${host.toLowerCase()}:${Number(port)}`;
    pins.set(key, [...(pins.get(key) ?? []), address]);
  }
  return pins;
}

export interface CheckedAddresses {
  addresses: string[];
  pinned: boolean;
}

/**
 * The addresses to connect to, IPv4 first. Throws CONNECTION_DNS_FAILED when
 * the name does not resolve, CONNECTION_ADDRESS_REFUSED when any answer is not
 * public. The refusal names the range, never the address (the server log has it).
 */
export async function resolveChecked(
  hostname: string,
  port: number,
  resolver: Resolver,
  pins: Pins,
  onRefused: (address: string, range: string) => void,
): Promise<CheckedAddresses> {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  const pinned = pins.get(`${name}:${port}`);
  if (pinned) return { addresses: pinned, pinned: true };
  let answers: string[];
  try {
    answers = await resolver(name);
  } catch {
    throw new AppError('CONNECTION_DNS_FAILED', `the host name ${name} could not be resolved`);
  }
  if (answers.length === 0) throw new AppError('CONNECTION_DNS_FAILED', `the host name ${name} has no addresses`);
  for (const address of answers) {
    const verdict = classifyAddress(address);
    if (!verdict.public) {
      onRefused(address, verdict.range);
      throw new AppError(
        'CONNECTION_ADDRESS_REFUSED',
        `the host name ${name} resolves to a non-public address (${verdict.range}); Connections reach public addresses only`,
      );
    }
  }
  const v4 = answers.filter((a) => a.includes('.') && !a.includes(':'));
  return { addresses: [...v4, ...answers.filter((a) => !v4.includes(a))], pinned: false };
}
