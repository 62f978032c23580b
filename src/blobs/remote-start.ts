// At start with a remote blob tier: the store must answer (a server that
// cannot store a deploy should not take one), and local blobs it may lack
// (a data directory that ran embedded, a restored backup) are uploaded
// before any local copy may be dropped.
import type { Lifecycle } from '../lifecycle.ts';
import type { Logger } from '../log.ts';
import type { BlobStore } from './store.ts';

export class RemoteBlobsAtStart extends Error {}

export function remoteBlobsStart(blobs: BlobStore, log: Logger): Lifecycle {
  return {
    async start() {
      const remote = blobs.remote;
      if (!remote) return;
      try {
        await remote.check();
      } catch (err) {
        const reason = (err as { code?: string } | null)?.code ?? (err instanceof Error ? err.message : String(err));
        throw new RemoteBlobsAtStart(
          `the blob store ${remote.location} does not answer (${reason}): check EASEL_BLOB_URL and the S3 variables`,
        );
      }
      const uploaded = await blobs.seedRemote();
      if (uploaded > 0) log.info('local blobs uploaded to the blob store', { count: uploaded, location: remote.location });
    },
  };
}
