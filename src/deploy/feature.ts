// The Deploy API's parts for one app, built once: the versions (one
// VersionStore for every reader), their read-back views, the staged-upload
// service, recovery at start, and the blob references deploys keep (versions
// and staged uploads).
import { tableReferences, type BlobReferenceCheck } from '../blobs/gc.ts';
import type { Sql } from '../db/sql.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { UploadService, type UploadDeps } from './upload/service.ts';
import { VersionStore } from './version-store.ts';
import { DeployViews } from './views.ts';
import { resetDeployTmp } from './zip/deploy.ts';

/** What the deploy feature uses: the staged upload's needs (which cover the views' and the start's). */
export type DeployDeps = UploadDeps;

export class DeployFeature implements Lifecycle {
  /** Versions and their manifests: the one store every reader of versions is handed (drafts, gallery, MCP). */
  readonly versions: VersionStore;
  readonly views: DeployViews;
  readonly uploads: UploadService;

  constructor(private readonly deps: DeployDeps) {
    this.versions = new VersionStore(deps.sql);
    this.views = new DeployViews({ config: deps.config, versions: this.versions });
    this.uploads = new UploadService(deps);
  }

  async start(): Promise<void> {
    // A crash mid-deploy leaves spooled bodies and unrenamed blobs behind.
    resetDeployTmp(this.deps);
    // A restart may find upload sessions that ended while it was down, and finalize leases of the dead process.
    await this.uploads.sweep();
    const freed = await this.uploads.recover();
    if (freed > 0) this.deps.log.warn('upload: finalize leases left by a previous process released', { count: freed });
  }
}

/** Blobs named by a version's files or by a staged upload. */
export function deployBlobReferences(sql: Sql): BlobReferenceCheck[] {
  return [tableReferences(sql, 'version_files'), tableReferences(sql, 'upload_blobs')];
}
