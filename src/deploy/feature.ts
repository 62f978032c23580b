// The Deploy API's parts for one app, built once: the versions (one
// VersionStore for every reader), their read-back views, the staged-upload
// service, ZIP deploys, rollback and unpublish, the deploy-class rate,
// recovery at start, and the blob references deploys keep (versions and
// staged uploads). Routes, MCP tools and other features are handed this
// feature; none builds a deploy store or reaches for its parts in the context.
import type { ActorKind } from '../audit/store.ts';
import { tableReferences, type BlobReferenceCheck } from '../blobs/gc.ts';
import type { Canvas } from '../canvases/record.ts';
import type { AppContext } from '../context.ts';
import type { Sql } from '../db/sql.ts';
import type { ByteSource } from '../streams/capped.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { enforceDeployRate } from './key-auth.ts';
import { rollback, unpublish, type LifecycleActor, type LifecycleDeps } from './lifecycle.ts';
import type { Coordination, DeployResult } from './publish.ts';
import { UploadService, type UploadDeps } from './upload/service.ts';
import { VersionStore } from './version-store.ts';
import { DeployViews } from './views.ts';
import { deployZip, resetDeployTmp, type ZipDeployDeps } from './zip/deploy.ts';
import { deployZipRequest } from './zip/request.ts';
import { DeploySlots } from './zip/slots.ts';

/** What the deploy feature uses, and nothing else of the context. */
export type DeployDeps = UploadDeps & ZipDeployDeps & LifecycleDeps & Pick<AppContext, 'limiter'>;

export class DeployFeature implements Lifecycle {
  /** Versions and their manifests: the one store every reader of versions is handed (drafts, gallery, MCP). */
  readonly versions: VersionStore;
  readonly views: DeployViews;
  readonly uploads: UploadService;
  /** ZIP deploys reading their body at once: memory stays bounded however many arrive. */
  private readonly zipSlots = new DeploySlots();

  constructor(private readonly deps: DeployDeps) {
    this.versions = new VersionStore(deps.sql);
    this.views = new DeployViews({ config: deps.config, versions: this.versions, blobs: deps.blobs });
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

  /** The deploy-class rate (PUT deploy, begin, finalize, rollback) of a canvas: a Promise when Redis counts. */
  rate(canvasId: string): Promise<void> | undefined {
    return enforceDeployRate(this.deps, canvasId);
  }

  /** PUT …/deploy: the query's coordination fields, the declared length, then the streamed ZIP. */
  deployZipRequest(canvas: Canvas, request: Request, actor?: { id: string; kind: ActorKind }): Promise<DeployResult> {
    return deployZipRequest(this.deps, this.zipSlots, canvas, request, actor);
  }

  /** A ZIP from elsewhere (a page's authoring bundle), key and rate already checked. */
  deployZip(canvas: Canvas, body: ByteSource | null, coordination: Coordination, actor?: { id: string; kind: ActorKind }) {
    return deployZip(this.deps, this.zipSlots, canvas, body, coordination, actor);
  }

  rollback(canvas: Canvas, number: number, actor?: LifecycleActor) {
    return rollback(this.deps, canvas, number, actor);
  }

  unpublish(canvas: Canvas, actor?: LifecycleActor) {
    return unpublish(this.deps, canvas, actor);
  }
}

/** Blobs named by a version's files or by a staged upload. */
export function deployBlobReferences(sql: Sql): BlobReferenceCheck[] {
  return [tableReferences(sql, 'version_files'), tableReferences(sql, 'upload_blobs')];
}
