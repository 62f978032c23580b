// The Connections feature's runtime parts for one app: limits, timings and
// the way out (resolver, connector, pins, trusted CAs). Options let tests
// inject a resolver, a connector, a shorter deadline or smaller limits; the
// profiles themselves are data (ctx.connections).
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import type { Core } from '../foundation.ts';
import { ConnectionLimits } from './limits.ts';
import { parsePins, systemResolver } from './resolver.ts';
import { DEFAULT_TUNING, type ConnectionsTuning } from './tuning.ts';
import { bunConnector, type EgressDeps } from './upstream.ts';

/** The part of the app context this feature uses. */
export type ConnectionsDeps = Pick<Core, 'config' | 'connections' | 'log' | 'rateLimits'>;

export interface ConnectionsFeature {
  tuning: ConnectionsTuning;
  limits: ConnectionLimits;
  egress: EgressDeps;
}

export interface ConnectionsOptions {
  tuning?: Partial<ConnectionsTuning>;
  egress?: Partial<EgressDeps>;
}

export function createConnectionsFeature(ctx: ConnectionsDeps, options: ConnectionsOptions = {}): ConnectionsFeature {
  const tuning = { ...DEFAULT_TUNING, ...options.tuning };
  return {
    tuning,
    limits: new ConnectionLimits(tuning, ctx.rateLimits.counter({ enabled: true, maxKeys: 100_000 }), ctx.rateLimits.slots()),
    egress: {
      resolver: systemResolver,
      connector: bunConnector,
      pins: parsePins(ctx.config.connectionsResolve),
      ca: trustedCas(ctx.config.connectionsCaFile),
      onAddressRefused: (hostname, address, range) => ctx.log.warn('connections: address refused', { hostname, address, range }),
      ...options.egress,
    },
  };
}

/**
 * Bun's `tls.ca` replaces the default trust store rather than adding to it,
 * so an extra CA file is combined with Bun's default CA set (its bundled
 * roots and NODE_EXTRA_CA_CERTS). Read once, at start.
 */
function trustedCas(file: string | null): string[] | undefined {
  if (!file) return undefined;
  const extra = readFileSync(file, 'utf8');
  const withDefaults = tls as typeof tls & { getCACertificates?: (type: 'default') => string[] };
  const defaults = withDefaults.getCACertificates?.('default') ?? [...tls.rootCertificates];
  return [...defaults, extra];
}
