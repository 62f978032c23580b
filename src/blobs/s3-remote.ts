// Blobs on S3 or an S3-compatible server, through Bun's built-in client.
// Objects are named `<prefix><sha256>`; files over one part go up as a
// multipart upload, read from disk a part at a time.
import { S3Client, type S3File } from 'bun';
import type { BlobRemote, RemoteBlob } from './remote.ts';

const HASH = /^[0-9a-f]{64}$/;
/** S3's smallest part (but the last); files up to it go in one PUT. */
const PART_BYTES = 5 * 1024 * 1024;

export interface S3Settings {
  bucket: string;
  prefix: string;
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  sessionToken: string | null;
  virtualHostedStyle: boolean;
}

export class S3BlobRemote implements BlobRemote {
  readonly location: string;
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    this.location = `s3://${settings.bucket}/${settings.prefix}`;
    this.client = new S3Client({
      bucket: settings.bucket,
      region: settings.region,
      virtualHostedStyle: settings.virtualHostedStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId ? { accessKeyId: settings.accessKeyId } : {}),
      ...(settings.secretAccessKey ? { secretAccessKey: settings.secretAccessKey } : {}),
      ...(settings.sessionToken ? { sessionToken: settings.sessionToken } : {}),
    });
  }

  private object(hash: string): S3File {
    if (!HASH.test(hash)) throw new Error('not a sha256 hex digest');
    return this.client.file(this.settings.prefix + hash);
  }

  async upload(hash: string, path: string): Promise<void> {
    const file = Bun.file(path);
    const object = this.object(hash);
    if (file.size <= PART_BYTES) {
      await object.write(await file.bytes(), { type: 'application/octet-stream' });
      return;
    }
    // Bun's writer takes every write at once (no backpressure), so handing it the whole file or a stream buffers
    // all of it (a 95 MB deploy peaked at 390 MB): each part is read and flushed before the next.
    const writer = object.writer({ type: 'application/octet-stream', partSize: PART_BYTES, retry: 3 });
    try {
      for (let at = 0; at < file.size; at += PART_BYTES) {
        await writer.write(await file.slice(at, at + PART_BYTES).bytes());
        await writer.flush();
      }
      await writer.end();
    } catch (err) {
      await Promise.resolve(writer.end(err instanceof Error ? err : new Error(String(err)))).catch(() => {});
      throw err;
    }
  }

  async open(hash: string): Promise<ReadableStream<Uint8Array> | null> {
    // A missing object only shows once the body is read: stat first, so "absent" is an answer, not a failed stream.
    if ((await this.stat(hash)) === null) return null;
    return this.object(hash).stream();
  }

  async stat(hash: string): Promise<RemoteBlob | null> {
    try {
      const stat = await this.object(hash).stat();
      return { hash, size: stat.size, modifiedMs: stat.lastModified.getTime() };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(hash: string): Promise<void> {
    try {
      await this.object(hash).delete();
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async *list(): AsyncIterable<RemoteBlob> {
    let continuationToken: string | undefined;
    do {
      const page = await this.client.list({
        prefix: this.settings.prefix,
        maxKeys: 1000,
        ...(continuationToken ? { continuationToken } : {}),
      });
      for (const entry of page.contents ?? []) {
        const hash = entry.key.slice(this.settings.prefix.length);
        if (!HASH.test(hash)) continue; // not ours
        yield { hash, size: entry.size ?? 0, modifiedMs: entry.lastModified ? new Date(entry.lastModified).getTime() : 0 };
      }
      continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
    } while (continuationToken);
  }

  async check(): Promise<void> {
    await this.client.list({ prefix: this.settings.prefix, maxKeys: 1 });
  }
}

/** S3 answers a missing key with NoSuchKey (GET) or a bare 404 (HEAD, which Bun reports as NotFound). */
function isNotFound(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'NoSuchKey' || code === 'NotFound';
}
