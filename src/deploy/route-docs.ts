// What the deploy routes share in their declarations: the refusals of each
// way to publish (the canvas key's routes and the people's answer the same
// codes, from the same services) and the coordination query of a ZIP deploy.
import { Type as T } from '@sinclair/typebox';
import type { ErrorCode } from '../errors.ts';
import { BeginUploadBody, FinalizeBody } from './model.ts';

/** Rollback: no kept version with that number (INVALID_PATH), or one that cannot go live again. */
export const ROLLBACK_ERRORS: ErrorCode[] = ['INVALID_PATH', 'VERSION_UNAVAILABLE'];

/** A release or publication token that no longer matches (spec "Coordination"). */
export const COORDINATION: ErrorCode[] = ['PUBLICATION_CHANGED', 'RELEASE_NOT_CURRENT', 'INVALID_RELEASE_ID', 'INVALID_REQUEST'];

export const ZIP_DEPLOY_ERRORS: ErrorCode[] = [
  'EMPTY_DEPLOY',
  'INVALID_ZIP',
  'ZIP_SLIP_REJECTED',
  'ZIP_BOMB_REJECTED',
  'TOO_MANY_FILES',
  'CANVAS_TOO_LARGE',
  'FILE_TOO_LARGE',
  'QUOTA_EXCEEDED',
  'INSUFFICIENT_STORAGE',
  'STORAGE_UNAVAILABLE',
  ...COORDINATION,
];

export const BEGIN_ERRORS: ErrorCode[] = [
  'INVALID_MANIFEST',
  'INVALID_PATH',
  'ZIP_SLIP_REJECTED',
  'FILE_TOO_LARGE',
  'CANVAS_TOO_LARGE',
  'TOO_MANY_FILES',
  // Begin refuses a manifest the disk could not hold.
  'INSUFFICIENT_STORAGE',
  ...COORDINATION,
];

export const STAGE_ERRORS: ErrorCode[] = [
  'UPLOAD_HANDLE_INVALID',
  'UPLOAD_EXPIRED',
  'UPLOAD_UNEXPECTED_BLOB',
  'BLOB_HASH_MISMATCH',
  'FILE_TOO_LARGE',
  'UPLOAD_ALREADY_FINALIZED',
  'INSUFFICIENT_STORAGE',
  'STORAGE_UNAVAILABLE',
];

export const FINALIZE_ERRORS: ErrorCode[] = [
  'UPLOAD_HANDLE_INVALID',
  'UPLOAD_EXPIRED',
  'UPLOAD_MISSING_BLOB',
  'UPLOAD_IN_PROGRESS',
  'UPLOAD_ALREADY_FINALIZED',
  'RELEASE_ID_MISMATCH',
  // The staged bytes, summed at finalize.
  'CANVAS_TOO_LARGE',
  ...COORDINATION,
];

/**
 * PUT …/deploy's coordination fields. Any string passes here: the deploy
 * reads them from the URL itself (zip/request.ts), so a repeated field stays
 * 400 INVALID_REQUEST, and `preview` anything but true|false or any other
 * parameter the same.
 */
export const DeployQuery = T.Object({
  releaseId: T.Optional(T.String({ description: 'release identity (a rerun of the live release answers already_current)' })),
  expectedPublicationToken: T.Optional(T.String({ description: 'publish only if still current' })),
  preview: T.Optional(
    T.String({
      description:
        'true: a ready version that does not go live (outcome "preview", previewUrl); the live version and publication token stay',
    }),
  ),
});

/** `?path=`: one file of the live version instead of the listing. */
export const LiveFileQuery = T.Object({ path: T.Optional(T.String({ description: 'one file of the live version (its bytes)' })) });

export const ZIP_BODY = { contentType: 'application/zip', description: 'a ZIP of the site, index.html at its root (up to 110 MB)' };
export const BLOB_BODY = { contentType: 'application/octet-stream', description: 'the file bytes whose sha256 is :hash' };
export const STORED = { status: 204, contentType: 'none', description: 'stored' };

/**
 * The staged upload's JSON bodies are read by their own readers
 * (upload/body.ts), which answer the spec's codes (INVALID_MANIFEST at begin,
 * INVALID_REQUEST at finalize) rather than INVALID_BODY: they are declared as
 * content the handler reads, naming the model's fields.
 */
export const BEGIN_BODY = {
  contentType: 'application/json',
  description: `{${Object.keys(BeginUploadBody.properties).join(', ')}}: manifest is [{path, hash (sha256, lowercase hex), size}]`,
};
export const FINALIZE_BODY = {
  contentType: 'application/json',
  description: `{${Object.keys(FinalizeBody.properties).join(', ')}}, all optional (an empty body is {})`,
};
