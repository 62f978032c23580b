// Runs s3rver (an S3-compatible server from npm) on a loopback port for the
// tests; prints `port <n>` once it listens. Run by Node, not Bun: s3rver's
// list pagination encrypts its continuation tokens with DES, which Bun's
// crypto lacks (Node needs --openssl-legacy-provider for it).
const S3rver = require('s3rver');

const [directory, ...buckets] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory,
  silent: true,
  configureBuckets: buckets.map((name) => ({ name })),
});
server.run().then(
  ({ port }) => process.stdout.write(`port ${port}\n`),
  (err) => {
    process.stderr.write(`s3rver: ${err.stack || err}\n`);
    process.exit(1);
  },
);
process.on('SIGTERM', () => server.close().finally(() => process.exit(0)));
// The test process holds our stdin: when it ends, however it ends, so do we.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
