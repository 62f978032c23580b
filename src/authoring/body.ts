// The authoring request body: multipart/form-data with a `metadata` field
// (JSON text) and then a `bundle` file (a ZIP). Metadata is read and checked
// before the bundle is touched; the bundle is passed on as a stream, held to
// 50 MiB while it flows, and looked at only far enough to know it is not empty.
import { AppError, overCap } from '../errors.ts';
import { cappedChunks, readCapped } from '../streams/capped.ts';
import { boundaryOf, MultipartError, MultipartTooLargeError, readMultipart, type Part } from '../http/multipart.ts';
import { AUTHORING_LIMITS, parseMetadata, type CreateMetadata, type UpdateMetadata } from './model.ts';

/** Room for the metadata field and the framing next to the bundle. */
const FORM_OVERHEAD = 64 * 1024;
const MAX_BODY = AUTHORING_LIMITS.bundleBytes + FORM_OVERHEAD;

export const bundleTooLarge = () => overCap('INVALID_BODY', `bundle: at most ${AUTHORING_LIMITS.bundleBytes / (1024 * 1024)} MiB`);

export interface AuthoringBody<M> {
  metadata: M;
  /** Null when the form has no `bundle` part (allowed on PUT only). */
  bundle: AsyncIterable<Uint8Array> | null;
}

export async function readAuthoringBody<S extends typeof CreateMetadata | typeof UpdateMetadata>(
  request: Request,
  schema: S,
  bundleRequired: boolean,
): Promise<AuthoringBody<S['static']>> {
  const boundary = boundaryOf(request.headers.get('content-type'));
  if (!boundary || !request.body) throw new AppError('INVALID_BODY', 'send multipart/form-data with a `metadata` field and a `bundle` ZIP');
  if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY) throw bundleTooLarge();
  const parts = readMultipart(request.body, boundary, MAX_BODY);
  try {
    let metadataText: string | null = null;
    for (;;) {
      const next = await parts.next();
      if (next.done) break;
      const part = next.value;
      if (part.name === 'metadata') {
        metadataText = await readField(part);
      } else if (part.name === 'bundle') {
        if (metadataText === null) throw new AppError('INVALID_BODY', 'metadata: the field must come before the bundle');
        const metadata = parseMetadata(schema, metadataText);
        return { metadata, bundle: await nonEmpty(part, parts) };
      }
      // Other parts are skipped (the reader drains them).
    }
    const metadata = parseMetadata(schema, metadataText);
    if (bundleRequired) throw new AppError('INVALID_BODY', 'bundle: a ZIP file part is required');
    return { metadata, bundle: null };
  } catch (err) {
    throw formError(err);
  }
}

function formError(err: unknown): unknown {
  if (err instanceof MultipartError) return new AppError('INVALID_BODY', err.message);
  if (err instanceof MultipartTooLargeError) return bundleTooLarge();
  return err;
}

async function readField(part: Part): Promise<string> {
  const tooLarge = () => new AppError('INVALID_BODY', `metadata: at most ${AUTHORING_LIMITS.metadataBytes / 1024} KiB`);
  return new TextDecoder().decode(await readCapped(part.body, AUTHORING_LIMITS.metadataBytes + 1024, { tooLarge }));
}

/** The bundle's bytes as they arrive, 400 when it is empty; past 50 MiB they fail with 413. */
async function nonEmpty(part: Part, rest: AsyncGenerator<Part>): Promise<AsyncIterable<Uint8Array>> {
  const chunks = cappedChunks(part.body, AUTHORING_LIMITS.bundleBytes, { tooLarge: bundleTooLarge });
  let first = await chunks.next();
  while (!first.done && first.value.byteLength === 0) first = await chunks.next();
  if (first.done) throw new AppError('INVALID_BODY', 'bundle: the ZIP is empty');
  const head = first.value;
  async function* all(): AsyncGenerator<Uint8Array> {
    try {
      yield head;
      yield* chunks;
    } catch (err) {
      throw formError(err);
    } finally {
      // The rest of the form (its closing delimiter) is not needed.
      await rest.return(undefined).catch(() => {});
    }
  }
  return all();
}
