// `easel copy-data`'s blob half: every blob of the data directory into the
// bucket the new nodes will use, each checked against its name first (a
// damaged file is never spread) and skipped when the bucket already has it.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobRemote } from '../blobs/remote.ts';
import { blobPathUnder } from '../blobs/store.ts';
import { sha256Of } from '../backup/create.ts';

const HASH = /^[0-9a-f]{64}$/;

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

export function* localBlobHashes(dataDir: string): Generator<string> {
  const root = join(dataDir, 'blobs');
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  for (const a of list(root)) {
    if (!/^[0-9a-f]{2}$/.test(a)) continue;
    for (const b of list(join(root, a))) for (const name of list(join(root, a, b))) if (HASH.test(name)) yield name;
  }
}

export async function copyBlobs(dataDir: string, remote: BlobRemote): Promise<CopiedBlobs> {
  const done: CopiedBlobs = { uploaded: 0, alreadyThere: 0 };
  const root = join(dataDir, 'blobs');
  for (const hash of localBlobHashes(dataDir)) {
    const path = blobPathUnder(root, hash);
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
