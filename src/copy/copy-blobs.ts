// `easel copy-data`'s blob half: every blob of the data directory into the
// bucket the new nodes will use, each checked against its name first (a
// damaged file is never spread) and skipped when the bucket already has it.
import { join } from 'node:path';
import type { BlobRemote } from '../blobs/remote.ts';
import { blobFilesUnder } from '../blobs/layout.ts';
import { sha256Of } from '../backup/create.ts';

export class DamagedBlob extends Error {
  constructor(hash: string) {
    super(`the blob ${hash} in the data directory does not hash to its name: restore it from a backup first`);
    this.name = 'DamagedBlob';
  }
}

export interface CopiedBlobs {
  uploaded: number;
  alreadyThere: number;
}

/** Every blob hash the data directory holds, in either layout. */
export function* localBlobHashes(dataDir: string): Generator<string> {
  for (const { hash } of blobFilesUnder(join(dataDir, 'blobs'))) yield hash;
}

export async function copyBlobs(dataDir: string, remote: BlobRemote): Promise<CopiedBlobs> {
  const done: CopiedBlobs = { uploaded: 0, alreadyThere: 0 };
  const root = join(dataDir, 'blobs');
  // Either layout: copy-data never changes its source, so a data directory an older release wrote is read as it is.
  for (const { hash, path } of blobFilesUnder(root)) {
    if ((await sha256Of(Bun.file(path).stream())) !== hash) throw new DamagedBlob(hash);
    if ((await remote.stat(hash)) !== null) {
      done.alreadyThere++;
      continue;
    }
    await remote.upload(hash, path);
    done.uploaded++;
  }
  return done;
}
