// The Deploy API's parts for one app: the staged-upload service, recovery at
// start, and the blob references deploys keep (versions and staged uploads).
import { tableReferences, type BlobReferenceCheck } from '../blobs/gc.ts';
import type { AppContext } from '../context.ts';
import type { Sql } from '../db/sql.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { UploadService } from './upload/service.ts';
import { resetDeployTmp } from './zip/deploy.ts';

export interface DeployFeature extends Lifecycle {
  uploads: UploadService;
}

export function createDeployFeature(ctx: AppContext): DeployFeature {
  const uploads = new UploadService(ctx);
  return {
    uploads,
    async start() {
      // A crash mid-deploy leaves spooled bodies and unrenamed blobs behind.
      resetDeployTmp(ctx);
      // A restart may find upload sessions that ended while it was down, and finalize leases of the dead process.
      await uploads.sweep();
      const freed = await uploads.recover();
      if (freed > 0) ctx.log.warn('upload: finalize leases left by a previous process released', { count: freed });
    },
  };
}

/** Blobs named by a version's files or by a staged upload. */
export function deployBlobReferences(sql: Sql): BlobReferenceCheck[] {
  return [tableReferences(sql, 'version_files'), tableReferences(sql, 'upload_blobs')];
}
