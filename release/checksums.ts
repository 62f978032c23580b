// SHA-256 of a release file, read as a stream (the binaries are ~110 MB).
import { createHash } from 'node:crypto';

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of Bun.file(path).stream() as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
  return hash.digest('hex');
}
