// PUT …/deploy as a request: the coordination fields from the query, the
// declared length against the cap, then the streamed deploy. Shared by the
// canvas key's route and the people's route (a session or a token).
import type { ActorKind } from '../../audit/store.ts';
import type { Canvas } from '../../canvases/record.ts';
import { AppError } from '../../errors.ts';
import { validateCoordination, type DeployResult } from '../publish.ts';
import { deployZip, EMPTY_BODY, tooLargeBody, ZIP_LIMITS, type ZipDeployDeps } from './deploy.ts';
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

const COORDINATION_PARAMS = ['releaseId', 'expectedPublicationToken', 'preview'];

/**
 * `releaseId`, `expectedPublicationToken` and `preview` (true|false) from the
 * query; a repeated one is not a string. Any other parameter is refused: a
 * misspelt `preview` would publish, a misspelt token would skip its check
 * (the staged upload's body refuses unknown fields for the same reason).
 */
function coordinationQuery(query: URLSearchParams): { releaseId?: unknown; expectedPublicationToken?: unknown; preview?: unknown } {
  for (const name of query.keys()) {
    if (!COORDINATION_PARAMS.includes(name)) {
      const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
      throw new AppError(
        'INVALID_REQUEST',
        `unknown query parameter ${shown}: a deploy takes releaseId, expectedPublicationToken and preview`,
      );
    }
  }
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
 * A body that could not be read as one (or nothing at all, as `-d` sends for
 * a missing file) is told how to send the raw bytes. `curl --data-binary`
 * labels its raw bytes as a form too, so a form-labelled body is only asked
 * whether it came from `-d`, and a ZIP that was read (one with no files)
 * gets no hint.
 */
function withRawBodyHint(err: unknown, contentType: string | null): unknown {
  if (!(err instanceof AppError)) return err;
  if (err.errorCode !== 'INVALID_ZIP' && err.message !== EMPTY_BODY) return err;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const fix = "send the ZIP's raw bytes instead: curl -X PUT --data-binary @site.zip -H 'Content-Type: application/zip' …";
  const hint =
    type === 'application/x-www-form-urlencoded'
      ? `If it was sent with curl -d (which drops line breaks, and sends nothing for a file it cannot read), ${fix}`
      : type === 'multipart/form-data'
        ? `The body was sent as a multipart form (curl -F); ${fix}`
        : null;
  if (hint === null) return err;
  return new AppError(err.errorCode, `${err.message}. ${hint}`, err.extra);
}
