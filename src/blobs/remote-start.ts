// At start with a remote blob tier: the store must answer (a server that
// cannot store a deploy should not take one), and local blobs it may lack
// (a data directory that ran embedded, a restored backup) are uploaded
// before any local copy may be dropped.
import type { Lifecycle } from '../lifecycle.ts';
import type { Logger } from '../log.ts';
import { remoteLocationOf, remoteMarkerPath, type BlobStore } from './store.ts';

export class RemoteBlobsAtStart extends Error {}

export function remoteBlobsStart(blobs: BlobStore, log: Logger): Lifecycle {
  return {
    async start() {
      const remote = blobs.remote;
      const movedTo = remoteLocationOf(blobs.dataDir);
      // Its folder is a cache of what the bucket holds: serving from it alone would answer pages with missing files.
      if (!remote && movedTo !== null)
        throw new RemoteBlobsAtStart(
          `the data directory keeps its blobs in ${movedTo}: set EASEL_BLOB_URL (and the S3 variables) again, or copy the bucket's objects into ${blobs.root} (each as ab/<sha256>, ab its first two characters) and remove ${remoteMarkerPath(blobs.dataDir)}`,
        );
      if (!remote) return;
      if (movedTo !== null && movedTo !== remote.location)
        throw new RemoteBlobsAtStart(
          `the data directory keeps its blobs in ${movedTo}, not ${remote.location}: copy the objects there first, or set EASEL_BLOB_URL back`,
        );
      try {
        await remote.check();
      } catch (err) {
        const reason = (err as { code?: string } | null)?.code ?? (err instanceof Error ? err.message : String(err));
        throw new RemoteBlobsAtStart(
          `the blob store ${remote.location} cannot be used (${reason}): check EASEL_BLOB_URL and the S3 variables`,
        );
      }
      // The first start on a bucket may have a whole data directory to upload: say so before the wait.
      if (movedTo === null) log.info('checking the blob store holds every local blob (first start on it)', { location: remote.location });
      const uploaded = await blobs.seedRemote();
      if (uploaded > 0) log.info('local blobs uploaded to the blob store', { count: uploaded, location: remote.location });
    },
  };
}
