// A real S3-compatible server (s3rver) on a loopback port, one per suite,
// with the environment that points Easel at it.
import { S3Client } from 'bun';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** EASEL_BLOB_URL and the S3 variables for a given key prefix. */
  env(prefix: string): Record<string, string>;
  /** A client of the bucket, as anyone holding the credentials sees it. */
  client: S3Client;
  /** Stops answering while connections are still accepted (a hung store), until `resume`. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

export async function startS3Server(bucket = 'easel-test'): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'easel-s3-'));
  const proc = Bun.spawn(['node', '--openssl-legacy-provider', join(import.meta.dir, 's3rver-main.cjs'), directory, bucket], {
    // Its stdin closes when this process ends, however it ends: s3rver-main.cjs exits then.
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const port = await readPort(proc.stdout);
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    client: new S3Client({ endpoint, bucket, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }),
    pause: () => proc.kill('SIGSTOP'),
    resume: () => proc.kill('SIGCONT'),
    env: (prefix) => ({
      EASEL_BLOB_URL: `s3://${bucket}/${prefix}`,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    }),
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGCONT');
        proc.kill('SIGTERM');
      }
      await proc.exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function readPort(stdout: ReadableStream<Uint8Array>): Promise<number> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of stdout as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    const match = /port (\d+)\n/.exec(text);
    if (match) return Number(match[1]);
  }
  throw new Error(`s3rver exited before listening: ${text}`);
}
