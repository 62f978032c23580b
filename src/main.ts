#!/usr/bin/env bun
// The only file that reads process.env and argv.
import { ConfigError, loadConfig } from './config.ts';
import { createContext, VERSION } from './context.ts';
import { startServer } from './server.ts';

const HELP = `easel ${VERSION} — self-hosted canvas publishing

Usage:
  easel [serve]      start the server (configuration from EASEL_* variables)
  easel version      print the version
  easel help         this text

Configuration: see the README (EASEL_DATA_DIR, EASEL_PORT, EASEL_AUTH_MODE, …).`;

async function serve(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`easel: invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const ctx = createContext(config);
  const running = startServer(ctx);
  const base = config.port === 0 ? config.baseUrl.replace(/:\d+$/, `:${running.server.port}`) : config.baseUrl;
  process.stdout.write(`easel ${VERSION} listening on ${base} (data: ${config.dataDir}, auth: ${config.authMode}, urls: ${config.urlMode})\n`);
  if (config.authMode === 'dev') process.stdout.write('easel: warning: dev sign-in is on: anyone can sign in as anyone. Use EASEL_AUTH_MODE=proxy or oidc in production.\n');
  const stop = (signal: string) => {
    ctx.log.info('shutting down', { signal });
    running.shutdown().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`easel: shutdown failed: ${err}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve'] = argv;
  switch (command) {
    case 'serve':
      return serve();
    case 'version':
    case '--version':
      process.stdout.write(`easel ${VERSION}\n`);
      return;
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP + '\n');
      return;
    default:
      process.stderr.write(`easel: unknown command ${JSON.stringify(command)}\n\n${HELP}\n`);
      process.exit(2);
  }
}

await main(process.argv.slice(2));
