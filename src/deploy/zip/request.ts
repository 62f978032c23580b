// PUT …/deploy as a request: the coordination fields from the query, the
// declared length against the cap, then the streamed deploy. Shared by the
// canvas key's route and the people's route (a session or a token).
import type { ActorKind } from '../../audit/store.ts';
import type { Canvas } from '../../canvases/record.ts';
import { AppError } from '../../errors.ts';
import { validateCoordination, type DeployResult } from '../publish.ts';
import { deployZip, tooLargeBody, ZIP_LIMITS, type ZipDeployDeps } from './deploy.ts';
import type { DeploySlots } from './slots.ts';

export async function deployZipRequest(
  ctx: ZipDeployDeps,
  slots: DeploySlots,
  canvas: Canvas,
  request: Request,
  actor?: { id: string; kind: ActorKind },
): Promise<DeployResult> {
  const coordination = validateCoordination(coordinationQuery(new URL(request.url).searchParams));
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > ZIP_LIMITS.bodyBytes) throw tooLargeBody();
  try {
    return await deployZip(ctx, slots, canvas, request.body, coordination, actor);
  } catch (err) {
    throw withRawBodyHint(err, request.headers.get('content-type'));
  }
}

/** `releaseId`, `expectedPublicationToken` and `preview` (true|false) from the query; a repeated one is not a string. */
function coordinationQuery(query: URLSearchParams): { releaseId?: unknown; expectedPublicationToken?: unknown; preview?: unknown } {
  const one = (name: string): unknown => {
    const all = query.getAll(name);
    return all.length === 0 ? undefined : all.length === 1 ? all[0] : all;
  };
  const preview = one('preview');
  return {
    releaseId: one('releaseId'),
    expectedPublicationToken: one('expectedPublicationToken'),
    preview: preview === 'true' ? true : preview === 'false' ? false : preview,
  };
}

/**
 * `curl -d @site.zip` sends a form (and drops the archive's line breaks),
 * `curl -F file=@site.zip` a multipart body around it: neither is the ZIP.
 * The refusal says how to send the raw bytes.
 */
function withRawBodyHint(err: unknown, contentType: string | null): unknown {
  if (!(err instanceof AppError) || !['INVALID_ZIP', 'EMPTY_DEPLOY'].includes(err.errorCode)) return err;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const sentAs =
    type === 'application/x-www-form-urlencoded'
      ? 'a form (curl -d)'
      : type === 'multipart/form-data'
        ? 'a multipart form (curl -F)'
        : null;
  if (sentAs === null) return err;
  return new AppError(
    err.errorCode,
    `${err.message}. The body was sent as ${sentAs}; send the ZIP's raw bytes instead: curl -X PUT --data-binary @site.zip -H 'Content-Type: application/zip' …`,
    err.extra,
  );
}
